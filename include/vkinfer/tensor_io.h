// Reading and writing tensors in the two file formats the CLI and tests use.
#pragma once

#include <string>

#include "vkinfer/status.h"
#include "vkinfer/tensor.h"

namespace vkinfer {

// Reads a NumPy .npy file (little-endian, C order; f4, f2, f8, i1/2/4/8, u1/2/4/8, b1).
Result<Tensor> loadNpy(const std::string& path);
// Writes a .npy file (format version 1.0).
Status saveNpy(const std::string& path, const Tensor& tensor);

// Reads a serialized ONNX TensorProto (.pb) as written by the ONNX backend tests.
// If name is non-null it receives the tensor's name field.
Result<Tensor> loadTensorProto(const std::string& path, std::string* name = nullptr);
// Writes a serialized ONNX TensorProto.
Status saveTensorProto(const std::string& path, const Tensor& tensor, const std::string& name = "");

// Chooses by extension: ".npy" or ".pb".
Result<Tensor> loadTensorFile(const std::string& path);
// Same, with the name the file carries: a TensorProto's name field, empty when the field is
// unset or the file is a .npy (which has no name).
Result<NamedTensor> loadNamedTensorFile(const std::string& path);

}  // namespace vkinfer
