// fuzz_npy: the input is a .npy file, read by the parser behind vkinfer::loadNpy.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_common.h"
#include "io/tensor_bytes.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace vkinfer;
    fuzz::expectOnlyCleanErrors([&] {
        Tensor t = io::parseNpyBytes(std::string(reinterpret_cast<const char*>(data), size), "fuzz.npy");
        // What was read is what the header declared, and no more than the file holds.
        if (t.byteSize() != static_cast<size_t>(t.elementCount()) * dataTypeSize(t.dtype())) std::abort();
        if (t.byteSize() > size) std::abort();
    });
    return 0;
}
