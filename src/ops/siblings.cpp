#include "ops/siblings.h"

#include <algorithm>
#include <vector>

namespace vkinfer::ops {

namespace {

// Whether value `v` depends on node `target` (or is its output): a walk up the producers,
// with a stack of its own (graphs can be deeper than the call stack).
bool dependsOn(const graph::Graph& g, int v, int target, std::vector<char>& seen) {
    std::vector<int> todo{v};
    while (!todo.empty()) {
        int u = todo.back();
        todo.pop_back();
        if (u < 0 || seen[u]) continue;
        seen[u] = 1;
        int p = g.values[u].producer;
        if (p < 0) continue;
        if (p == target) return true;
        for (int in : g.nodes[p].inputs) todo.push_back(in);
    }
    return false;
}

bool ordered(const graph::Graph& g, int value, int node) {
    std::vector<char> seen(g.values.size(), 0);
    if (dependsOn(g, value, node, seen)) return true;  // a descendant of the node
    int p = g.values[value].producer;
    if (p < 0) return true;  // a graph input or constant: no dispatch to run beside
    for (int in : g.nodes[node].inputs) {  // an ancestor of the node
        std::fill(seen.begin(), seen.end(), 0);
        if (dependsOn(g, in, p, seen)) return true;
    }
    return false;
}

}  // namespace

int64_t parallelSiblings(const LowerContext& ctx, const graph::Node& n, int input) {
    return parallelSiblings(ctx, n, input, ctx.node());
}

int64_t parallelSiblings(const LowerContext& ctx, const graph::Node& n, int input, int nodeIndex) {
    const graph::Graph& g = ctx.graph();
    const auto readers = ctx.readers().of(input);
    const int64_t branches =
        std::count_if(readers.begin(), readers.end(), [&](int c) { return g.nodes[c].opType != "Concat"; });
    int64_t slices = 1;
    const int host = ctx.storedIn(n.outputs[0]);
    if (host >= 0 && g.values[host].producer >= 0)
        for (int sibling : g.nodes[g.values[host].producer].inputs)
            slices += sibling != n.outputs[0] && !ordered(g, sibling, nodeIndex);
    if (branches < 3 && slices == 1) return 1;
    return std::max(branches, slices);
}

bool hasParallelSiblings(const LowerContext& ctx, const graph::Node& n, int input) {
    return parallelSiblings(ctx, n, input) > 1;
}

}  // namespace vkinfer::ops
