// Gather (any axis, negative indices, indices of any rank, constant or computed at run
// time), GatherElements, GatherND (batch_dims), ScatterElements / Scatter and ScatterND
// (reductions none, add, mul, max, min). One constant index taking a contiguous run is a view (no dispatch); constant
// indices that step evenly (a scalar, a range) become a strided copy; the rest
// read the indices on the GPU (gather.comp, gather_elements.comp, gather_nd.comp,
// scatter_elements.comp, scatter_nd.comp).
#include <algorithm>
#include <cstring>

#include "kernels/families/gather.h"
#include "kernels/families/gather_elements.h"
#include "kernels/families/gather_nd.h"
#include "kernels/families/scatter_elements.h"
#include "kernels/families/scatter_nd.h"
#include "ops/broadcast.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"
#include "ops/strided_view.h"

namespace vkinfer::ops {

namespace {

void requireIndices(const Graph& g, const Node& n, size_t i) {
    DataType t = inputValue(g, n, i).dtype;
    if (t != DataType::Int64 && t != DataType::Int32)
        shapeError(n, "indices must be int32 or int64, got {}", dataTypeName(t));
}

// Index k along an axis of extent len, negative counting from the end; throws ShapeError
// when out of range. The kernels report an index read at run time that is out of range
// through their status slot (LowerContext::indexStatus), and the run fails with the same
// words (runtime/index_status.cpp).
int64_t checkedIndex(const Node& n, int64_t k, int64_t len) {
    int64_t v = k < 0 ? k + len : k;
    if (v < 0 || v >= len) shapeError(n, "index {} is out of range for an axis of extent {}", k, len);
    return v;
}

// Constant indices are checked when planning: index j against extentOf(j).
template <class ExtentOf>
void checkConstantIndices(const LowerContext& ctx, const Node& n, ExtentOf extentOf) {
    const auto& c = ctx.value(n.inputs[1]).constant;
    if (!c) return;
    for (int64_t j = 0; j < c->elementCount(); ++j) checkedIndex(n, c->getInt(j), extentOf(j));
}

// Kernel variant by element size (8-byte elements move as two 32-bit words), and the
// number of words per element.
// The variant of a family moving 1-, 2- or 4-byte elements (Elem::b8, b16, b32) for
// `elemSize` bytes; longer elements move as *words 32-bit words.
template <class Elem>
Elem elementVariant(const Node& n, size_t elemSize, int64_t* words) {
    *words = 1;
    if (elemSize == 1) return Elem::b8;
    if (elemSize == 2) return Elem::b16;
    if (elemSize % 4 != 0 || elemSize == 0) unsupported(n, "{}-byte elements are not supported", elemSize);
    *words = static_cast<int64_t>(elemSize / 4);
    return Elem::b32;
}

// ---- Gather ----

struct GatherDims {
    int64_t axis, outer = 1, axisLen, inner = 1, nIdx;
    Shape out;
};

GatherDims gatherDims(const Node& n, const Shape& data, const Shape& indices) {
    if (data.empty()) shapeError(n, "data must have rank >= 1");
    GatherDims d;
    d.axis = normalizeAxis(n, n.attrInt("axis", 0), static_cast<int64_t>(data.size()));
    for (int64_t i = 0; i < d.axis; ++i) d.outer *= data[i];
    d.axisLen = data[d.axis];
    for (size_t i = d.axis + 1; i < data.size(); ++i) d.inner *= data[i];
    d.nIdx = elementCount(indices);
    d.out.assign(data.begin(), data.begin() + d.axis);
    d.out.insert(d.out.end(), indices.begin(), indices.end());
    d.out.insert(d.out.end(), data.begin() + d.axis + 1, data.end());
    return d;
}

void inferGather(Graph& g, const Node& n) {
    requireIndices(g, n, 1);
    const auto& x = inputValue(g, n, 0);
    setOutput(g, n, 0, x.dtype, gatherDims(n, x.shape, inputShape(g, n, 1)).out);
}

void evalGather(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    GatherDims d = gatherDims(n, in[0]->shape(), in[1]->shape());
    size_t rowBytes = static_cast<size_t>(d.inner) * dataTypeSize(in[0]->dtype());
    for (int64_t j = 0; j < d.nIdx; ++j) {
        int64_t k = checkedIndex(n, in[1]->getInt(j), d.axisLen);
        for (int64_t o = 0; o < d.outer; ++o)
            std::memcpy(out[0].data() + ((o * d.nIdx + j) * rowBytes), in[0]->data() + (o * d.axisLen + k) * rowBytes,
                        rowBytes);
    }
}

// The index of a Gather that takes one constant index (attention's qkv[0]; a class token), or
// null.
const Tensor* oneConstantIndex(const Graph& g, const Node& n) {
    if (n.inputs.size() < 2 || n.inputs[1] < 0 || !g.values[n.inputs[1]].constant) return nullptr;
    const Tensor* index = &*g.values[n.inputs[1]].constant;
    return index->elementCount() == 1 ? index : nullptr;
}

// A Gather of one constant index where everything before the axis has extent 1 (attention's
// q, k, v = qkv[0], qkv[1], qkv[2]; a class token x[:, 0] of one image) takes one contiguous
// run of its input: the plan makes it a view there (OpDef::viewOffset), no dispatch. Its
// element offset, or -1.
int64_t gatherViewOffset(const Graph& g, const Node& n, size_t) {
    const Tensor* index = oneConstantIndex(g, n);
    if (!index) return -1;
    const Shape& data = inputShape(g, n, 0);
    if (data.empty()) return -1;
    const GatherDims d = gatherDims(n, data, index->shape());
    if (d.outer != 1) return -1;
    return checkedIndex(n, index->getInt(0), d.axisLen) * d.inner;
}

void lowerGather(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[0]);
    const auto& ind = ctx.value(n.inputs[1]);
    GatherDims d = gatherDims(n, x.shape, ind.shape);
    size_t es = dataTypeSize(x.dtype);
    checkConstantIndices(ctx, n, [&](int64_t) { return d.axisLen; });
    // Constant indices k0, k0 + s, k0 + 2s, ...: a strided copy [outer, nIdx, inner].
    if (ind.constant && d.nIdx > 0) {
        int64_t k0 = checkedIndex(n, ind.constant->getInt(0), d.axisLen), step = 0;
        bool even = true;
        for (int64_t j = 1; j < d.nIdx && even; ++j) {
            int64_t k = checkedIndex(n, ind.constant->getInt(j), d.axisLen);
            if (j == 1) step = k - k0;
            even = k == k0 + j * step;
        }
        if (even) {
            emitStridedCopy(ctx, n, n.inputs[0], n.outputs[0], {d.outer, d.nIdx, d.inner},
                            {d.axisLen * d.inner, step * d.inner, 1}, {d.nIdx * d.inner, d.inner, 1}, k0 * d.inner, 0,
                            es);
            return;
        }
    }
    int64_t words;
    const kernels::KernelId kernel =
        kernels::gather::variant(elementVariant<kernels::gather::Elem>(n, es, &words));
    int64_t count = d.outer * d.nIdx * d.inner * words;
    if (count == 0) return;
    requireIndexable(n, std::max(count, x.elementCount() * words));
    Dispatch& disp = ctx.emit(kernel);
    disp.setSpec(kernels::gather::kIdx64, ind.dtype == DataType::Int64 ? 1 : 0);
    kernels::gather::Push p{};
    p.count = u32(count);
    p.nIdx = u32(d.nIdx);
    p.inner = u32(d.inner * words);
    p.axisLen = u32(d.axisLen);
    disp.setPush(p);
    setLaunch1d(disp, count);
    disp.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1]), ctx.indexStatus(n.inputs[1])};
}

// ---- GatherElements ----

void checkSameRank(const Node& n, const Shape& data, const Shape& indices) {
    if (data.size() != indices.size() || data.empty())
        shapeError(n, "data {} and indices {} must have the same rank (>= 1)", shapeToString(data),
                   shapeToString(indices));
}

void inferGatherElements(Graph& g, const Node& n) {
    requireIndices(g, n, 1);
    const auto& x = inputValue(g, n, 0);
    const Shape& ind = inputShape(g, n, 1);
    checkSameRank(n, x.shape, ind);
    normalizeAxis(n, n.attrInt("axis", 0), static_cast<int64_t>(x.shape.size()));
    setOutput(g, n, 0, x.dtype, ind);
}

void evalGatherElements(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Shape& x = in[0]->shape();
    const Shape& ind = in[1]->shape();
    int64_t axis = normalizeAxis(n, n.attrInt("axis", 0), static_cast<int64_t>(x.size()));
    auto xs = contiguousStrides(x);
    size_t es = dataTypeSize(in[0]->dtype());
    std::vector<int64_t> c(ind.size(), 0);
    for (int64_t i = 0; i < elementCount(ind); ++i) {
        int64_t src = 0;
        for (size_t d = 0; d < ind.size(); ++d)
            src += (static_cast<int64_t>(d) == axis ? checkedIndex(n, in[1]->getInt(i), x[d]) : c[d]) * xs[d];
        std::memcpy(out[0].data() + i * es, in[0]->data() + src * es, es);
        for (size_t d = ind.size(); d-- > 0;) {
            if (++c[d] < ind[d]) break;
            c[d] = 0;
        }
    }
}

void lowerGatherElements(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[0]);
    const auto& ind = ctx.value(n.inputs[1]);
    int64_t axis = normalizeAxis(n, n.attrInt("axis", 0), static_cast<int64_t>(x.shape.size()));
    // Merge neighbouring dims off the axis where the indices span the data's whole extent
    // (the flat walk over the indices stays valid): NLL-loss graphs gather at rank 7.
    Shape dims;
    std::vector<int64_t> strides;
    auto xs = contiguousStrides(x.shape);
    int64_t mergedAxis = 0;
    for (size_t d = 0; d < x.shape.size(); ++d) {
        bool isAxis = static_cast<int64_t>(d) == axis;
        bool prevIsAxis =
            !dims.empty() && static_cast<int64_t>(dims.size()) - 1 == mergedAxis && d > static_cast<size_t>(axis);
        if (!dims.empty() && !isAxis && !prevIsAxis && ind.shape[d] == x.shape[d]) {
            dims.back() *= ind.shape[d];
            strides.back() = xs[d];
            continue;
        }
        if (isAxis) mergedAxis = static_cast<int64_t>(dims.size());
        dims.push_back(ind.shape[d]);
        strides.push_back(xs[d]);
    }
    const int64_t rank = static_cast<int64_t>(dims.size());
    if (rank > 6) unsupported(n, "GatherElements over {} separate dimensions (the kernel walks up to 6)", rank);
    checkConstantIndices(ctx, n, [&](int64_t) { return x.shape[axis]; });
    int64_t words;
    const kernels::KernelId kernel = kernels::gather_elements::variant(
        elementVariant<kernels::gather_elements::Elem>(n, dataTypeSize(x.dtype), &words));
    int64_t count = ind.elementCount();
    if (count == 0) return;
    requireIndexable(n, std::max(count, x.elementCount()) * words);
    Dispatch& d = ctx.emit(kernel);
    d.setSpec(kernels::gather_elements::kIdx64, ind.dtype == DataType::Int64 ? 1 : 0);
    kernels::gather_elements::Push p{};
    p.count = u32(count);
    p.rank = u32(rank);
    p.axis = u32(mergedAxis);
    p.words = u32(words);
    p.axisLen = u32(x.shape[axis]);
    for (int64_t i = 0; i < rank; ++i) {
        p.dims[i] = u32(dims[i]);
        p.xStride[i] = u32(strides[i]);
    }
    d.setPush(p);
    setLaunch1d(d, count * words);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1]), ctx.indexStatus(n.inputs[1])};
}

// ---- ScatterElements / Scatter ----

enum class Reduction : uint32_t { None = 0, Add = 1, Mul = 2, Max = 3, Min = 4 };

Reduction reductionOf(const Node& n) {
    std::string r = n.attrString("reduction", "none");
    if (r == "none") return Reduction::None;
    if (r == "add") return Reduction::Add;
    if (r == "mul") return Reduction::Mul;
    if (r == "max") return Reduction::Max;
    if (r == "min") return Reduction::Min;
    unsupported(n, "reduction '{}' is not supported", r);
}

void inferScatter(Graph& g, const Node& n) {
    requireIndices(g, n, 1);
    const auto& x = inputValue(g, n, 0);
    const Shape& ind = inputShape(g, n, 1);
    checkSameRank(n, x.shape, ind);
    if (inputShape(g, n, 2) != ind)
        shapeError(n, "updates {} must have the indices' shape {}", shapeToString(inputShape(g, n, 2)),
                   shapeToString(ind));
    if (inputValue(g, n, 2).dtype != x.dtype) shapeError(n, "updates and data have different types");
    normalizeAxis(n, n.attrInt("axis", 0), static_cast<int64_t>(x.shape.size()));
    reductionOf(n);
    setOutput(g, n, 0, x.dtype, x.shape);
}

template <class T>
T reduce(Reduction r, T a, T b) {
    switch (r) {
        case Reduction::Add:
            return static_cast<T>(a + b);
        case Reduction::Mul:
            return static_cast<T>(a * b);
        case Reduction::Max:
            return std::max(a, b);
        case Reduction::Min:
            return std::min(a, b);
        default:
            return b;
    }
}

void evalScatter(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Shape& x = in[0]->shape();
    const Shape& ind = in[1]->shape();
    int64_t axis = normalizeAxis(n, n.attrInt("axis", 0), static_cast<int64_t>(x.size()));
    Reduction r = reductionOf(n);
    out[0] = *in[0];
    auto xs = contiguousStrides(x);
    std::vector<int64_t> c(ind.size(), 0);
    visitType(n, in[0]->dtype(), [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_same_v<T, bool>) {
            unsupported(n, "ScatterElements on bool tensors is not supported");
        } else {
            T* y = out[0].as<T>();
            const T* u = in[2]->as<T>();
            for (int64_t i = 0; i < elementCount(ind); ++i) {
                int64_t dst = 0;
                for (size_t d = 0; d < ind.size(); ++d)
                    dst += (static_cast<int64_t>(d) == axis ? checkedIndex(n, in[1]->getInt(i), x[d]) : c[d]) * xs[d];
                y[dst] = reduce(r, y[dst], u[i]);
                for (size_t d = ind.size(); d-- > 0;) {
                    if (++c[d] < ind[d]) break;
                    c[d] = 0;
                }
            }
        }
    });
}

void lowerScatter(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[0]);
    const auto& ind = ctx.value(n.inputs[1]);
    const int64_t rank = static_cast<int64_t>(x.shape.size());
    if (rank > 6) unsupported(n, "ScatterElements of rank {} (the kernel walks up to 6 dimensions)", rank);
    const int64_t axis = normalizeAxis(n, n.attrInt("axis", 0), rank);
    checkConstantIndices(ctx, n, [&](int64_t) { return x.shape[axis]; });
    int64_t count = x.elementCount();
    if (count == 0) return;
    requireIndexable(n, std::max(count, ind.elementCount()));
    Dispatch& d = ctx.emit(typedKernel(n, kernels::scatter_elements::variant(x.dtype), "scatter_elements", x.dtype));
    d.setSpec(kernels::scatter_elements::kIdx64, ind.dtype == DataType::Int64 ? 1 : 0);
    d.setSpec(kernels::scatter_elements::kReduction, static_cast<uint32_t>(reductionOf(n)));
    kernels::scatter_elements::Push p{};
    p.count = u32(count);
    p.rank = u32(rank);
    p.axis = u32(axis);
    for (int64_t i = 0; i < rank; ++i) {
        p.dims[i] = u32(x.shape[i]);
        p.idxDims[i] = u32(ind.shape[i]);
    }
    d.setPush(p);
    setLaunch1d(d, count);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1]), readOf(n.inputs[2]),
                  ctx.indexStatus(n.inputs[1])};
}

// ---- GatherND and ScatterND: index tuples ----

// data [b batch dims, r - b more], indices [b batch dims, ..., k] (k <= r - b; b is GatherND's
// batch_dims, 0 for ScatterND): each index tuple selects the slice data[batch, t0, ..., t(k-1),
// ...] of data.shape[b + k:] (b = batchDims). `out` is indices.shape[:-1] + data.shape[b + k:]: GatherND's
// output, ScatterND's updates.
struct NdTuples {
    int64_t b = 0, k = 0, tuples = 1, tuplesPerBatch = 1, slice = 1, batchStride = 1;
    Shape out;
};

NdTuples ndTuples(const Node& n, const Shape& data, const Shape& indices, int64_t batchDims) {
    if (data.empty() || indices.empty()) shapeError(n, "data and indices must have rank >= 1");
    NdTuples d;
    d.b = batchDims;
    const auto r = static_cast<int64_t>(data.size()), q = static_cast<int64_t>(indices.size());
    if (d.b < 0 || d.b >= std::min(r, q)) shapeError(n, "batch_dims {} must be in [0, {})", d.b, std::min(r, q));
    for (int64_t i = 0; i < d.b; ++i)
        if (data[i] != indices[i])
            shapeError(n, "batch dimension {} differs: data {} and indices {}", i, shapeToString(data),
                       shapeToString(indices));
    d.k = indices.back();
    if (d.k < 1 || d.k > r - d.b)
        shapeError(n, "the indices' last dimension {} must be in [1, {}] (the data's rank{})", d.k, r - d.b,
                   d.b > 0 ? " after batch_dims" : "");
    d.out.assign(indices.begin(), indices.end() - 1);
    for (int64_t i = 0; i + 1 < q; ++i) d.tuples *= indices[i];
    for (int64_t i = d.b; i + 1 < q; ++i) d.tuplesPerBatch *= indices[i];
    for (int64_t i = d.b + d.k; i < r; ++i) {
        d.slice *= data[i];
        d.out.push_back(data[i]);
    }
    for (int64_t i = d.b; i < r; ++i) d.batchStride *= data[i];
    return d;
}

// The element of data where tuple j's slice starts (ShapeError for an index out of range).
int64_t tupleStart(const Node& n, const Tensor& indices, const Shape& data, const NdTuples& d, int64_t j) {
    int64_t at = 0;
    for (int64_t a = 0; a < d.k; ++a)
        at = at * data[d.b + a] + checkedIndex(n, indices.getInt(j * d.k + a), data[d.b + a]);
    return (j / d.tuplesPerBatch) * d.batchStride + at * d.slice;
}

// ---- ScatterND ----

// Each index tuple's update (indices.shape[:-1] + data.shape[k:]) replaces or reduces the
// slice of data it selects.
NdTuples scatterNdTuples(const Node& n, const Shape& data, const Shape& indices, const Shape& updates) {
    NdTuples d = ndTuples(n, data, indices, 0);
    if (updates != d.out)
        shapeError(n, "updates {} must have shape {} (indices[:-1] + data[k:])", shapeToString(updates),
                   shapeToString(d.out));
    return d;
}

void inferScatterNd(Graph& g, const Node& n) {
    requireIndices(g, n, 1);
    const auto& x = inputValue(g, n, 0);
    scatterNdTuples(n, x.shape, inputShape(g, n, 1), inputShape(g, n, 2));
    if (inputValue(g, n, 2).dtype != x.dtype) shapeError(n, "updates and data have different types");
    reductionOf(n);
    setOutput(g, n, 0, x.dtype, x.shape);
}

void evalScatterNd(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Shape& x = in[0]->shape();
    const NdTuples d = scatterNdTuples(n, x, in[1]->shape(), in[2]->shape());
    Reduction r = reductionOf(n);
    out[0] = *in[0];
    visitType(n, in[0]->dtype(), [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_same_v<T, bool>) {
            unsupported(n, "ScatterND on bool tensors is not supported");
        } else {
            T* y = out[0].as<T>();
            const T* u = in[2]->as<T>();
            for (int64_t j = 0; j < d.tuples; ++j) {
                const int64_t start = tupleStart(n, *in[1], x, d, j);
                for (int64_t e = 0; e < d.slice; ++e) y[start + e] = reduce(r, y[start + e], u[j * d.slice + e]);
            }
        }
    });
}

void lowerScatterNd(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[0]);
    const auto& ind = ctx.value(n.inputs[1]);
    const NdTuples sd = scatterNdTuples(n, x.shape, ind.shape, ctx.value(n.inputs[2]).shape);
    if (sd.k > 6) unsupported(n, "ScatterND with {}-element index tuples (the kernel takes up to 6)", sd.k);
    checkConstantIndices(ctx, n, [&](int64_t j) { return x.shape[j % sd.k]; });
    int64_t count = x.elementCount();
    if (count == 0) return;
    requireIndexable(n, std::max({count, ind.elementCount() * 2, sd.tuples * sd.slice}));
    Dispatch& d = ctx.emit(typedKernel(n, kernels::scatter_nd::variant(x.dtype), "scatter_nd", x.dtype));
    d.setSpec(kernels::scatter_nd::kIdx64, ind.dtype == DataType::Int64 ? 1 : 0);
    d.setSpec(kernels::scatter_nd::kReduction, static_cast<uint32_t>(reductionOf(n)));
    kernels::scatter_nd::Push p{};
    p.count = u32(count);
    p.tuples = u32(sd.tuples);
    p.k = u32(sd.k);
    p.slice = u32(sd.slice);
    for (int64_t a = 0; a < sd.k; ++a) p.dims[a] = u32(x.shape[a]);
    d.setPush(p);
    setLaunch1d(d, count);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1]), readOf(n.inputs[2]),
                  ctx.indexStatus(n.inputs[1])};
}

// ---- GatherND ----

void inferGatherNd(Graph& g, const Node& n) {
    requireIndices(g, n, 1);
    const auto& x = inputValue(g, n, 0);
    setOutput(g, n, 0, x.dtype, ndTuples(n, x.shape, inputShape(g, n, 1), n.attrInt("batch_dims", 0)).out);
}

void evalGatherNd(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Shape& x = in[0]->shape();
    const NdTuples d = ndTuples(n, x, in[1]->shape(), n.attrInt("batch_dims", 0));
    const size_t es = dataTypeSize(in[0]->dtype());
    const std::byte* src = in[0]->data();
    std::byte* dst = out[0].data();
    for (int64_t j = 0; j < d.tuples; ++j) {
        const int64_t from = tupleStart(n, *in[1], x, d, j);
        if (d.slice > 0) std::memcpy(dst + j * d.slice * es, src + from * es, static_cast<size_t>(d.slice) * es);
    }
}

void lowerGatherNd(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[0]);
    const auto& ind = ctx.value(n.inputs[1]);
    const NdTuples d = ndTuples(n, x.shape, ind.shape, n.attrInt("batch_dims", 0));
    if (d.k > 6) unsupported(n, "GatherND with {}-element index tuples (the kernel takes up to 6)", d.k);
    checkConstantIndices(ctx, n, [&](int64_t j) { return x.shape[d.b + j % d.k]; });
    const int64_t count = elementCount(d.out);
    if (count == 0) return;
    requireIndexable(n, std::max({count, x.elementCount(), ind.elementCount() * 2}));
    Dispatch& dp = ctx.emit(typedKernel(n, kernels::gather_nd::variant(x.dtype), "gather_nd", x.dtype));
    dp.setSpec(kernels::gather_nd::kIdx64, ind.dtype == DataType::Int64 ? 1 : 0);
    kernels::gather_nd::Push p{};
    p.count = u32(count);
    p.tuplesPerBatch = u32(d.tuplesPerBatch);
    p.k = u32(d.k);
    p.slice = u32(d.slice);
    p.batchStride = u32(d.batchStride);
    for (int64_t a = 0; a < d.k; ++a) p.dims[a] = u32(x.shape[d.b + a]);
    dp.setPush(p);
    setLaunch1d(dp, count);
    dp.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1]), ctx.indexStatus(n.inputs[1])};
}

}  // namespace

std::optional<graph::StridedView> gatherView(const Graph& g, const Node& n, const graph::StridedView& in) {
    const Tensor* index = oneConstantIndex(g, n);
    if (!index || in.shape.empty()) return std::nullopt;
    const GatherDims d = gatherDims(n, in.shape, index->shape());
    int64_t k = index->getInt(0);
    if (k < 0) k += d.axisLen;
    if (k < 0 || k >= d.axisLen) return std::nullopt;  // (the op itself reports it)
    const auto axis = static_cast<size_t>(d.axis);
    graph::StridedView r{in.offset + k * in.stride[axis], d.out, {}};
    r.stride.assign(in.stride.begin(), in.stride.begin() + d.axis);
    r.stride.insert(r.stride.end(), index->shape().size(), 0);  // the index's dimensions, all of extent 1
    r.stride.insert(r.stride.end(), in.stride.begin() + d.axis + 1, in.stride.end());
    return r;
}

void registerGatherOps(std::vector<OpDef>& t) {
    OpDef gather = withFp16({"Gather", 1, 1000, inferGather, evalGather, lowerGather});
    gather.viewOffset = gatherViewOffset;
    t.push_back(gather);
    t.push_back(withFp16({"GatherElements", 11, 1000, inferGatherElements, evalGatherElements, lowerGatherElements}));
    t.push_back(withFp16({"GatherND", 11, 1000, inferGatherNd, evalGatherNd, lowerGatherNd}));
    t.push_back(withFp16({"ScatterElements", 11, 1000, inferScatter, evalScatter, lowerScatter}));
    t.push_back(withFp16({"Scatter", 9, 10, inferScatter, evalScatter, lowerScatter}));
    t.push_back(withFp16({"ScatterND", 11, 1000, inferScatterNd, evalScatterNd, lowerScatterNd}));
}

}  // namespace vkinfer::ops
