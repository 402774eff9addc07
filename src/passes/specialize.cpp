#include "passes/specialize.h"

#include <algorithm>
#include <limits>
#include <string_view>

#include "core/error.h"
#include "core/host_alloc.h"
#include "core/wording.h"
#include "ops/registry.h"

namespace vkinfer::passes {

using graph::Graph;
using graph::Node;

void sortTopologically(Graph& g) {
    g.relinkProducers();
    std::vector<int> order, cycle;
    if (!g.topologicalOrder(&order, &cycle))
        fail(ErrorCode::ParseError, "{}: the graph has a cycle: {}", g.label, g.describeCycle(cycle));
    std::vector<Node> sorted;
    sorted.reserve(order.size());
    for (int i : order) sorted.push_back(std::move(g.nodes[i]));
    g.nodes = std::move(sorted);
    g.relinkProducers();
}

void removeDeadNodes(Graph& g) {
    g.relinkProducers();
    // Walk back from the outputs through producers (independent of node order).
    std::vector<char> liveNode(g.nodes.size(), 0);
    std::vector<int> work(g.outputs.begin(), g.outputs.end());
    while (!work.empty()) {
        int v = work.back();
        work.pop_back();
        int p = g.values[v].producer;
        if (p < 0 || liveNode[p]) continue;
        liveNode[p] = 1;
        for (int in : g.nodes[p].inputs)
            if (in >= 0) work.push_back(in);
    }
    std::vector<Node> kept;
    for (size_t i = 0; i < g.nodes.size(); ++i)
        if (liveNode[i]) kept.push_back(std::move(g.nodes[i]));
    g.nodes = std::move(kept);
    g.relinkProducers();
}

namespace {

// Limits that keep planning bounded by what the model file holds: a few hundred bytes of
// ONNX can declare a 10^12-element input, or a ConstantOfShape/Expand/Tile/Range that would
// fold to a constant of terabytes.
// - No tensor of a plan exceeds kMaxTensorBytes (far beyond any device's buffers), so sizes,
//   strides and offsets computed from shapes later never overflow int64.
// - Constant folding creates at most max(minFoldBudget, kFoldBudgetPerWeightByte x the
//   bytes of the model's own constants) in total (casting or dequantizing weights must
//   fold, whatever the model's size), and at most kMaxFoldWork multiply-adds in products
//   (ops::OpDef::foldWork: a ConstantOfShape of 2048 x 2048 squared by a MatMul is 16 MiB of
//   output but 2^33 multiply-adds, minutes here). Past either a node runs on the GPU instead,
//   or, when its op has no GPU kernel, the plan fails naming it.
constexpr int64_t kMaxTensorBytes = int64_t{1} << 40;
constexpr int64_t kDefaultMinFoldBudget = int64_t{64} << 20;
int64_t minFoldBudget = kDefaultMinFoldBudget;  // changed only by setMinFoldBudgetForTesting
constexpr int64_t kFoldBudgetPerWeightByte = 4;
// About a second of the reference's products (and inside the fuzzer's timeout when sanitized).
constexpr int64_t kMaxFoldWork = int64_t{1} << 28;

// Bytes of a value of this dtype and shape, or -1 when they exceed kMaxTensorBytes (a zero
// dimension does not excuse the others: strides are products of them).
int64_t boundedBytes(DataType dtype, const graph::Shape& shape) {
    int64_t bytes = std::max<int64_t>(1, static_cast<int64_t>(dataTypeSize(dtype)));
    for (int64_t d : shape)
        if (d != 0 && (d < 0 || __builtin_mul_overflow(bytes, d, &bytes) || bytes > kMaxTensorBytes)) return -1;
    return std::find(shape.begin(), shape.end(), 0) != shape.end() ? 0 : bytes;
}

std::string sizeText(int64_t bytes) {
    const double b = static_cast<double>(bytes);
    if (bytes >= int64_t{1} << 40) return fmt::format("{:.0f} TiB", b / static_cast<double>(int64_t{1} << 40));
    if (bytes >= int64_t{1} << 30) return fmt::format("{:.1f} GiB", b / (1 << 30));
    return fmt::format("{:.1f} MiB", b / (1 << 20));
}

void checkPlannable(const Graph& g, int value, const std::string& what) {
    const auto& v = g.values[value];
    for (int64_t d : v.shape)
        if (d < 0)
            fail(ErrorCode::ShapeError, "{}: tensor '{}' has a negative dimension ({})", what, v.name,
                 shapeToString(v.shape));
    if (boundedBytes(v.dtype, v.shape) < 0)
        fail(ErrorCode::Unsupported, "{}: tensor '{}' of shape {} ({}) is larger than the {} vkinfer plans for one tensor",
             what, v.name, shapeToString(v.shape), dataTypeName(v.dtype), sizeText(kMaxTensorBytes));
}

int64_t foldBudget(const Graph& g) {
    int64_t weights = 0;
    for (const auto& v : g.values)
        if (v.constant) weights += static_cast<int64_t>(v.constant->byteSize());
    return std::max(minFoldBudget, kFoldBudgetPerWeightByte * weights);
}

void evaluateOnCpu(Graph& g, Node& n, const ops::OpDef& def) {
    std::vector<const Tensor*> inputs;
    for (int in : n.inputs) inputs.push_back(in >= 0 ? &*g.values[in].constant : nullptr);
    std::vector<Tensor> outputs;
    for (int o : n.outputs)
        outputs.push_back(o >= 0 ? allocateTensor(g.values[o].dtype, g.values[o].shape,
                                                  n.describe() + ": folded output '" + g.values[o].name + "'")
                                 : Tensor(DataType::Float32, {}));
    def.evaluate(n, inputs, outputs);
    for (size_t i = 0; i < n.outputs.size(); ++i)
        if (n.outputs[i] >= 0) g.values[n.outputs[i]].constant = std::move(outputs[i]);
    n.removed = true;
}

// Operand slots whose values (not only shapes) shape inference or lowering reads as
// constants: a graph input reaching one of them must be bound by value (see valueInputs).
bool isValueSlot(const std::string& op, size_t slot) {
    static const std::vector<std::pair<std::string_view, std::vector<size_t>>> slots = {
        {"Reshape", {1}},     {"Slice", {1, 2, 3, 4}}, {"Split", {1}},     {"Squeeze", {1}},
        {"Unsqueeze", {1}},   {"Pad", {1, 2, 3}},      {"Tile", {1}},      {"Expand", {1}},
        {"ConstantOfShape", {0}}, {"Range", {0, 1, 2}}, {"Resize", {1, 2, 3}}, {"Upsample", {1}},
        {"Dropout", {1, 2}},  {"Clip", {1, 2}},        {"TopK", {1}},      {"OneHot", {1}},
        {"ReduceSum", {1}},   {"ReduceMean", {1}},     {"ReduceMax", {1}}, {"ReduceMin", {1}},
        {"ReduceProd", {1}},  {"ReduceL1", {1}},       {"ReduceL2", {1}},  {"ReduceLogSum", {1}},
        {"ReduceLogSumExp", {1}}, {"ReduceSumSquare", {1}}, {"Trilu", {1}}, {"CumSum", {1}},
    };
    for (const auto& [name, list] : slots)
        if (name == op) return std::find(list.begin(), list.end(), slot) != list.end();
    return false;
}

// Bounded: a plan's folding, within the budget below (what exceeds it runs on the GPU).
// Everything: the CPU reference's, which evaluates every node whatever it costs.
enum class Folding { Bounded, Everything };

Graph specializeOwned(Graph g, const InputShapes& shapes, Folding folding = Folding::Bounded);

}  // namespace

// Graph inputs whose values, not only their shapes, the plan depends on: they reach a value
// slot through nodes other than Shape/Size. A session keys its plans by their values too
// and binds them with the specialize() overload below (node tests pass Reshape targets,
// Slice starts, Pad pads, Resize scales as graph inputs).
std::vector<int> valueInputs(const Graph& g) {
    // Producers from the live nodes (without copying the graph and its weights).
    std::vector<int> producer(g.values.size(), -1);
    for (size_t i = 0; i < g.nodes.size(); ++i)
        if (!g.nodes[i].removed)
            for (int o : g.nodes[i].outputs)
                if (o >= 0) producer[o] = static_cast<int>(i);
    std::vector<char> seen(g.values.size(), 0);
    std::vector<int> work;
    for (const auto& n : g.nodes) {
        if (n.removed) continue;
        for (size_t i = 0; i < n.inputs.size(); ++i)
            if (n.inputs[i] >= 0 && isValueSlot(n.opType, i)) work.push_back(n.inputs[i]);
    }
    // Walk back through producers; Shape and Size read only their input's shape.
    std::vector<int> found;
    while (!work.empty()) {
        int v = work.back();
        work.pop_back();
        if (seen[v]++ || g.values[v].constant) continue;
        if (g.isGraphInput(v)) found.push_back(v);
        int p = producer[v];
        if (p < 0 || g.nodes[p].opType == "Shape" || g.nodes[p].opType == "Size") continue;
        for (int in : g.nodes[p].inputs)
            if (in >= 0) work.push_back(in);
    }
    std::sort(found.begin(), found.end());
    return found;
}

Graph specialize(const Graph& model, const InputShapes& shapes, const std::vector<NamedTensor>& values) {
    Graph g = model;
    for (const auto& t : values) {
        auto it = std::find_if(g.inputs.begin(), g.inputs.end(),
                               [&](const graph::InputDecl& d) { return g.values[d.value].name == t.name; });
        if (it == g.inputs.end()) fail(ErrorCode::InvalidArgument, "{}: no input named '{}'", g.label, t.name);
        auto& v = g.values[it->value];
        if (t.tensor.dtype() != v.dtype)
            fail(ErrorCode::InvalidArgument, "input '{}' must be {} but {} tensor was given", t.name,
                 dataTypeName(v.dtype), withArticle(dataTypeName(t.tensor.dtype())));
        v.constant = t.tensor;
    }
    return specializeOwned(std::move(g), shapes);
}

Graph specialize(const Graph& model, const InputShapes& shapes) { return specializeOwned(model, shapes); }

Graph specializeForReference(const Graph& model, const InputShapes& shapes) {
    return specializeOwned(model, shapes, Folding::Everything);
}

void setMinFoldBudgetForTesting(int64_t bytes) { minFoldBudget = bytes > 0 ? bytes : kDefaultMinFoldBudget; }

namespace {

Graph specializeOwned(Graph g, const InputShapes& shapes, Folding folding) {
    for (auto& decl : g.inputs) {
        auto& v = g.values[decl.value];
        auto it = std::find_if(shapes.begin(), shapes.end(), [&](const auto& s) { return s.first == v.name; });
        if (it == shapes.end())
            fail(ErrorCode::InvalidArgument, "{}: no shape given for input '{}'", g.label, v.name);
        v.shape = it->second;
        v.hasShape = true;
        checkPlannable(g, decl.value, "input '" + v.name + "'");
    }
    removeDeadNodes(g);
    sortTopologically(g);
    const bool bounded = folding == Folding::Bounded;
    const int64_t budget = bounded ? foldBudget(g) : std::numeric_limits<int64_t>::max();
    int64_t folded = 0, foldedWork = 0;
    for (auto& n : g.nodes) {
        const ops::OpDef* def = ops::findOp(n.opType, g.opset);
        if (!def) ops::checkSupported(g);  // throws with the message naming this node
        for (int in : n.inputs)
            if (in >= 0 && !g.values[in].hasShape)
                fail(ErrorCode::Internal, "{}: input '{}' has no shape", n.describe(), g.values[in].name);
        def->infer(g, n);
        int64_t outputBytes = 0;
        for (int o : n.outputs) {
            if (o < 0) continue;
            g.values[o].hasShape = true;
            checkPlannable(g, o, n.describe());
            outputBytes += boundedBytes(g.values[o].dtype, g.values[o].shape);
        }
        bool allConstant = std::all_of(n.inputs.begin(), n.inputs.end(),
                                       [&](int in) { return in < 0 || g.values[in].constant.has_value(); });
        bool outputsKnown = std::all_of(n.outputs.begin(), n.outputs.end(),
                                        [&](int o) { return o < 0 || g.values[o].constant.has_value(); });
        if (outputsKnown) {
            n.removed = true;  // infer computed the outputs (Shape, Size)
            continue;
        }
        // (Unbounded, the work is not counted: its sum could pass int64's range.)
        const int64_t work = bounded && allConstant && def->foldWork ? def->foldWork(g, n) : 0;
        const bool workFits = work <= kMaxFoldWork - foldedWork;
        if (allConstant && def->evaluate && outputBytes <= budget - folded && workFits) {
            evaluateOnCpu(g, n, *def);
            folded += outputBytes;
            foldedWork += work;
        } else if (allConstant && def->evaluate && !def->lower && !workFits) {
            fail(ErrorCode::Unsupported,
                 "{}: evaluating it while planning would take {} multiply-adds, past the {} that vkinfer spends folding "
                 "constants on the CPU, and {} has no GPU kernel",
                 n.describe(), work, kMaxFoldWork - foldedWork, n.opType);
        } else if (allConstant && def->evaluate && !def->lower) {
            fail(ErrorCode::Unsupported,
                 "{}: evaluating it while planning would create {} of constants, past the {} that vkinfer folds on the "
                 "CPU for this model (the larger of {} and {}x its weights), and {} has no GPU kernel",
                 n.describe(), sizeText(outputBytes), sizeText(budget), sizeText(minFoldBudget),
                 kFoldBudgetPerWeightByte, n.opType);
        }
    }
    removeDeadNodes(g);
    return g;
}

}  // namespace

}  // namespace vkinfer::passes
