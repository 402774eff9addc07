// ONNX ModelProto -> graph IR.
#pragma once

#include <string>

#include "graph/graph.h"

namespace vkinfer::io {

// Parses serialized ModelProto bytes. Initializers and Constant nodes become constant
// values. Throws Error(ParseError) naming `label` when the bytes are not a valid model.
graph::Graph importOnnx(const void* data, size_t size, const std::string& label);

}  // namespace vkinfer::io
