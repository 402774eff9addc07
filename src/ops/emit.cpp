#include "ops/emit.h"

#include <algorithm>

#include "kernels/families/copy_strided.h"
#include "ops/broadcast.h"

namespace vkinfer::ops {

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

FloatConversion floatConversion(DataType from, DataType to) {
    if (from == DataType::Float32 && to == DataType::Float16) return FloatConversion::F32ToF16;
    if (from == DataType::Float16 && to == DataType::Float32) return FloatConversion::F16ToF32;
    return FloatConversion::None;
}

namespace {

// Where the innermost dimension is contiguous in both tensors, its runs go as words of 16
// bytes (else 4) when every stride, both offsets and the run's length are whole words: one
// load and one store an invocation instead of one per element (ViT's [batch, tokens, 768]
// <-> [tokens, batch, 768] Transposes at batch 8 moved 2 bytes an invocation). Returns the
// unit the copy then moves, in bytes (`unit` if no wider one fits).
size_t widenContiguousRuns(Shape& dims, std::vector<int64_t>& inStride, std::vector<int64_t>& outStride,
                           int64_t& inOffset, int64_t& outOffset, size_t unit) {
    if (dims.empty() || inStride.back() != 1 || outStride.back() != 1) return unit;
    for (size_t wide : {size_t{16}, size_t{4}}) {
        if (wide <= unit) break;
        const auto g = static_cast<int64_t>(wide / unit);
        bool whole = dims.back() % g == 0 && inOffset % g == 0 && outOffset % g == 0;
        for (size_t i = 0; whole && i + 1 < dims.size(); ++i)
            whole = inStride[i] % g == 0 && outStride[i] % g == 0;
        if (!whole) continue;
        dims.back() /= g;
        for (size_t i = 0; i + 1 < dims.size(); ++i) inStride[i] /= g, outStride[i] /= g;
        inOffset /= g, outOffset /= g;
        return wide;
    }
    return unit;
}

}  // namespace

// Copies the index space `dims` (strides and offsets in elements of `elemSize` bytes).
void emitStridedCopy(LowerContext& ctx, const Node& n, int src, int dst, Shape dims, std::vector<int64_t> inStride,
                     std::vector<int64_t> outStride, int64_t inOffset, int64_t outOffset, size_t elemSize) {
    using kernels::copy_strided::Elem;
    // A Cast folded into the copy (passes/cast_folding.h): float32 <-> float16 on the way,
    // one element per invocation.
    const FloatConversion conversion = floatConversion(ctx.value(src).dtype, ctx.value(dst).dtype);
    if (conversion != FloatConversion::None) elemSize = 1;  // one element per invocation below
    if (elemSize != 1 && elemSize != 2 && elemSize % 4 != 0)
        unsupported(n, "copying {}-byte elements on the GPU is not supported", elemSize);
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
    const size_t unit = elemSize >= 4 ? 4 : elemSize;  // bytes an index of `dims` moves from here on
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
            emitStridedCopy(ctx, n, src, dst, inner, is, os, io, oo, unit);  // words done
            for (size_t i = lead; i-- > 0;) {
                if (++idx[i] < dims[i]) break;
                idx[i] = 0;
            }
        }
        return;
    }
    size_t moved = unit;
    if (conversion == FloatConversion::None) {
        moved = widenContiguousRuns(dims, inStride, outStride, inOffset, outOffset, unit);
        count = elementCount(dims);
    }
    const kernels::KernelId kernel = kernels::copy_strided::variant(
        conversion == FloatConversion::F32ToF16   ? Elem::f32_f16
        : conversion == FloatConversion::F16ToF32 ? Elem::f16_f32
        : moved == 1                              ? Elem::b8
        : moved == 2                              ? Elem::b16
        : moved == 4                              ? Elem::b32
                                                  : Elem::b128);
    kernels::copy_strided::Push p{};
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
    if (count >= kSpecializedCopyElements) {
        using namespace kernels::copy_strided;
        d.setSpec(kSpecRank, p.rank);
        const SpecId dimIds[6] = {kDim0, kDim1, kDim2, kDim3, kDim4, kDim5};
        for (size_t i = 0; i < dims.size(); ++i) d.setSpec(dimIds[i], p.dims[i]);
    }
    setLaunch1d(d, count);
    d.bindings = {writeOf(dst), readOf(src)};
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

}  // namespace vkinfer::ops
