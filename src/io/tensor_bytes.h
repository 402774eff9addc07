// The .npy and TensorProto readers of vkinfer/tensor_io.h on bytes already in memory, so that
// the fuzzers (tests/fuzz) reach the same parsing code without writing files.
#pragma once

#include <string>

#include "vkinfer/tensor.h"

namespace vkinfer::io {

// Throw Error (ParseError/Unsupported) naming `label` when the bytes are not a valid file.
Tensor parseNpyBytes(const std::string& bytes, const std::string& label);
Tensor parseTensorProtoBytes(const std::string& bytes, const std::string& label, std::string* name = nullptr);

}  // namespace vkinfer::io
