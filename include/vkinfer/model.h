// A parsed ONNX model: its graph, weights and declared inputs/outputs.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "vkinfer/status.h"
#include "vkinfer/tensor.h"

namespace vkinfer {

namespace detail {
struct ModelData;
}

// A graph input or output as the model declares it.
struct TensorDesc {
    std::string name;
    DataType dtype = DataType::Float32;
    // Declared dimensions; -1 where the dimension is dynamic (named in dimNames).
    std::vector<int64_t> shape;
    // The symbolic name of each dynamic dimension ("N", "H"), empty for fixed ones.
    std::vector<std::string> dimNames;
    // False when the model declares no shape for an input at all (any rank is accepted and
    // the shape must be given).
    bool rankKnown = true;
    bool isDynamic() const;
};

// Concrete shapes for a model's inputs, by input name. Inputs not listed take
// their declared (static) shape.
using InputShapes = std::vector<std::pair<std::string, std::vector<int64_t>>>;

class Model {
public:
    // Parses an ONNX file. Fails with ParseError on a malformed or truncated file,
    // NotFound if it does not exist, Unsupported for an operator the engine cannot run
    // (naming the node, op type and opset).
    static Result<Model> load(const std::string& path);
    // Same, from serialized ModelProto bytes; label names the source in messages.
    static Result<Model> fromBytes(const void* data, size_t size, const std::string& label = "<memory>");
    // The operator types of an ONNX file's nodes in graph order (Constant included), read
    // without checking whether vkinfer supports them.
    static Result<std::vector<std::string>> listOperators(const std::string& path);

    const std::vector<TensorDesc>& inputs() const;
    const std::vector<TensorDesc>& outputs() const;
    // The default-domain opset the model imports.
    int64_t opset() const;
    // Number of nodes in the ONNX graph as loaded.
    size_t nodeCount() const;
    const std::string& label() const;

    // Shapes of all inputs, from `given` and the declared static dims; fails naming the
    // input and dimension that is still unknown, or an unknown input name.
    Result<InputShapes> resolveShapes(const InputShapes& given) const;

    std::shared_ptr<const detail::ModelData> data() const { return data_; }

private:
    std::shared_ptr<const detail::ModelData> data_;
};

}  // namespace vkinfer
