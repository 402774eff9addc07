#include "passes/specialize.h"

#include <algorithm>

#include "core/error.h"
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

void evaluateOnCpu(Graph& g, Node& n, const ops::OpDef& def) {
    std::vector<const Tensor*> inputs;
    for (int in : n.inputs) inputs.push_back(in >= 0 ? &*g.values[in].constant : nullptr);
    std::vector<Tensor> outputs;
    for (int o : n.outputs) outputs.emplace_back(o >= 0 ? g.values[o].dtype : DataType::Float32,
                                                 o >= 0 ? g.values[o].shape : graph::Shape{});
    def.evaluate(n, inputs, outputs);
    for (size_t i = 0; i < n.outputs.size(); ++i)
        if (n.outputs[i] >= 0) g.values[n.outputs[i]].constant = std::move(outputs[i]);
    n.removed = true;
}

}  // namespace

Graph specialize(const Graph& model, const InputShapes& shapes) {
    Graph g = model;
    for (auto& decl : g.inputs) {
        auto& v = g.values[decl.value];
        auto it = std::find_if(shapes.begin(), shapes.end(), [&](const auto& s) { return s.first == v.name; });
        if (it == shapes.end())
            fail(ErrorCode::InvalidArgument, "{}: no shape given for input '{}'", g.label, v.name);
        v.shape = it->second;
        v.hasShape = true;
    }
    removeDeadNodes(g);
    sortTopologically(g);
    for (auto& n : g.nodes) {
        const ops::OpDef* def = ops::findOp(n.opType, g.opset);
        if (!def) ops::checkSupported(g);  // throws with the message naming this node
        for (int in : n.inputs)
            if (in >= 0 && !g.values[in].hasShape)
                fail(ErrorCode::Internal, "{}: input '{}' has no shape", n.describe(), g.values[in].name);
        def->infer(g, n);
        for (int o : n.outputs)
            if (o >= 0) g.values[o].hasShape = true;
        bool allConstant = std::all_of(n.inputs.begin(), n.inputs.end(),
                                       [&](int in) { return in < 0 || g.values[in].constant.has_value(); });
        bool outputsKnown = std::all_of(n.outputs.begin(), n.outputs.end(),
                                        [&](int o) { return o < 0 || g.values[o].constant.has_value(); });
        if (outputsKnown) {
            n.removed = true;  // infer computed the outputs (Shape, Size)
        } else if (allConstant && def->evaluate) {
            evaluateOnCpu(g, n, *def);
        }
    }
    removeDeadNodes(g);
    return g;
}

}  // namespace vkinfer::passes
