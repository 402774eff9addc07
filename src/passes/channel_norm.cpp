#include "passes/channel_norm.h"

#include <optional>
#include <vector>

#include "ops/normalization.h"
#include "ops/strided_view.h"
#include "passes/graph_edit.h"
#include "passes/specialize.h"

namespace vkinfer::passes {

using graph::Graph;
using graph::Node;
using graph::Shape;
using graph::StridedView;

namespace {

// The same elements in the same order: offsets, and shapes and strides apart from size-1 dims.
bool sameView(const StridedView& a, const StridedView& b) {
    auto significant = [](const StridedView& v) {
        std::vector<std::pair<int64_t, int64_t>> dims;
        for (size_t i = 0; i < v.shape.size(); ++i)
            if (v.shape[i] != 1) dims.emplace_back(v.shape[i], v.stride[i]);
        return dims;
    };
    return a.offset == b.offset && significant(a) == significant(b);
}

// Tensor `x` [N, C, S...] with its channel axis moved last, [N, S..., C], as a view of x.
StridedView channelsLast(const Shape& x) {
    const std::vector<int64_t> st = ops::contiguousView(x).stride;
    StridedView v;
    v.shape.push_back(x[0]);
    v.stride.push_back(st[0]);
    for (size_t d = 2; d < x.size(); ++d) {
        v.shape.push_back(x[d]);
        v.stride.push_back(st[d]);
    }
    v.shape.push_back(x[1]);
    v.stride.push_back(st[1]);
    return v;
}

// The inverse, as a view of the normalized tensor (of shape `normalized`, contiguous): element
// [n, c, s...] of the result is where channelsLast put it.
std::optional<StridedView> channelsBack(const Shape& x, const Shape& normalized) {
    Shape last{x[0]};
    for (size_t d = 2; d < x.size(); ++d) last.push_back(x[d]);
    last.push_back(x[1]);
    const std::optional<StridedView> q = ops::reshapeView(ops::contiguousView(normalized), last);
    if (!q) return std::nullopt;
    StridedView v{q->offset, {x[0], x[1]}, {q->stride[0], q->stride.back()}};
    for (size_t d = 1; d + 1 < q->shape.size(); ++d) {
        v.shape.push_back(q->shape[d]);
        v.stride.push_back(q->stride[d]);
    }
    return v;
}

bool isConstantOf(const Graph& g, int v, int64_t elements) {
    return v >= 0 && g.values[v].constant && g.values[v].constant->elementCount() == elements;
}

}  // namespace

void fuseChannelLayerNorm(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    bool changed = false;
    const size_t count = g.nodes.size();
    for (size_t i = 0; i < count; ++i) {
        Node& ln = g.nodes[i];
        if (ln.removed || ln.opType != "LayerNormalization" || ln.activation.kind != graph::ActKind::None ||
            hasExtraOutputs(ln) || ln.inputs.empty() || ln.attrInt("stash_type", 1) != 1)
            continue;
        const Shape normalized = g.values[ln.inputs[0]].shape;
        const auto rank = static_cast<int64_t>(normalized.size());
        int64_t axis = ln.attrInt("axis", -1);
        if (axis < 0) axis += rank;
        if (rank < 2 || axis != rank - 1) continue;
        const int64_t C = normalized.back();
        if (!isConstantOf(g, ln.input(1), C) || (ln.input(2) >= 0 && !isConstantOf(g, ln.input(2), C))) continue;

        // In front: the longest chain whose source is [N, C, S...] and which moves C last.
        const std::vector<Node*> chain = selectionChain(g, readers, ln.inputs[0], static_cast<int>(i));
        int x = -1;
        size_t inFront = 0;
        for (size_t len = chain.size(); len >= 1 && x < 0; --len) {
            const int source = chain[len - 1]->inputs[0];
            const Shape& xs = g.values[source].shape;
            if (xs.size() < 3 || xs[1] != C) continue;
            const std::optional<StridedView> v = chainView(g, chain, len);
            const std::optional<StridedView> want = ops::reshapeView(channelsLast(xs), normalized);
            if (v && want && sameView(*v, *want)) x = source, inFront = len;
        }
        if (x < 0) continue;
        const Shape xs = g.values[x].shape;
        const std::optional<StridedView> back = channelsBack(xs, normalized);
        if (!back) continue;

        // After it: nodes read only by the next, until the value that is x's layout again.
        std::vector<Node*> after;
        int y = -1;
        StridedView view = ops::contiguousView(normalized);
        for (int v = ln.outputs[0]; after.size() < 4 && !g.isGraphOutput(v);) {
            const std::vector<int> rs = readers.of(v);
            if (rs.size() != 1) break;
            Node& next = g.nodes[static_cast<size_t>(rs[0])];
            if (next.inputs.empty() || next.inputs[0] != v || hasExtraOutputs(next)) break;
            const std::optional<StridedView> through = ops::viewThrough(g, next, view);
            if (!through) break;
            after.push_back(&next);
            view = *through;
            v = next.outputs[0];
            if (g.values[v].shape == xs && sameView(view, *back)) {
                y = v;
                break;
            }
        }
        if (y < 0) continue;

        Node norm;
        norm.name = ln.name;
        norm.opType = ops::kChannelNormOpType;
        norm.inputs = {x, ln.input(1)};
        if (ln.input(2) >= 0) norm.inputs.push_back(ln.input(2));
        norm.attrs["epsilon"] = ln.attrFloat("epsilon", 1e-5f);
        norm.outputs = {y};
        for (size_t k = 0; k < inFront; ++k) foldInto(g, ln, *chain[k]);
        for (Node* n : after) foldInto(g, ln, *n);
        norm.fusedNames = ln.fusedNames;
        retire(g, ln);
        appendFused(g, std::move(norm));  // (ln and the chains' pointers are not used past here)
        changed = true;
    }
    if (changed) {
        removeDeadNodes(g);
        sortTopologically(g);
    }
}

}  // namespace vkinfer::passes
