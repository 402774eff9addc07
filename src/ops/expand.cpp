// Expand (bidirectional NumPy broadcast to a shape) and Tile (repeats per axis): both are
// strided copies that read repeated data through stride 0. Tile walks [repeat, extent]
// pairs per axis; the copy merges what it can and falls back to several dispatches beyond
// its 6 dimensions.
#include "ops/broadcast.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

// ---- Expand ----

Shape expandShape(const Node& n, const Shape& in, const Tensor& shapeT) {
    if (shapeT.shape().size() > 1) shapeError(n, "the shape input must be 1-D");
    Shape target = tensorInts(shapeT);
    return broadcastShapes(n, in, target);
}

void inferExpand(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    setOutput(g, n, 0, x.dtype, expandShape(n, x.shape, constantInput(g, n, 1, "the target shape")));
}

void evalExpand(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    (void)n;
    const Shape& o = out[0].shape();
    stridedCopyCpu(*in[0], out[0], o, broadcastStrides(in[0]->shape(), o), contiguousStrides(o), 0, 0);
}

void lowerExpand(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[0]);
    const Shape& o = ctx.value(n.outputs[0]).shape;
    emitStridedCopy(ctx, n, n.inputs[0], n.outputs[0], o, broadcastStrides(x.shape, o), contiguousStrides(o), 0, 0,
                    dataTypeSize(x.dtype));
}

// ---- Tile ----

std::vector<int64_t> tileRepeats(const Node& n, const Shape& in, const Tensor& repeatsT) {
    auto r = tensorInts(repeatsT);
    if (r.size() != in.size()) shapeError(n, "repeats has {} entries for rank {}", r.size(), in.size());
    for (int64_t v : r)
        if (v < 0) shapeError(n, "negative repeat {}", v);
    // The copy walks [r0, d0, r1, d1, ...]: with a zero extent somewhere the output is empty
    // but huge repeats elsewhere would still overflow that walk's element counts.
    int64_t walk = 1;
    for (size_t d = 0; d < r.size(); ++d)
        walk = mulChecked(n, mulChecked(n, walk, std::max<int64_t>(r[d], 1)), std::max<int64_t>(in[d], 1));
    return r;
}

// The copy: output dims [r0, d0, r1, d1, ...]; the input is read with stride 0 over each
// repeat, the output is written with a whole tile's stride.
struct TileCopy {
    Shape dims;
    std::vector<int64_t> inStride, outStride;
};
TileCopy tileCopy(const Shape& in, const std::vector<int64_t>& repeats) {
    Shape out(in.size());
    for (size_t d = 0; d < in.size(); ++d) out[d] = in[d] * repeats[d];
    auto is = contiguousStrides(in), os = contiguousStrides(out);
    TileCopy c;
    for (size_t d = 0; d < in.size(); ++d) {
        c.dims.insert(c.dims.end(), {repeats[d], in[d]});
        c.inStride.insert(c.inStride.end(), {0, is[d]});
        c.outStride.insert(c.outStride.end(), {in[d] * os[d], os[d]});
    }
    return c;
}

void inferTile(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    auto r = tileRepeats(n, x.shape, constantInput(g, n, 1, "repeats"));
    Shape out = x.shape;
    for (size_t d = 0; d < out.size(); ++d) out[d] = mulChecked(n, out[d], r[d]);
    setOutput(g, n, 0, x.dtype, out);
}

void evalTile(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    TileCopy c = tileCopy(in[0]->shape(), tileRepeats(n, in[0]->shape(), *in[1]));
    stridedCopyCpu(*in[0], out[0], c.dims, c.inStride, c.outStride, 0, 0);
}

void lowerTile(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[0]);
    TileCopy c = tileCopy(x.shape, tileRepeats(n, x.shape, constantInput(ctx.graph(), n, 1, "repeats")));
    emitStridedCopy(ctx, n, n.inputs[0], n.outputs[0], c.dims, c.inStride, c.outStride, 0, 0, dataTypeSize(x.dtype));
}

}  // namespace

void registerExpandOps(std::vector<OpDef>& t) {
    t.push_back(withFp16({"Expand", 8, 1000, inferExpand, evalExpand, lowerExpand}));
    t.push_back(withFp16({"Tile", 6, 1000, inferTile, evalTile, lowerTile}));
}

}  // namespace vkinfer::ops
