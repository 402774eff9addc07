#include "kernels/families/copy_strided.h"
#include "ops/op_util.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/half.h"
#include "core/kernel_table.h"

namespace vkinfer::ops {

const Tensor& constantInput(const Graph& g, const Node& n, size_t i, const char* what) {
    const auto& v = inputValue(g, n, i);
    if (!v.constant)
        unsupported(n, "{} (input {} '{}') must be a constant or computable from input shapes", what, i, v.name);
    return *v.constant;
}

const Tensor* optionalConstant(const Graph& g, const Node& n, size_t i, const char* what) {
    return n.input(i) >= 0 ? &constantInput(g, n, i, what) : nullptr;
}

std::vector<int64_t> tensorInts(const Tensor& t) {
    std::vector<int64_t> out(static_cast<size_t>(t.elementCount()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = t.getInt(static_cast<int64_t>(i));
    return out;
}

void requireRank(const Node& n, const Shape& s, size_t rank, const char* what) {
    if (s.size() != rank) shapeError(n, "{} must have rank {}, got shape {}", what, rank, shapeToString(s));
}

void requireFloat(const Graph& g, const Node& n, size_t i) {
    const auto& v = inputValue(g, n, i);
    if (v.dtype != DataType::Float32)
        unsupported(n, "input '{}' is {}; this operator runs on float32 only", v.name, dataTypeName(v.dtype));
}

int64_t normalizeAxis(const Node& n, int64_t axis, int64_t rank) {
    if (axis < -rank || axis >= std::max<int64_t>(rank, 1)) shapeError(n, "axis {} is out of range for rank {}", axis, rank);
    return axis < 0 ? axis + rank : axis;
}

Shape broadcastShapes(const Node& n, const Shape& a, const Shape& b) {
    size_t rank = std::max(a.size(), b.size());
    Shape out(rank);
    for (size_t i = 0; i < rank; ++i) {
        int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
        int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
        if (da != db && da != 1 && db != 1)
            shapeError(n, "shapes {} and {} do not broadcast", shapeToString(a), shapeToString(b));
        out[i] = da == 1 ? db : da;
    }
    return out;
}

std::vector<int64_t> contiguousStrides(const Shape& s) {
    std::vector<int64_t> st(s.size(), 1);
    for (size_t i = s.size(); i-- > 1;) st[i - 1] = st[i] * s[i];
    return st;
}

std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out) {
    std::vector<int64_t> st(out.size(), 0);
    auto cs = contiguousStrides(in);
    size_t off = out.size() - in.size();
    for (size_t i = 0; i < in.size(); ++i) st[off + i] = in[i] == 1 ? 0 : cs[i];
    return st;
}

std::array<uint32_t, 3> grid1d(int64_t count, uint32_t local) {
    int64_t groups = std::max<int64_t>((count + local - 1) / local, 1);
    if (groups <= 65535) return {static_cast<uint32_t>(groups), 1, 1};
    return {65535u, static_cast<uint32_t>((groups + 65534) / 65535), 1};
}

void setLaunch1d(Dispatch& d, int64_t count, uint32_t local) {
    d.localSize = {local, 1, 1};
    d.groups = grid1d(count, local);
}

void setRowLaunch(Dispatch& d, int64_t rows, int64_t length, bool perThread) {
    if (perThread) {
        setLaunch1d(d, rows, 64);
        return;
    }
    uint32_t local = 32;
    while (local < 256 && local < length) local *= 2;
    d.localSize = {local, 1, 1};
    d.groups = rows <= 65535 ? std::array<uint32_t, 3>{u32(rows), 1, 1}
                             : std::array<uint32_t, 3>{65535u, ceilDiv(rows, 65535), 1};
}

void requireIndexable(const Node& n, int64_t elements) {
    if (elements > std::numeric_limits<int32_t>::max())
        unsupported(n, "tensor of {} elements exceeds the kernels' 32-bit indexing", elements);
}

bool collapseDims(Shape& dims, std::vector<std::vector<int64_t>*> strides) {
    Shape d;
    std::vector<std::vector<int64_t>> st(strides.size());
    for (size_t i = 0; i < dims.size(); ++i) {
        if (dims[i] == 1) continue;
        bool merge = !d.empty();
        for (size_t k = 0; k < strides.size() && merge; ++k) merge = st[k].back() == (*strides[k])[i] * dims[i];
        if (merge) {
            d.back() *= dims[i];
            for (size_t k = 0; k < strides.size(); ++k) st[k].back() = (*strides[k])[i];
            continue;
        }
        d.push_back(dims[i]);
        for (size_t k = 0; k < strides.size(); ++k) st[k].push_back((*strides[k])[i]);
    }
    if (d.empty()) {
        d = {1};
        for (auto& v : st) v = {0};
    }
    dims = d;
    for (size_t k = 0; k < strides.size(); ++k) *strides[k] = st[k];
    return dims.size() <= 6;
}

namespace {

struct CopyParams {
    uint32_t count, rank;
    uint32_t dims[6];
    uint32_t inStride[6];
    uint32_t outStride[6];
    uint32_t inOffset, outOffset;
};

}  // namespace

// Copies the index space `dims` (strides and offsets in elements of `elemSize` bytes).
void emitStridedCopy(LowerContext& ctx, const Node& n, int src, int dst, Shape dims, std::vector<int64_t> inStride,
                     std::vector<int64_t> outStride, int64_t inOffset, int64_t outOffset, size_t elemSize) {
    if (elemSize != 1 && elemSize != 2 && elemSize % 4 != 0)
        unsupported(n, "copying {}-byte elements on the GPU is not supported", elemSize);
    using kernels::copy_strided::Elem;
    const kernels::KernelId kernel =
        kernels::copy_strided::variant(elemSize == 1 ? Elem::b8 : elemSize == 2 ? Elem::b16 : Elem::b32);
    int64_t words = elemSize >= 4 ? static_cast<int64_t>(elemSize / 4) : 1;
    if (words > 1) {  // one more innermost dimension over the 32-bit words of an element
        for (auto& s : inStride) s *= words;
        for (auto& s : outStride) s *= words;
        dims.push_back(words);
        inStride.push_back(1);
        outStride.push_back(1);
        inOffset *= words;
        outOffset *= words;
    }
    int64_t count = elementCount(dims);
    if (count == 0) return;
    requireIndexable(n, count);
    if (!collapseDims(dims, {&inStride, &outStride})) {
        // More than 6 dims that do not merge (Tile of a rank-4 tensor, strided Slices of
        // high-rank tensors): one copy per index of the leading dims, within reason.
        size_t lead = dims.size() - 6;
        int64_t copies = 1;
        for (size_t i = 0; i < lead; ++i) copies *= dims[i];
        if (copies > 256)
            unsupported(n, "copy over {} non-mergeable dimensions ({})", dims.size(), shapeToString(dims));
        Shape inner(dims.begin() + lead, dims.end());
        std::vector<int64_t> is(inStride.begin() + lead, inStride.end()), os(outStride.begin() + lead, outStride.end());
        std::vector<int64_t> idx(lead, 0);
        for (int64_t c = 0; c < copies; ++c) {
            int64_t io = inOffset, oo = outOffset;
            for (size_t i = 0; i < lead; ++i) {
                io += idx[i] * inStride[i];
                oo += idx[i] * outStride[i];
            }
            emitStridedCopy(ctx, n, src, dst, inner, is, os, io, oo, elemSize >= 4 ? 4 : elemSize);  // words done
            for (size_t i = lead; i-- > 0;) {
                if (++idx[i] < dims[i]) break;
                idx[i] = 0;
            }
        }
        return;
    }
    CopyParams p{};
    p.count = static_cast<uint32_t>(count);
    p.rank = static_cast<uint32_t>(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
        p.dims[i] = static_cast<uint32_t>(dims[i]);
        p.inStride[i] = static_cast<uint32_t>(inStride[i]);
        p.outStride[i] = static_cast<uint32_t>(outStride[i]);
    }
    p.inOffset = static_cast<uint32_t>(inOffset);
    p.outOffset = static_cast<uint32_t>(outOffset);
    Dispatch& d = ctx.emit(kernel);
    d.setPush(p);
    setLaunch1d(d, count);
    d.bindings = {writeOf(dst), readOf(src)};
}

namespace {

// stridedCopyCpu's walk, its dimensions collapsed (collapseDims).
struct CopyWalk {
    std::vector<int64_t> dims, in, out;
    std::vector<int64_t> outBlock;  // elements from level k on, where the output is contiguous; else 0
    const std::byte* src;
    std::byte* dst;
    size_t es;

    // Copies level k of the walk. Folding copies up to tens of millions of elements (Expand,
    // Tile, ConstantOfShape-like broadcasts): a broadcast level copies its first block once
    // and doubles it with memcpy, a contiguous innermost level is one memcpy, so the work per
    // element is a byte copy; an index walk per element took over 25 s in the sanitized
    // fuzzer at -O0.
    void copy(size_t k, int64_t s, int64_t d) const {
        const int64_t n = dims[k], si = in[k], so = out[k];
        if (si == 0 && outBlock[k] != 0) {  // broadcast into a contiguous output block
            if (k + 1 == dims.size()) std::memcpy(dst + d * es, src + s * es, es);
            else copy(k + 1, s, d);
            replicate(d, outBlock[k] / n, n);
            return;
        }
        if (k + 1 == dims.size()) {
            if (si == 1 && so == 1) {
                std::memcpy(dst + d * es, src + s * es, static_cast<size_t>(n) * es);
            } else {
                for (int64_t j = 0; j < n; ++j) std::memcpy(dst + (d + j * so) * es, src + (s + j * si) * es, es);
            }
            return;
        }
        for (int64_t j = 0; j < n; ++j) copy(k + 1, s + j * si, d + j * so);
    }

    // Fills copies 1..n-1 of the block of `block` elements at d from copy 0.
    void replicate(int64_t d, int64_t block, int64_t n) const {
        const size_t bytes = static_cast<size_t>(block) * es;
        repeatBytes(dst + d * es, bytes, bytes * static_cast<size_t>(n));
    }
};

}  // namespace

void repeatBytes(std::byte* p, size_t filled, size_t total) {
    for (; filled < total; filled *= 2) std::memcpy(p + filled, p, std::min(filled, total - filled));
}

void stridedCopyCpu(const Tensor& src, Tensor& dst, const Shape& dims, const std::vector<int64_t>& inStride,
                    const std::vector<int64_t>& outStride, int64_t inOffset, int64_t outOffset) {
    if (elementCount(dims) == 0) return;
    CopyWalk w{dims, inStride, outStride, {}, src.data(), dst.data(), dataTypeSize(src.dtype())};
    collapseDims(w.dims, {&w.in, &w.out});  // (its limit of 6 dims is the GPU kernel's)
    w.outBlock.assign(w.dims.size(), 0);
    int64_t block = 1;
    for (size_t k = w.dims.size(); k-- > 0;) {
        if (block == 0 || w.out[k] != block) block = 0;
        else block *= w.dims[k];
        w.outBlock[k] = block;
    }
    w.copy(0, inOffset, outOffset);
}

const char* typeSuffix(DataType type) {
    switch (type) {
        case DataType::Float32: return "f32";
        case DataType::Float16: return "f16";
        case DataType::Int32: return "i32";
        case DataType::Int64: return "i64";
        case DataType::Int8: return "i8";
        case DataType::Int16: return "i16";
        case DataType::UInt16: return "u16";
        case DataType::UInt32: return "u32";
        case DataType::UInt64: return "u64";
        case DataType::Float64: return "f64";
        case DataType::UInt8:
        case DataType::Bool: return "u8";
        default: return "none";
    }
}

kernels::KernelId typedKernel(const Node& n, std::optional<kernels::KernelId> variant, std::string_view family,
                              DataType type) {
    if (!variant) unsupported(n, "no GPU kernel {} for {} tensors", family, dataTypeName(type));
    return *variant;
}

DataType floatKernelType(const LowerContext& ctx, const Node& n, int value, std::initializer_list<int> same) {
    const auto& v = ctx.value(value);
    DataType t = v.dtype;
    if (t != DataType::Float32 && t != DataType::Float16)
        unsupported(n, "tensor '{}' is {}; this operator runs on float32 (or float16) only", v.name, dataTypeName(t));
    for (int o : same) {
        if (o < 0) continue;
        const auto& w = ctx.value(o);
        if (w.dtype != t)
            unsupported(n, "tensor '{}' is {} but '{}' is {}; the kernel needs one element type", w.name,
                        dataTypeName(w.dtype), v.name, dataTypeName(t));
    }
    return t;
}

Tensor toFloat32(const Tensor& t) {
    if (t.dtype() != DataType::Float16) return t;
    Tensor f(DataType::Float32, t.shape());
    const uint16_t* ph = t.as<uint16_t>();
    float* pf = f.as<float>();
    for (int64_t i = 0, count = t.elementCount(); i < count; ++i) pf[i] = halfToFloat(ph[i]);
    return f;
}

Tensor narrowFromFloat32(const Tensor& t, DataType type) {
    if (type != DataType::Float16 || t.dtype() != DataType::Float32) return t;
    Tensor h(DataType::Float16, t.shape());
    const float* pf = t.as<float>();
    uint16_t* ph = h.as<uint16_t>();
    for (int64_t i = 0, count = t.elementCount(); i < count; ++i) ph[i] = floatToHalf(pf[i]);
    return h;
}

Tensor reshapeCopy(const Tensor& t, const Shape& shape) {
    Tensor out = t;
    out.reshape(shape);
    return out;
}

int64_t splitKChunk(int64_t tiles, int64_t K, int64_t kTileK, int64_t kSplitTargetGroups) {
    constexpr int64_t kMinSplitK = 64, kMaxSplits = 32;
    // (tiles is 0 for an empty output: a batch of 0 divided by zero here.)
    if (tiles <= 0 || tiles * 2 > kSplitTargetGroups || K < 2 * kMinSplitK) return K;
    int64_t splits = std::min({(kSplitTargetGroups + tiles - 1) / tiles, K / kMinSplitK, kMaxSplits});
    return ((K + splits - 1) / splits + kTileK - 1) / kTileK * kTileK;
}

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

int64_t parallelSiblings(const LowerContext& ctx, const Node& n, int input) {
    const graph::Graph& g = ctx.graph();
    const auto readers = g.consumers(input);
    const int64_t branches =
        std::count_if(readers.begin(), readers.end(), [&](int c) { return g.nodes[c].opType != "Concat"; });
    int64_t slices = 1;
    const int host = ctx.storedIn(n.outputs[0]);
    if (host >= 0 && g.values[host].producer >= 0)
        for (int sibling : g.nodes[g.values[host].producer].inputs)
            slices += sibling != n.outputs[0] && !ordered(g, sibling, ctx.node());
    if (branches < 3 && slices == 1) return 1;
    return std::max(branches, slices);
}

bool hasParallelSiblings(const LowerContext& ctx, const Node& n, int input) {
    return parallelSiblings(ctx, n, input) > 1;
}

}  // namespace vkinfer::ops
