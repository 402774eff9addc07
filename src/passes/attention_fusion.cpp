#include "passes/attention_fusion.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "core/error.h"
#include "ops/attention.h"
#include "ops/broadcast.h"
#include "ops/element_order.h"
#include "ops/strided_view.h"
#include "passes/graph_edit.h"
#include "passes/specialize.h"

namespace vkinfer::passes {

using graph::Graph;
using graph::Node;
using graph::Shape;
using graph::StridedView;
using ops::AttentionLayout;
using Strides = std::vector<int64_t>;

namespace {

// A MatMul's operand `side` as the GEMM reads it: its folded window, or the input as it is.
StridedView operandOf(const Graph& g, const Node& mm, int side) {
    if (!mm.inputView(side).empty()) return mm.inputView(side);
    return ops::contiguousView(g.values[mm.inputs[side]].shape);
}

Shape batchOf(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

// NumPy broadcast of two batch shapes, or none.
std::optional<Shape> broadcast(const Shape& a, const Shape& b) {
    Shape r(std::max(a.size(), b.size()), 1);
    for (size_t i = 0; i < r.size(); ++i) {
        const int64_t x = i < r.size() - a.size() ? 1 : a[i - (r.size() - a.size())];
        const int64_t y = i < r.size() - b.size() ? 1 : b[i - (r.size() - b.size())];
        if (x != y && x != 1 && y != 1) return std::nullopt;
        r[i] = std::max(x, y);
    }
    return r;
}

// The strides of a tensor of `shape` (strides `stride`, the same rank) broadcast right-aligned
// to `to`: 0 along the dims it broadcasts over; none where it does not broadcast.
std::optional<Strides> broadcastStrides(const Shape& shape, const Strides& stride, const Shape& to) {
    if (shape.size() > to.size()) return std::nullopt;
    Strides r(to.size(), 0);
    const size_t lead = to.size() - shape.size();
    for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i] == to[lead + i]) r[lead + i] = shape[i] == 1 ? 0 : stride[i];
        else if (shape[i] != 1) return std::nullopt;
    }
    return r;
}

// The coarsest index space that refines every shape (all of the same element count): the
// union of their split points, counted from the innermost dim; none where two shapes split
// incompatibly ([4, 3] and [3, 4]).
std::optional<Shape> commonRefinement(const std::vector<Shape>& shapes) {
    std::set<int64_t> cuts;
    int64_t total = -1;
    for (const auto& s : shapes) {
        int64_t p = 1;
        for (auto d = s.rbegin(); d != s.rend(); ++d) cuts.insert(p *= *d);
        if (total >= 0 && p != total) return std::nullopt;
        total = p;
    }
    if (total <= 0) return std::nullopt;
    Shape inner;
    int64_t previous = 1;
    for (int64_t c : cuts) {
        if (c % previous != 0) return std::nullopt;
        if (c != previous) inner.push_back(c / previous);
        previous = c;
    }
    std::reverse(inner.begin(), inner.end());
    return inner;
}

// Strides over `from` re-expressed over `common`, a refinement of it: each dim of `from`
// covered by consecutive dims of `common`, which take strides inside it.
std::optional<Strides> refine(const Shape& from, const Strides& stride, const Shape& common) {
    Strides r(common.size(), 0);
    int64_t t = static_cast<int64_t>(common.size()) - 1;
    for (int64_t d = static_cast<int64_t>(from.size()) - 1; d >= 0; --d) {
        int64_t covered = 1;
        while (t >= 0 && covered < from[d]) {
            r[t] = stride[d] * covered;
            covered *= common[t--];
        }
        if (covered != from[d]) return std::nullopt;
    }
    for (; t >= 0; --t)
        if (common[t] != 1) return std::nullopt;
    return r;
}

// The factor a scalar Mul or Div applies to `x` (Mul(x, c), Mul(c, x), Div(x, c)), or none.
std::optional<float> scalarFactor(const Graph& g, const Node& n, int x) {
    if (n.inputs.size() != 2 || n.activation.kind != graph::ActKind::None) return std::nullopt;
    const int other = n.inputs[0] == x ? n.inputs[1] : n.inputs[0];
    if (other == x || (n.opType == "Div" && n.inputs[0] != x)) return std::nullopt;
    const auto& c = g.values[other].constant;
    if (!c || c->dtype() != DataType::Float32 || c->elementCount() != 1) return std::nullopt;
    const double f = c->getDouble(0);
    if (!std::isfinite(f) || (n.opType == "Div" && f == 0)) return std::nullopt;
    return static_cast<float>(n.opType == "Div" ? 1.0 / f : f);
}

// One added score tensor: its value, and the shape of the scores it is added to.
struct Bias {
    int value;
    Shape space;
};

struct Match {
    std::vector<int> nodes;  // retired: the first MatMul, the chain, the Softmax, the second MatMul
    Node fused;
};

bool isFloat32(const Graph& g, int v) { return v >= 0 && g.values[v].hasShape && g.values[v].dtype == DataType::Float32; }

// `value` is read by `reader` alone (once), and is no graph output.
bool onlyFeeds(const Graph& g, const graph::Readers& readers, int value, int reader) {
    if (value < 0 || g.isGraphOutput(value) || readers.of(value) != std::vector<int>{reader}) return false;
    return std::count(g.nodes[reader].inputs.begin(), g.nodes[reader].inputs.end(), value) == 1;
}

std::optional<Match> matchAt(const Graph& g, const graph::Readers& readers, int softmax) {
    const Node& sm = g.nodes[softmax];
    if (!sm.domain.empty() || sm.inputs.size() != 1 || sm.outputs.size() != 1 || sm.activation.kind != graph::ActKind::None)
        return std::nullopt;
    const int probs = sm.outputs[0];
    if (!isFloat32(g, probs) || !isFloat32(g, sm.inputs[0])) return std::nullopt;
    const Shape scores = g.values[probs].shape;
    const int64_t rank = static_cast<int64_t>(scores.size());
    if (rank < 2 || elementCount(scores) == 0) return std::nullopt;
    int64_t axis = sm.attrInt("axis", g.opset < 13 ? 1 : -1);
    if (axis < 0) axis += rank;
    if (axis != rank - 1) return std::nullopt;
    const int64_t S = scores[rank - 2], L = scores[rank - 1];

    // The second MatMul: probabilities x V, read as they are.
    const auto users = readers.of(probs);
    if (users.size() != 1 || g.isGraphOutput(probs)) return std::nullopt;
    const Node& mm2 = g.nodes[users[0]];
    if (mm2.opType != "MatMul" || mm2.inputs.size() < 2 || mm2.inputs[0] != probs || mm2.inputs[1] == probs ||
        mm2.input(2) >= 0 || mm2.input(3) >= 0 || !mm2.inputView(0).empty() ||
        mm2.activation.kind != graph::ActKind::None || mm2.matMulScale != 1.0f || !isFloat32(g, mm2.inputs[1]))
        return std::nullopt;

    // Back from the Softmax to the first MatMul.
    Match m;
    std::vector<Bias> biases;
    float scale = 1.0f;
    bool scaled = false;
    int value = sm.inputs[0], reader = softmax;
    const Node* mm1 = nullptr;
    for (;;) {
        if (!onlyFeeds(g, readers, value, reader) || !isFloat32(g, value)) return std::nullopt;
        const int p = g.values[value].producer;
        if (p < 0 || g.nodes[p].removed) return std::nullopt;
        const Node& n = g.nodes[p];
        const Shape& out = g.values[value].shape;
        if (out.size() < 2 || out[out.size() - 2] != S || out.back() != L || n.outputs.size() != 1) return std::nullopt;
        if (n.activation.kind != graph::ActKind::None || !n.domain.empty()) return std::nullopt;
        m.nodes.push_back(p);
        if (n.opType == "MatMul") {
            mm1 = &n;
            break;
        }
        int next = -1;
        if (ops::keepsElementOrder(g, n)) {
            next = n.inputs[0];
        } else if (n.opType == "Mul" || n.opType == "Div") {
            const auto f = n.inputs.size() == 2 ? scalarFactor(g, n, n.inputs[0]) : std::nullopt;
            const auto f1 = n.inputs.size() == 2 && n.opType == "Mul" ? scalarFactor(g, n, n.inputs[1]) : std::nullopt;
            if (f) next = n.inputs[0], scale *= *f;
            else if (f1) next = n.inputs[1], scale *= *f1;
            else return std::nullopt;
            scaled = true;
        } else if (n.opType == "Add" && n.inputs.size() == 2 && !scaled) {
            // The scores: the operand of the output's shape that a MatMul writes, else the first such.
            int side = -1;
            for (int s = 0; s < 2; ++s) {
                const int v = n.inputs[s];
                if (!isFloat32(g, v) || g.values[v].shape != out || g.values[v].constant) continue;
                const int q = g.values[v].producer;
                if (side < 0 || (q >= 0 && g.nodes[q].opType == "MatMul")) side = s;
            }
            if (side < 0) return std::nullopt;
            const int bias = n.inputs[1 - side];
            if (!isFloat32(g, bias) || bias == n.inputs[side]) return std::nullopt;
            biases.push_back({bias, out});
            next = n.inputs[side];
        } else {
            return std::nullopt;
        }
        const Shape& in = g.values[next].shape;
        if (next < 0 || in.size() < 2 || in[in.size() - 2] != S || in.back() != L || elementCount(in) != elementCount(out))
            return std::nullopt;
        value = next;
        reader = p;
    }
    if (mm1->inputs.size() < 2 || mm1->input(2) >= 0 || !mm1->outputPerm.empty()) return std::nullopt;
    if (!isFloat32(g, mm1->inputs[0]) || !isFloat32(g, mm1->inputs[1])) return std::nullopt;
    if (mm1->input(3) >= 0) {  // a residual: added after the GEMM's alpha, before any scale node
        if (scaled || !isFloat32(g, mm1->inputs[3])) return std::nullopt;
        biases.push_back({mm1->inputs[3], g.values[mm1->outputs[0]].shape});
    }
    if (biases.size() > ops::kAttentionMaxBiases) return std::nullopt;
    scale *= mm1->matMulScale;

    const StridedView q = operandOf(g, *mm1, 0), kt = operandOf(g, *mm1, 1), v = operandOf(g, mm2, 1);
    if (q.shape.size() < 2 || kt.shape.size() < 2 || v.shape.size() < 2) return std::nullopt;
    const int64_t D = q.shape.back(), DV = v.shape.back();
    if (q.shape[q.shape.size() - 2] != S || kt.shape[kt.shape.size() - 2] != D || kt.shape.back() != L ||
        v.shape[v.shape.size() - 2] != L)
        return std::nullopt;
    if (D > ops::kAttentionMaxHeadDim || DV > ops::kAttentionMaxHeadDim) return std::nullopt;

    const Shape scoreBatch = batchOf(scores);
    const auto productBatch = broadcast(batchOf(q.shape), batchOf(kt.shape));
    if (!productBatch || broadcast(scoreBatch, batchOf(v.shape)) != scoreBatch) return std::nullopt;
    // The output: the product [batch..., S, DV], stored through the second MatMul's permutation.
    Shape product = scoreBatch;
    product.push_back(S);
    product.push_back(DV);
    Strides yStride = ops::contiguousStrides(product);
    if (!mm2.outputPerm.empty()) {
        const auto& perm = mm2.outputPerm;
        if (perm.size() != product.size() || perm.back() != static_cast<int64_t>(product.size()) - 1) return std::nullopt;
        Shape stored;
        for (int64_t d : perm) stored.push_back(product.at(static_cast<size_t>(d)));
        const auto storedStride = ops::contiguousStrides(stored);
        for (size_t j = 0; j < perm.size(); ++j) yStride[perm[j]] = storedStride[j];
    }
    if (elementCount(g.values[mm2.outputs[0]].shape) != elementCount(product)) return std::nullopt;

    // One batch index space for all of them.
    std::vector<Shape> spaces{*productBatch, scoreBatch};
    for (const auto& b : biases) spaces.push_back(batchOf(b.space));
    const auto common = commonRefinement(spaces);
    if (!common) return std::nullopt;
    AttentionLayout l;
    l.S = S, l.L = L, l.D = D, l.DV = DV;
    std::vector<Strides> batch(6, Strides(common->size(), 0));
    auto place = [&](AttentionLayout::Tensor t, const Shape& shape, const Strides& stride, const Shape& space) {
        auto b = broadcastStrides(batchOf(shape), batchOf(stride), space);
        auto r = b ? refine(space, *b, *common) : std::nullopt;
        if (r) batch[t] = *r;
        return r.has_value();
    };
    if (!place(AttentionLayout::Q, q.shape, q.stride, *productBatch) ||
        !place(AttentionLayout::K, kt.shape, kt.stride, *productBatch) ||
        !place(AttentionLayout::V, v.shape, v.stride, scoreBatch) || !place(AttentionLayout::Y, product, yStride, scoreBatch))
        return std::nullopt;
    l.tensor[AttentionLayout::Q] = {q.offset, {}, q.stride[q.stride.size() - 2], q.stride.back()};
    l.tensor[AttentionLayout::K] = {kt.offset, {}, kt.stride.back(), kt.stride[kt.stride.size() - 2]};
    l.tensor[AttentionLayout::V] = {v.offset, {}, v.stride[v.stride.size() - 2], v.stride.back()};
    l.tensor[AttentionLayout::Y] = {0, {}, yStride[yStride.size() - 2], yStride.back()};
    for (size_t j = 0; j < biases.size(); ++j) {
        const auto t = j == 0 ? AttentionLayout::A : AttentionLayout::C;
        const Shape& shape = g.values[biases[j].value].shape;
        const auto full = broadcastStrides(shape, ops::contiguousStrides(shape), biases[j].space);
        if (!full || !place(t, biases[j].space, *full, batchOf(biases[j].space))) return std::nullopt;
        l.tensor[t] = {0, {}, (*full)[full->size() - 2], full->back()};
    }
    Shape dims = *common;
    std::vector<Strides*> all;
    for (auto& b : batch) all.push_back(&b);
    ops::collapseDims(dims, all);
    if (dims.size() > ops::kAttentionMaxBatchDims) return std::nullopt;
    const size_t lead = ops::kAttentionMaxBatchDims - dims.size();
    for (size_t d = 0; d < dims.size(); ++d) {
        l.batchDims[lead + d] = dims[d];
        for (size_t t = 0; t < 6; ++t) l.tensor[t].batch[lead + d] = batch[t][d];
    }

    Node& a = m.fused;
    a.name = mm2.name;
    a.opType = ops::kAttentionOpType;
    a.inputs = {mm1->inputs[0], mm1->inputs[1], mm2.inputs[1]};
    for (const auto& b : biases) a.inputs.push_back(b.value);
    a.outputs = {mm2.outputs[0]};
    a.attrs["layout"] = l.encode();
    a.attrs["scale"] = scale;
    a.attrs["output_shape"] = std::vector<int64_t>(g.values[mm2.outputs[0]].shape);
    m.nodes.push_back(softmax);
    m.nodes.push_back(users[0]);
    for (int k : m.nodes) {
        const Node& n = g.nodes[k];
        if (k != users[0]) a.fusedNames.push_back(n.name);
        a.fusedNames.insert(a.fusedNames.end(), n.fusedNames.begin(), n.fusedNames.end());
    }
    // The kernel's own limits (uint32 offsets, launch grid), checked as the lowering will.
    try {
        std::vector<Shape> shapes;
        for (int in : a.inputs) shapes.push_back(g.values[in].shape);
        ops::attentionLayoutOf(a, shapes, g.values[mm2.outputs[0]].shape);
    } catch (const Error&) {
        return std::nullopt;
    }
    if (l.batches() > 65535 || (S + 15) / 16 > 65535) return std::nullopt;
    return m;
}

}  // namespace

void fuseAttention(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    bool changed = false;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        if (g.nodes[i].removed || g.nodes[i].opType != "Softmax") continue;
        auto m = matchAt(g, readers, static_cast<int>(i));
        if (!m) continue;
        for (int k : m->nodes) retire(g, g.nodes[k]);
        const int id = appendFused(g, std::move(m->fused));
        for (int in : g.nodes[id].inputs) readers.add(in, id);
        changed = true;
    }
    if (changed) {
        removeDeadNodes(g);
        sortTopologically(g);
    }
}

}  // namespace vkinfer::passes
