// Tensors whose bytes live outside the model file (ONNX "external data", docs/ExternalData.md
// in onnx/onnx): TensorProto.data_location = EXTERNAL with external_data entries `location`
// (a file relative to the model's folder), `offset` and `length` (bytes, decimal strings).
// `checksum` and other keys are ignored. Each file is mapped once and shared by every tensor
// in it; tensors borrow the mapped bytes (Tensor::borrow) where they are aligned for their
// element type, so weights go from the page cache to the GPU staging buffer without a copy.
#pragma once

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/mapped_file.h"
#include "vkinfer/tensor.h"

namespace vkinfer::io {

class ExternalData {
public:
    // `modelFolder`: the folder of the model file, which every location is relative to; empty
    // when the model came from memory without one (then every external tensor fails, saying so).
    explicit ExternalData(std::string modelFolder);

    // The data of `proto` (data_location EXTERNAL), whose type and dims the caller has
    // checked: `bytes` is what they need. Throws Error naming the tensor (`what`), the
    // location and the file: InvalidArgument for a location that is empty, absolute, leaves
    // the model's folder (`..`, or a symbolic link resolving outside it) or is not a regular
    // file; NotFound for a missing file; ParseError for a malformed offset or length, a
    // length other than `bytes`, or data past the end of the file.
    Tensor read(const onnx::TensorProto& proto, DataType type, const std::vector<int64_t>& dims, uint64_t bytes,
                const std::string& what);

private:
    std::shared_ptr<const MappedFile> fileFor(const std::string& location, const std::string& what);

    std::string folder_;
    std::filesystem::path canonicalFolder_;  // folder_ with symbolic links resolved (first use)
    std::map<std::string, std::shared_ptr<const MappedFile>> files_;  // by resolved path
};

}  // namespace vkinfer::io
