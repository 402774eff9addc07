// Conversion between onnx::TensorProto and vkinfer::Tensor.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "vkinfer/tensor.h"

namespace vkinfer::io {

class ExternalData;

// Throws Error (ParseError/Unsupported) naming `what` when the proto is inconsistent
// (data size not matching dims) or has an unsupported type. A tensor whose data is in an
// external file is read through `external` (the model's external data, see
// io/external_data.h); without it such a tensor fails, naming its location.
Tensor tensorFromProto(const onnx::TensorProto& proto, const std::string& what, ExternalData* external = nullptr);
void tensorToProto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto);

// A Bool tensor's bytes as 0 and 1 (any other byte read from a file is true): the CPU
// reference reads them as C++ bool, for which another byte value is undefined behaviour (the
// fuzzer's finding: a GreaterOrEqual of bool initializers stored as 0x02). Other types: no-op.
void normalizeBools(Tensor& t);

// Bytes a tensor of `dims` and `type` occupies. Throws Error(ParseError) naming `what` on a
// negative dimension or when the size overflows int64. File readers call it before
// allocating, so that a header claiming a huge shape is reported as malformed (its data
// cannot be there) instead of as an allocation failure or a wrapped-around small size.
uint64_t checkedByteSize(const std::vector<int64_t>& dims, DataType type, const std::string& what);

}  // namespace vkinfer::io
