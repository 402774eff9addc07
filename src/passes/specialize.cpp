#include "passes/specialize.h"

#include <algorithm>
#include <queue>

#include "core/error.h"
#include "ops/registry.h"

namespace vkinfer::passes {

using graph::Graph;
using graph::Node;

void sortTopologically(Graph& g) {
    g.relinkProducers();
    const size_t n = g.nodes.size();
    std::vector<int> missing(n, 0);
    std::vector<std::vector<int>> users(n);
    for (size_t i = 0; i < n; ++i) {
        if (g.nodes[i].removed) continue;
        for (int in : g.nodes[i].inputs) {
            if (in < 0) continue;
            int p = g.values[in].producer;
            if (p >= 0 && !g.values[in].constant) {
                ++missing[i];
                users[p].push_back(static_cast<int>(i));
            }
        }
    }
    // Kahn's algorithm, smallest index first, so a valid order stays unchanged.
    std::priority_queue<int, std::vector<int>, std::greater<>> ready;
    for (size_t i = 0; i < n; ++i)
        if (!g.nodes[i].removed && missing[i] == 0) ready.push(static_cast<int>(i));
    std::vector<int> order;
    while (!ready.empty()) {
        int i = ready.top();
        ready.pop();
        order.push_back(i);
        for (int u : users[i])
            if (--missing[u] == 0) ready.push(u);
    }
    size_t live = std::count_if(g.nodes.begin(), g.nodes.end(), [](const Node& x) { return !x.removed; });
    if (order.size() != live) {
        for (size_t i = 0; i < n; ++i)
            if (!g.nodes[i].removed && missing[i] > 0)
                fail(ErrorCode::ParseError, "{}: the graph has a cycle through this node", g.nodes[i].describe());
    }
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
