// fuzz_pb: the input is a serialized ONNX TensorProto (.pb), read by the parser behind
// vkinfer::loadTensorProto.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_common.h"
#include "io/tensor_bytes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace vkinfer;
    fuzz::expectOnlyCleanErrors([&] {
        std::string name;
        Tensor t = io::parseTensorProtoBytes(std::string(reinterpret_cast<const char*>(data), size), "fuzz.pb", &name);
        if (t.byteSize() != static_cast<size_t>(t.elementCount()) * dataTypeSize(t.dtype())) std::abort();
    });
    return 0;
}
