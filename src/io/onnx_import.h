// ONNX ModelProto -> graph IR.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"

namespace vkinfer::io {

// Parses serialized ModelProto bytes. Initializers and Constant nodes become constant
// values. Throws Error(ParseError) naming `label` when the bytes are not a valid model.
// Tensors kept in external files are read from `externalDataFolder` (the model file's
// folder; empty: the model has none, and such tensors fail). See io/external_data.h.
graph::Graph importOnnx(const void* data, size_t size, const std::string& label,
                        const std::string& externalDataFolder = {});

// Node op types only (a protobuf parse, no checks beyond that).
std::vector<std::string> listOnnxOperators(const void* data, size_t size, const std::string& label);

}  // namespace vkinfer::io
