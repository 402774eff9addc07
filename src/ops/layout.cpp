// Ops that move data without arithmetic: the views (Reshape, Flatten, Squeeze, Unsqueeze,
// Identity, Dropout), Transpose and DepthToSpace/SpaceToDepth (Concat: concat.cpp).
#include <algorithm>
#include <cstring>
#include <numeric>

#include "ops/broadcast.h"
#include "ops/cpu_copy.h"
#include "ops/element_order.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"
#include "ops/strided_view.h"

namespace vkinfer::ops {

namespace {

// ---- views ----

Shape reshapeTarget(const Node& n, const Shape& in, const std::vector<int64_t>& spec, bool allowZero) {
    Shape out(spec.size());
    int64_t known = 1, inferAt = -1;
    for (size_t i = 0; i < spec.size(); ++i) {
        int64_t d = spec[i];
        if (d == 0 && !allowZero) {
            if (i >= in.size()) shapeError(n, "0 in the target shape at {} but the input has rank {}", i, in.size());
            d = in[i];
        }
        if (d == -1) {
            if (inferAt >= 0) shapeError(n, "more than one -1 in the target shape");
            inferAt = static_cast<int64_t>(i);
            continue;
        }
        if (d < 0) shapeError(n, "invalid target dimension {}", d);
        out[i] = d;
        // (Target dims are data: their product can overflow where the input's cannot.)
        if (__builtin_mul_overflow(known, d, &known))
            shapeError(n, "cannot reshape {} to {}: the target has too many elements", shapeToString(in),
                       shapeToString(spec));
    }
    int64_t total = elementCount(in);
    if (inferAt >= 0) {
        if (known == 0 || total % known) shapeError(n, "cannot infer -1: {} elements into {}", total, shapeToString(spec));
        out[inferAt] = total / known;
    } else if (known != total) {
        shapeError(n, "cannot reshape {} ({} elements) to {}", shapeToString(in), total, shapeToString(out));
    }
    return out;
}

std::vector<int64_t> axesOf(const Graph& g, const Node& n) {
    if (n.input(1) >= 0) return tensorInts(constantInput(g, n, 1, "axes"));
    return n.attrInts("axes");
}

void inferView(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    const Shape& in = x.shape;
    Shape out;
    const std::string& op = n.opType;
    if (op == "Reshape") {
        std::vector<int64_t> spec = n.input(1) >= 0 ? tensorInts(constantInput(g, n, 1, "the target shape"))
                                                    : n.attrInts("shape");
        out = reshapeTarget(n, in, spec, n.attrInt("allowzero", 0) != 0);
    } else if (op == "Flatten") {
        int64_t r = static_cast<int64_t>(in.size());
        int64_t axis = n.attrInt("axis", 1);
        if (axis < 0) axis += r;
        if (axis < 0 || axis > r) shapeError(n, "axis {} out of range for rank {}", n.attrInt("axis", 1), r);
        int64_t outer = 1;
        for (int64_t i = 0; i < axis; ++i) outer *= in[i];
        out = {outer, outer ? elementCount(in) / outer : 0};
    } else if (op == "Squeeze") {
        auto axes = axesOf(g, n);
        int64_t r = static_cast<int64_t>(in.size());
        for (auto& a : axes) a = normalizeAxis(n, a, r);
        for (int64_t i = 0; i < r; ++i) {
            bool listed = std::find(axes.begin(), axes.end(), i) != axes.end();
            if (listed && in[i] != 1) shapeError(n, "cannot squeeze axis {} of extent {}", i, in[i]);
            if ((axes.empty() && in[i] == 1) || listed) continue;
            out.push_back(in[i]);
        }
    } else if (op == "Unsqueeze") {
        auto axes = axesOf(g, n);
        int64_t r = static_cast<int64_t>(in.size() + axes.size());
        for (auto& a : axes) a = normalizeAxis(n, a, r);
        std::sort(axes.begin(), axes.end());
        if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) shapeError(n, "repeated axis");
        size_t k = 0;
        for (int64_t i = 0; i < r; ++i) {
            if (std::binary_search(axes.begin(), axes.end(), i)) out.push_back(1);
            else out.push_back(in[k++]);
        }
    } else {  // Identity, Dropout
        out = in;
    }
    setOutput(g, n, 0, x.dtype, out);
}

void evalView(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    (void)n;
    out[0] = reshapeCopy(*in[0], out[0].shape());
}

// ---- Dropout: the identity at inference; its mask is all true ----

// Dropout that would drop (training_mode true with a non-zero ratio) is random: refused
// rather than computed as the identity. (Opset 12+ passes them as inputs 1 and 2; older
// opsets' is_test/ratio attributes only matter in training.)
void checkInference(const Graph* g, const Node& n, const Tensor* ratio, const Tensor* training) {
    if (g && n.input(2) >= 0) training = &constantInput(*g, n, 2, "training_mode");
    if (!training || training->elementCount() == 0 || training->getInt(0) == 0) return;
    if (g && n.input(1) >= 0) ratio = &constantInput(*g, n, 1, "ratio (with training_mode)");
    double r = ratio && ratio->elementCount() ? ratio->getDouble(0) : 0.5;
    if (r != 0.0) unsupported(n, "training-mode Dropout (random masks) is not supported");
}

Tensor allTrue(const Shape& s) {
    Tensor t(DataType::Bool, s);
    std::fill(t.as<uint8_t>(), t.as<uint8_t>() + t.elementCount(), uint8_t{1});
    return t;
}

void inferDropout(Graph& g, const Node& n) {
    checkInference(&g, n, nullptr, nullptr);
    const auto& x = inputValue(g, n, 0);
    setOutput(g, n, 0, x.dtype, x.shape);
    if (n.outputs.size() > 1 && n.outputs[1] >= 0) {
        setOutput(g, n, 1, DataType::Bool, x.shape);
        g.values[n.outputs[1]].constant = allTrue(x.shape);  // known now: no GPU work
    }
}

void evalDropout(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    checkInference(nullptr, n, optionalInput(in, 1), optionalInput(in, 2));
    out[0] = *in[0];
    if (out.size() > 1) out[1] = allTrue(in[0]->shape());
}

// ---- Transpose, DepthToSpace, SpaceToDepth: permutations ----

// The permutation (over a possibly reshaped input) that implements the node, and that shape.
struct PermutationPlan {
    Shape viewShape;  // input reshaped
    std::vector<int64_t> perm;
    Shape outShape;
};

// DepthToSpace of an N x C x H x W input (C divisible by b^2) in CRD or DCR order.
PermutationPlan depthToSpacePermutation(const Shape& in, int64_t b, bool crd) {
    const int64_t N = in[0], C = in[1], H = in[2], W = in[3], c = C / (b * b);
    PermutationPlan pp;
    if (crd) {
        pp.viewShape = {N, c, b, b, H, W};
        pp.perm = {0, 1, 4, 2, 5, 3};
    } else {
        pp.viewShape = {N, b, b, c, H, W};
        pp.perm = {0, 3, 4, 1, 5, 2};
    }
    pp.outShape = {N, c, H * b, W * b};
    return pp;
}

PermutationPlan permutationOf(const Node& n, const Shape& in) {
    PermutationPlan pp;
    const std::string& op = n.opType;
    if (op == "Transpose") {
        pp.viewShape = in;
        pp.perm = n.attrInts("perm");
        if (pp.perm.empty())
            for (size_t i = in.size(); i-- > 0;) pp.perm.push_back(static_cast<int64_t>(i));
        if (pp.perm.size() != in.size()) shapeError(n, "perm has {} entries for rank {}", pp.perm.size(), in.size());
        std::vector<int64_t> sorted = pp.perm;
        std::sort(sorted.begin(), sorted.end());
        for (size_t i = 0; i < sorted.size(); ++i)
            if (sorted[i] != static_cast<int64_t>(i)) shapeError(n, "perm is not a permutation");
        for (int64_t a : pp.perm) pp.outShape.push_back(in[a]);
        return pp;
    }
    requireRank(n, in, 4, "the input");
    int64_t b = n.attrInt("blocksize", 0);
    checkGeometry(n, "blocksize", {b}, 1);  // b * b stays inside int64
    int64_t N = in[0], C = in[1], H = in[2], W = in[3];
    if (op == "DepthToSpace") {
        if (C % (b * b)) shapeError(n, "channels {} not divisible by blocksize^2 = {}", C, b * b);
        return depthToSpacePermutation(in, b, n.attrString("mode", "DCR") == "CRD");
    } else {  // SpaceToDepth
        if (H % b || W % b) shapeError(n, "spatial size {}x{} not divisible by blocksize {}", H, W, b);
        pp.viewShape = {N, C, H / b, b, W / b, b};
        pp.perm = {0, 3, 5, 1, 2, 4};
        pp.outShape = {N, C * b * b, H / b, W / b};
    }
    return pp;
}

void inferPermutation(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    setOutput(g, n, 0, x.dtype, permutationOf(n, x.shape).outShape);
}

void evalPermutation(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    PermutationPlan pp = permutationOf(n, in[0]->shape());
    const graph::StridedView p = permutedView(contiguousView(pp.viewShape), pp.perm);
    stridedCopyCpu(*in[0], out[0], p.shape, p.stride, contiguousStrides(p.shape), 0, 0);
}

void emitPermutation(LowerContext& ctx, const Node& n, int src, int dst, const PermutationPlan& pp) {
    const graph::StridedView p = permutedView(contiguousView(pp.viewShape), pp.perm);
    emitStridedCopy(ctx, n, src, dst, p.shape, p.stride, contiguousStrides(p.shape), 0, 0,
                    dataTypeSize(ctx.value(src).dtype));
}

void lowerPermutation(LowerContext& ctx, const Node& n) {
    emitPermutation(ctx, n, n.inputs[0], n.outputs[0], permutationOf(n, ctx.value(n.inputs[0]).shape));
}

// A Transpose that moves only dimensions of size 1 keeps every element where it was (the
// sequence-first attention's [S, 1, E] <-> [1, S, E]): its output is a view at offset 0.
int64_t transposeViewOffset(const Graph& g, const Node& n, size_t output) {
    return output == 0 && keepsElementOrder(g, n) ? 0 : -1;
}

}  // namespace

bool permutationKeepsOrder(const graph::Shape& shape, const std::vector<int64_t>& perm) {
    int64_t last = -1;
    for (int64_t axis : perm) {
        if (axis < 0 || static_cast<size_t>(axis) >= shape.size()) return false;
        if (shape[axis] == 1) continue;
        if (axis < last) return false;
        last = axis;
    }
    return true;
}

std::vector<int64_t> transposePermutation(const graph::Node& n, const graph::Shape& in) {
    return permutationOf(n, in).perm;
}

bool keepsElementOrder(const graph::Graph& g, const graph::Node& n) {
    if (n.removed || n.inputs.empty() || n.inputs[0] < 0 || n.outputs.empty()) return false;
    // (Only output 0 aliases the input: Dropout's mask is a tensor of its own.)
    if (std::any_of(n.outputs.begin() + 1, n.outputs.end(), [](int o) { return o >= 0; })) return false;
    const OpDef* def = findOp(n.opType, g.opset);
    if (def && def->isView) return true;
    if (n.opType != "Transpose") return false;
    try {
        const Shape& in = g.values[n.inputs[0]].shape;
        return permutationKeepsOrder(in, transposePermutation(n, in));
    } catch (const Error&) {
        return false;
    }
}

void emitDepthToSpace(LowerContext& ctx, const Node& n, int src, int dst, int64_t blocksize, bool crd) {
    emitPermutation(ctx, n, src, dst, depthToSpacePermutation(ctx.value(src).shape, blocksize, crd));
}

void registerLayoutOps(std::vector<OpDef>& t) {
    // Views and copies move bytes of any element type: all fp16-capable.
    for (const char* op : {"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"})
        t.push_back(withFp16({op, 1, 1000, inferView, evalView, nullptr, true}));
    t.push_back(withFp16({"Dropout", 1, 1000, inferDropout, evalDropout, nullptr, true}));
    for (const char* op : {"Transpose", "DepthToSpace", "SpaceToDepth"}) {
        OpDef d{op, 1, 1000, inferPermutation, evalPermutation, lowerPermutation};
        if (d.type == "Transpose") d.viewOffset = transposeViewOffset;
        t.push_back(withFp16(d));
    }
}

}  // namespace vkinfer::ops
