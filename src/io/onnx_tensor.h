// Conversion between onnx::TensorProto and vkinfer::Tensor.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "vkinfer/tensor.h"

namespace vkinfer::io {

// Throws Error (ParseError/Unsupported) naming `what` when the proto is inconsistent
// (data size not matching dims), uses external data, or has an unsupported type.
Tensor tensorFromProto(const onnx::TensorProto& proto, const std::string& what);
void tensorToProto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto);

}  // namespace vkinfer::io
