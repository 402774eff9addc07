#include "passes/common_subexpressions.h"

#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "passes/specialize.h"

namespace vkinfer::passes {

using graph::AttrValue;
using graph::Graph;
using graph::Node;

namespace {

bool sameTensor(const Tensor& a, const Tensor& b) {
    return a.dtype() == b.dtype() && a.shape() == b.shape() && a.byteSize() == b.byteSize() &&
           std::memcmp(a.data(), b.data(), a.byteSize()) == 0;
}

bool sameAttribute(const AttrValue& a, const AttrValue& b) {
    if (a.index() != b.index()) return false;
    return std::visit(
        [&](const auto& x) {
            using T = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<T, Tensor>) return sameTensor(x, std::get<Tensor>(b));
            else return x == std::get<T>(b);
        },
        a);
}

// Ops whose result is not a function of their inputs alone.
bool mayDiffer(const Node& n) {
    for (const char* op : {"Random", "Bernoulli", "Multinomial", "Dropout"})
        if (n.opType.find(op) != std::string::npos) return true;
    return false;
}

// The node `n` repeats: same op, domain, inputs and attributes (the fields the fusions set
// are still at their defaults here).
bool repeats(const Node& n, const Node& earlier) {
    if (n.opType != earlier.opType || n.domain != earlier.domain || n.inputs != earlier.inputs ||
        n.outputs.size() != earlier.outputs.size() || n.attrs.size() != earlier.attrs.size())
        return false;
    for (auto a = n.attrs.begin(), b = earlier.attrs.begin(); a != n.attrs.end(); ++a, ++b)
        if (a->first != b->first || !sameAttribute(a->second, b->second)) return false;
    for (size_t k = 0; k < n.outputs.size(); ++k)
        if ((n.outputs[k] < 0) != (earlier.outputs[k] < 0)) return false;
    return true;
}

}  // namespace

int mergeCommonSubexpressions(Graph& g) {
    g.relinkProducers();
    std::vector<int> order;
    if (!g.topologicalOrder(&order)) return 0;  // a cycle is reported by the planner's own sort
    std::vector<int> replacement(g.values.size(), -1);
    auto resolved = [&](int v) { return v >= 0 && replacement[v] >= 0 ? replacement[v] : v; };
    // Candidates by op type and first input, in topological order.
    std::map<std::pair<std::string, int>, std::vector<int>> seen;
    int merged = 0;
    for (int i : order) {
        Node& n = g.nodes[i];
        for (int& in : n.inputs) in = resolved(in);
        if (mayDiffer(n) || n.outputs.empty()) continue;
        auto& candidates = seen[{n.opType, n.inputs.empty() ? -1 : n.inputs[0]}];
        const Node* earlier = nullptr;
        for (int c : candidates)
            if (repeats(n, g.nodes[c])) {
                earlier = &g.nodes[c];
                break;
            }
        bool observed = false;
        for (int o : n.outputs) observed |= o >= 0 && g.isGraphOutput(o);
        if (!earlier || observed) {
            candidates.push_back(i);
            continue;
        }
        for (size_t k = 0; k < n.outputs.size(); ++k)
            if (n.outputs[k] >= 0) replacement[n.outputs[k]] = earlier->outputs[k];
        n.removed = true;
        ++merged;
    }
    if (merged) removeDeadNodes(g);
    return merged;
}

}  // namespace vkinfer::passes
