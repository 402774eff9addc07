// The graph IR: plain structs, no Vulkan. A Graph is what io/onnx_import produces and what
// the passes, lowering and planners work on.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "vkinfer/tensor.h"

namespace vkinfer::graph {

using Shape = std::vector<int64_t>;

// An element-wise activation fused into the op that produces a tensor.
// Silu: x * sigmoid(x), what exporters write as Mul(x, Sigmoid(x)) (EfficientNet, YOLO).
// Gelu: x * Phi(x) with the exact erf, GeluTanh: its tanh approximation (ONNX Gelu, opset 20,
// approximate = "none" / "tanh": ViT, ConvNeXt, Swin). HardSigmoid: clamp(alpha x + beta, 0, 1);
// HardSwish: x * clamp(x / 6 + 1 / 2, 0, 1) (MobileNetV3). PRelu: a slope per output channel,
// fused only into convolutions, whose kernels read it beside their bias.
enum class ActKind : uint32_t {
    None = 0, Relu = 1, Clip = 2, Sigmoid = 3, Tanh = 4, LeakyRelu = 5, Silu = 6, Gelu = 7, GeluTanh = 8,
    HardSigmoid = 9, HardSwish = 10, PRelu = 11
};
struct Activation {
    ActKind kind = ActKind::None;
    float alpha = 0;  // Clip: min, LeakyRelu: slope, HardSigmoid: alpha
    float beta = 0;   // Clip: max, HardSigmoid: beta
    // PRelu: the slope of each output channel of the producer (axis 1; for a convolution that
    // stores a fused DepthToSpace, of its channels before the shuffle).
    std::vector<float> slopes;
};
const char* actKindName(ActKind kind);

// Elements of a tensor seen through strides: element (i0, i1, ...) of the view is element
// offset + sum(i_d * stride[d]) of the tensor's row-major storage. Empty shape: no view.
struct StridedView {
    int64_t offset = 0;
    Shape shape;
    std::vector<int64_t> stride;
    bool empty() const { return shape.empty(); }
};

// A tensor of the graph.
struct Value {
    std::string name;
    DataType dtype = DataType::Float32;
    Shape shape;
    bool hasShape = false;
    std::optional<Tensor> constant;  // initializer, Constant output, or folded at load time
    int producer = -1;               // index of the node that writes it, -1 if none

    int64_t elementCount() const { return vkinfer::elementCount(shape); }
    int64_t byteSize() const { return elementCount() * static_cast<int64_t>(dataTypeSize(dtype)); }
};

using AttrValue = std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>,
                               std::vector<std::string>, Tensor>;

struct Node {
    std::string name;
    std::string opType;
    std::string domain;
    std::vector<int> inputs;   // value ids; -1 for an omitted optional input
    std::vector<int> outputs;  // value ids
    std::map<std::string, AttrValue> attrs;

    // Set by the fusion passes.
    Activation activation;
    // A DepthToSpace folded into a Conv (passes/fusion.cpp): its blocksize (0: none) and
    // whether its mode is CRD (else DCR). The node's output is the DepthToSpace's.
    int64_t depthToSpace = 0;
    bool depthToSpaceCrd = false;
    // MatMul and Concat: input i is read as this strided window of the value inputs[i] (the
    // Slices, Reshapes and Transposes in front of it that passes/fusion.cpp and
    // passes/concat_views.cpp folded into the node's loads); an empty one, or none past the
    // end: the input as it is. Set through setInputView.
    std::vector<StridedView> inputViews;
    // MatMul: its output is the product transposed by this permutation (a Transpose after it
    // folded into the GEMM's stores); Conv: {0, 2, 3, 1}, its output is [N, OH, OW, M], stored
    // channels-last; empty: the product as it is.
    std::vector<int64_t> outputPerm;
    // MatMul: its product is multiplied by this (scalar Mul and Div nodes on its operands or
    // its output that passes/fusion.cpp folded into the GEMM's alpha).
    float matMulScale = 1.0f;
    std::vector<std::string> fusedNames;  // ONNX nodes folded into this one (besides `name`)
    bool removed = false;

    bool hasAttr(const std::string& key) const { return attrs.count(key) != 0; }
    int64_t attrInt(const std::string& key, int64_t fallback) const;
    float attrFloat(const std::string& key, float fallback) const;
    std::string attrString(const std::string& key, const std::string& fallback) const;
    std::vector<int64_t> attrInts(const std::string& key, std::vector<int64_t> fallback = {}) const;
    std::vector<float> attrFloats(const std::string& key, std::vector<float> fallback = {}) const;
    const Tensor* attrTensor(const std::string& key) const;

    int input(size_t i) const { return i < inputs.size() ? inputs[i] : -1; }
    const StridedView& inputView(size_t i) const;
    void setInputView(size_t i, StridedView view);
    bool hasInputViews() const;
    // "'<name>' (<op>)", used in every error message about the node.
    std::string describe() const;
};

// A graph input as the model declares it: fixed dims, or -1 with a symbolic name.
struct InputDecl {
    int value = -1;
    std::vector<int64_t> dims;
    std::vector<std::string> dimNames;
    bool rankKnown = true;  // false when the model declares no shape at all
    // IR >= 4: an input that also has an initializer takes it as its default, used when the
    // caller gives none (ONNX: the initializer is a default the caller may override).
    std::optional<Tensor> defaultValue;
};

struct Graph {
    std::vector<Value> values;
    std::vector<Node> nodes;
    std::vector<InputDecl> inputs;
    std::vector<int> outputs;
    std::vector<std::vector<std::string>> outputDimNames;
    int64_t opset = 0;
    std::string label;  // where the model came from, for messages

    int addValue(Value v);
    // Adds a constant tensor named after `hint`, made unique.
    int addConstant(const std::string& hint, Tensor t);
    // Adds a value computed by a node a rewrite or a lowering adds (no constant), of this
    // type and shape, named after `hint`, made unique. Like addValue, it moves `values`.
    int addIntermediate(const std::string& hint, DataType type, Shape shape);
    int findValue(const std::string& name) const;
    std::string uniqueName(const std::string& hint);

    bool isGraphInput(int value) const;
    bool isGraphOutput(int value) const;
    // Recomputes Value::producer from the live nodes (O(nodes + values): once per pass, not
    // per node).
    void relinkProducers();

    // Live nodes ordered so that producers come before their consumers (among ready nodes
    // the smallest index first, so a valid order is kept). Producers must be linked. On a
    // cycle returns false and, if `cycle` is given, fills it with the nodes along one cycle
    // in data-flow order.
    bool topologicalOrder(std::vector<int>* order, std::vector<int>* cycle = nullptr) const;
    // "'a' (Relu) -> 'b' (Add) -> 'a' (Relu)" for a cycle found by topologicalOrder.
    std::string describeCycle(const std::vector<int>& cycle) const;

private:
    std::unordered_map<std::string, int> index_;
};

// Which live nodes read each value, built once in O(nodes + edges) so that a pass asking per
// node stays linear (a scan of every node per question made planning quadratic: 20k nodes
// took 10 s). A pass that gives a node a new input says so with add(); nodes removed or inputs
// replaced since are dropped when met.
class Readers {
public:
    explicit Readers(const Graph& g);
    // The live nodes reading `value`, each once, in node order.
    std::vector<int> of(int value) const;
    void add(int value, int node);

private:
    const Graph& g_;
    std::vector<std::vector<int>> readers_;
};

}  // namespace vkinfer::graph
