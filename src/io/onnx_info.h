// What an ONNX file declares (Model::inspect): read from the protobuf alone, so that models
// vkinfer cannot import or run can still be described, with everything unsupported listed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

#include "vkinfer/model.h"

namespace vkinfer::io {

// Which operators the engine implements, asked of the op table above this layer (io reads
// files; it does not know the operators): at a given opset of the default domain, and at any.
struct OperatorSupport {
    std::function<bool(std::string_view op, int64_t opset)> atOpset;
    std::function<bool(std::string_view op)> atAnyOpset;
};

// Throws Error(ParseError) naming `label` only when the bytes are not an ONNX model.
ModelInfo inspectOnnx(const void* data, size_t size, const std::string& label, const OperatorSupport& support);

}  // namespace vkinfer::io
