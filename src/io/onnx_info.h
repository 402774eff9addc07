// What an ONNX file declares (Model::inspect): read from the protobuf alone, so that models
// vkinfer cannot import or run can still be described, with everything unsupported listed.
#pragma once

#include <cstddef>

#include "vkinfer/model.h"

namespace vkinfer::io {

// Throws Error(ParseError) naming `label` only when the bytes are not an ONNX model.
ModelInfo inspectOnnx(const void* data, size_t size, const std::string& label);

}  // namespace vkinfer::io
