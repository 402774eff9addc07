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
    // An initializer of `type` and `shape` whose bytes are in the external file `location`
    // (relative to the model's folder; the test writes the file) at `offset`; `length` is
    // written unless negative, `offset` unless negative.
    OnnxBuilder& externalInitializer(const std::string& name, DataType type, const std::vector<int64_t>& shape,
                                     const std::string& location, int64_t offset = 0, int64_t length = -1);

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

// Moves every initializer of at least `minBytes` into the file `location` in `folder`, each at
// an offset aligned to `alignment` (what PyTorch's exporter and onnx.save_model(...,
// save_as_external_data=True) write), and returns how many it moved. The model is then to
// be saved in `folder`.
size_t moveInitializersToExternalData(onnx::ModelProto& model, const std::string& folder, const std::string& location,
                                      size_t minBytes = 1024, size_t alignment = 4096);

// Deterministic pseudo-random tensors for tests.
Tensor randomTensor(const std::vector<int64_t>& shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f);
Tensor int64Tensor(const std::vector<int64_t>& shape, const std::vector<int64_t>& values);
Tensor floatTensor(const std::vector<int64_t>& shape, const std::vector<float>& values);

}  // namespace vkinfer::testing
