// Builds ONNX models in memory for tests (single-op graphs, small networks, and broken
// models for the error-path tests).
#pragma once

#include <onnx/onnx_pb.h>
#include <vkinfer/vkinfer.h>

#include <string>
#include <vector>

namespace vkinfer::testing {

class OnnxBuilder {
public:
    explicit OnnxBuilder(int64_t opset = 13);

    // A graph input; -1 dims become symbolic (named dim0, dim1, ...).
    OnnxBuilder& input(const std::string& name, const std::vector<int64_t>& shape, DataType type = DataType::Float32);
    OnnxBuilder& output(const std::string& name, DataType type = DataType::Float32);
    OnnxBuilder& initializer(const std::string& name, const Tensor& value);

    // Adds a node; the returned proto can take attributes through the attr helpers below.
    onnx::NodeProto& node(const std::string& op, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name = "");

    std::string serialize() const;
    Result<Model> build() const;
    onnx::ModelProto& proto() { return model_; }

private:
    onnx::ModelProto model_;
};

void attr(onnx::NodeProto& n, const std::string& name, int64_t v);
void attr(onnx::NodeProto& n, const std::string& name, float v);
void attr(onnx::NodeProto& n, const std::string& name, const std::string& v);
void attr(onnx::NodeProto& n, const std::string& name, const std::vector<int64_t>& v);
void attr(onnx::NodeProto& n, const std::string& name, const std::vector<float>& v);

// Deterministic pseudo-random tensors for tests.
Tensor randomTensor(const std::vector<int64_t>& shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f);
Tensor int64Tensor(const std::vector<int64_t>& shape, const std::vector<int64_t>& values);
Tensor floatTensor(const std::vector<int64_t>& shape, const std::vector<float>& values);

}  // namespace vkinfer::testing
