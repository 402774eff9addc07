// Slice (opset 1 attributes; opset 10+ inputs starts/ends/axes/steps, negative steps,
// clamping per the spec) and Split (attribute `split`, opset 13+ input, opset 18
// num_outputs, uneven last chunk). Both are strided copies: a slice reads its input through
// strides scaled by the steps (negative for reversed axes) from the first element's offset;
// where every output is a contiguous run of the input (ShuffleNet's channel halves of a
// batch-1 map) the plan makes them views instead (OpDef::viewOffset).
#include <algorithm>

#include "ops/broadcast.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"
#include "ops/strided_view.h"

namespace vkinfer::ops {

namespace {

// ---- Slice ----

// The window per input dimension: first element, step, and the output shape.
struct SliceSpec {
    Shape out;
    std::vector<int64_t> start, step;
};

SliceSpec sliceSpec(const Node& n, const Shape& in, const Tensor* startsT, const Tensor* endsT, const Tensor* axesT,
                    const Tensor* stepsT) {
    const int64_t rank = static_cast<int64_t>(in.size());
    std::vector<int64_t> starts, ends, axes, steps;
    if (n.hasAttr("starts")) {  // opset 1-9
        starts = n.attrInts("starts");
        ends = n.attrInts("ends");
        axes = n.attrInts("axes");
    } else {
        if (!startsT || !endsT) shapeError(n, "starts and ends are required");
        starts = tensorInts(*startsT);
        ends = tensorInts(*endsT);
        if (axesT) axes = tensorInts(*axesT);
        if (stepsT) steps = tensorInts(*stepsT);
    }
    if (ends.size() != starts.size()) shapeError(n, "starts has {} entries, ends {}", starts.size(), ends.size());
    if (axes.empty())
        for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (axes.size() != starts.size() || steps.size() != starts.size())
        shapeError(n, "starts, ends, axes and steps must have the same length");

    SliceSpec s;
    s.out = in;
    s.start.assign(in.size(), 0);
    s.step.assign(in.size(), 1);
    std::vector<char> seen(in.size(), 0);
    for (size_t k = 0; k < starts.size(); ++k) {
        int64_t axis = normalizeAxis(n, axes[k], rank);
        if (seen[axis]++) shapeError(n, "axis {} is listed twice", axis);
        int64_t dim = in[axis], st = steps[k];
        if (st == 0) shapeError(n, "step 0 on axis {}", axis);
        // A step beyond the extent selects at most one element, as the extent does: clamping
        // it keeps `e - b + st` and the copy's strides (stride x step) inside int64.
        st = std::clamp<int64_t>(st, -std::max<int64_t>(dim, 1), std::max<int64_t>(dim, 1));
        // Clamp in a wide range first: INT64_MAX / INT64_MIN stand for "to the end".
        int64_t b = starts[k], e = ends[k];
        if (b < 0) b += dim;
        if (e < 0) e += dim;
        int64_t count;
        if (st > 0) {
            b = std::clamp<int64_t>(b, 0, dim);
            e = std::clamp<int64_t>(e, 0, dim);
            count = e > b ? (e - b + st - 1) / st : 0;
        } else {
            b = std::clamp<int64_t>(b, 0, dim - 1);
            e = std::clamp<int64_t>(e, -1, dim - 1);
            count = b > e ? (b - e - st - 1) / -st : 0;
        }
        s.out[axis] = count;
        s.start[axis] = count ? b : 0;
        s.step[axis] = st;
    }
    return s;
}

// Input strides and offset of the copy that implements the slice.
void sliceCopy(const Shape& in, const SliceSpec& s, std::vector<int64_t>* inStride, int64_t* inOffset) {
    auto st = contiguousStrides(in);
    *inStride = st;
    *inOffset = 0;
    for (size_t d = 0; d < in.size(); ++d) {
        (*inStride)[d] = st[d] * s.step[d];
        *inOffset += s.start[d] * st[d];
    }
}

SliceSpec sliceSpecOf(const Graph& g, const Node& n) {
    return sliceSpec(n, inputShape(g, n, 0), optionalConstant(g, n, 1, "starts"), optionalConstant(g, n, 2, "ends"),
                     optionalConstant(g, n, 3, "axes"), optionalConstant(g, n, 4, "steps"));
}

void inferSlice(Graph& g, const Node& n) { setOutput(g, n, 0, inputValue(g, n, 0).dtype, sliceSpecOf(g, n).out); }

void evalSlice(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Shape& x = in[0]->shape();
    SliceSpec s =
        sliceSpec(n, x, optionalInput(in, 1), optionalInput(in, 2), optionalInput(in, 3), optionalInput(in, 4));
    std::vector<int64_t> inStride;
    int64_t inOffset;
    sliceCopy(x, s, &inStride, &inOffset);
    stridedCopyCpu(*in[0], out[0], s.out, inStride, contiguousStrides(s.out), inOffset, 0);
}

// The element offset of the window (first element `start`, extents `out`, steps `step`) of a
// row-major tensor of shape `in` when the window is one contiguous run of it: every dimension
// before the first one of extent > 1 has extent 1, every one after it is whole, and the
// dimensions of extent > 1 are walked forwards. -1 otherwise, or for an empty window.
int64_t contiguousWindowOffset(const Shape& in, const Shape& out, const std::vector<int64_t>& start,
                               const std::vector<int64_t>& step) {
    const size_t rank = in.size();
    size_t first = 0;
    while (first < rank && out[first] == 1) ++first;
    for (size_t d = 0; d < rank; ++d) {
        if (out[d] == 0) return -1;
        if (out[d] > 1 && step[d] != 1) return -1;
        if (d > first && out[d] != in[d]) return -1;
    }
    const auto st = contiguousStrides(in);
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) offset += start[d] * st[d];
    return offset;
}

int64_t sliceViewOffset(const Graph& g, const Node& n, size_t) {
    const SliceSpec s = sliceSpecOf(g, n);
    return contiguousWindowOffset(inputShape(g, n, 0), s.out, s.start, s.step);
}

void lowerSlice(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[0]);
    SliceSpec s = sliceSpecOf(ctx.graph(), n);
    std::vector<int64_t> inStride;
    int64_t inOffset;
    sliceCopy(x.shape, s, &inStride, &inOffset);
    emitStridedCopy(ctx, n, n.inputs[0], n.outputs[0], s.out, inStride, contiguousStrides(s.out), inOffset, 0,
                    dataTypeSize(x.dtype));
}

// ---- Split ----

std::vector<int64_t> splitSizes(const Node& n, const Shape& in, int64_t axis, const Tensor* splitT) {
    std::vector<int64_t> sizes = splitT ? tensorInts(*splitT) : n.attrInts("split");
    const int64_t dim = in[axis];
    const int64_t outputs = static_cast<int64_t>(n.outputs.size());
    if (!sizes.empty()) {
        if (static_cast<int64_t>(sizes.size()) != outputs)
            shapeError(n, "split has {} entries for {} outputs", sizes.size(), outputs);
        int64_t total = 0;
        for (int64_t v : sizes) {
            if (v < 0) shapeError(n, "negative split size {}", v);
            total = addChecked(n, total, v);
        }
        if (total != dim) shapeError(n, "split sizes sum to {}, axis {} has extent {}", total, axis, dim);
        return sizes;
    }
    int64_t parts = n.attrInt("num_outputs", outputs);
    if (parts != outputs) shapeError(n, "num_outputs is {} but the node has {} outputs", parts, outputs);
    if (parts <= 0) shapeError(n, "Split needs at least one output");
    // Equal parts; opset 18 lets the last one be smaller (ceil-sized chunks).
    int64_t chunk = (dim + parts - 1) / parts;
    for (int64_t i = 0; i < parts; ++i) sizes.push_back(std::clamp<int64_t>(dim - i * chunk, 0, chunk));
    return sizes;
}

int64_t splitAxis(const Node& n, const Shape& in) {
    return normalizeAxis(n, n.attrInt("axis", 0), static_cast<int64_t>(in.size()));
}

void inferSplit(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    int64_t axis = splitAxis(n, x.shape);
    auto sizes = splitSizes(n, x.shape, axis, optionalConstant(g, n, 1, "split"));
    for (size_t i = 0; i < sizes.size(); ++i) {
        Shape s = x.shape;
        s[axis] = sizes[i];
        setOutput(g, n, i, x.dtype, s);
    }
}

// Output i is the slab [begin, begin + size) along the axis: a copy reading the input
// through its own strides from the slab's first element.
void evalSplit(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Shape& x = in[0]->shape();
    int64_t axis = splitAxis(n, x);
    auto sizes = splitSizes(n, x, axis, optionalInput(in, 1));
    auto st = contiguousStrides(x);
    int64_t begin = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (n.outputs[i] >= 0)
            stridedCopyCpu(*in[0], out[i], out[i].shape(), st, contiguousStrides(out[i].shape()), begin * st[axis], 0);
        begin += sizes[i];
    }
}

int64_t splitViewOffset(const Graph& g, const Node& n, size_t output) {
    const Shape& x = inputShape(g, n, 0);
    const int64_t axis = splitAxis(n, x);
    const auto sizes = splitSizes(n, x, axis, optionalConstant(g, n, 1, "split"));
    std::vector<int64_t> start(x.size(), 0), step(x.size(), 1);
    for (size_t i = 0; i < output; ++i) start[axis] += sizes[i];
    Shape out = x;
    out[axis] = sizes[output];
    return contiguousWindowOffset(x, out, start, step);
}

void lowerSplit(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[0]);
    int64_t axis = splitAxis(n, x.shape);
    auto sizes = splitSizes(n, x.shape, axis, optionalConstant(ctx.graph(), n, 1, "split"));
    auto st = contiguousStrides(x.shape);
    int64_t begin = 0;
    for (size_t i = 0; i < sizes.size(); ++i) {
        if (n.outputs[i] >= 0) {
            const Shape& s = ctx.value(n.outputs[i]).shape;
            emitStridedCopy(ctx, n, n.inputs[0], n.outputs[i], s, st, contiguousStrides(s), begin * st[axis], 0,
                            dataTypeSize(x.dtype));
        }
        begin += sizes[i];
    }
}

}  // namespace

std::optional<graph::StridedView> sliceView(const Graph& g, const Node& n, const graph::StridedView& in) {
    if (n.inputs.empty() || n.inputs[0] < 0 || in.shape.size() != g.values[n.inputs[0]].shape.size()) return std::nullopt;
    for (size_t i = 1; i < n.inputs.size(); ++i)
        if (n.inputs[i] >= 0 && !g.values[n.inputs[i]].constant) return std::nullopt;
    const SliceSpec s = sliceSpecOf(g, n);
    graph::StridedView r{in.offset, s.out, in.stride};
    for (size_t d = 0; d < in.shape.size(); ++d) {
        // (A reversed axis would need negative strides, which the GEMM's loads do not take.)
        if (s.step[d] <= 0 || s.out[d] == 0) return std::nullopt;
        r.offset += s.start[d] * in.stride[d];
        r.stride[d] = in.stride[d] * s.step[d];
    }
    return r;
}

void registerSliceOps(std::vector<OpDef>& t) {
    OpDef slice = withFp16({"Slice", 1, 1000, inferSlice, evalSlice, lowerSlice});
    slice.viewOffset = sliceViewOffset;
    t.push_back(slice);
    OpDef split = withFp16({"Split", 1, 1000, inferSplit, evalSplit, lowerSplit});
    split.viewOffset = splitViewOffset;
    t.push_back(split);
}

}  // namespace vkinfer::ops
