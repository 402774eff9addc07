// Concat. Each input is a part of the output along the axis, read as it is or through the
// strided window that passes/concat_views.h folded into the node (Node::inputViews: a
// torch.roll's Slices, Swin's patch-merging quarters, a Transpose). Inputs their producers
// wrote in place (plan/compile.cpp) need nothing; the others go in one dispatch of
// concat_parts.comp where it can take them, else one strided copy each.
#include "kernels/families/concat_parts.h"
#include "ops/broadcast.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"
#include "ops/strided_view.h"

namespace vkinfer::ops {

namespace {

void inferConcat(Graph& g, const Node& n) {
    if (n.inputs.empty()) shapeError(n, "Concat needs at least one input");
    const auto& first = inputValue(g, n, 0);
    Shape out = first.shape;
    int64_t axis = normalizeAxis(n, n.attrInt("axis", 0), static_cast<int64_t>(out.size()));
    out[axis] = 0;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
        const auto& v = inputValue(g, n, i);
        if (v.dtype != first.dtype) shapeError(n, "input {} is {}, input 0 is {}", i, dataTypeName(v.dtype), dataTypeName(first.dtype));
        if (v.shape.size() != out.size()) shapeError(n, "input {} has rank {}, input 0 has rank {}", i, v.shape.size(), out.size());
        for (size_t d = 0; d < out.size(); ++d)
            if (static_cast<int64_t>(d) != axis && v.shape[d] != first.shape[d])
                shapeError(n, "input {} has shape {}, incompatible with {} off axis {}", i, shapeToString(v.shape),
                           shapeToString(first.shape), axis);
        out[axis] += v.shape[axis];
    }
    setOutput(g, n, 0, first.dtype, out);
}

void evalConcat(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Shape& shape = out[0].shape();
    const int64_t axis = normalizeAxis(n, n.attrInt("axis", 0), static_cast<int64_t>(shape.size()));
    const std::vector<int64_t> outStride = contiguousStrides(shape);
    int64_t at = 0;
    for (const Tensor* t : in) {
        stridedCopyCpu(*t, out[0], t->shape(), contiguousStrides(t->shape()), outStride, 0, at * outStride[axis]);
        at += t->shape()[axis];
    }
}

// Input `value` read through `view` into the output's axis coordinates [begin, begin + extent).
struct ConcatPart {
    int value;
    graph::StridedView view;
    int64_t begin;
};

// Collapses dims[from, to) with every part's strides for them (and the output's contiguous
// ones), appending what remains to `dims` and each part's `strides`.
void appendCollapsed(const Shape& shape, size_t from, size_t to, const std::vector<ConcatPart>& parts, Shape& dims,
                     std::vector<std::vector<int64_t>>& strides) {
    Shape group(shape.begin() + static_cast<std::ptrdiff_t>(from), shape.begin() + static_cast<std::ptrdiff_t>(to));
    if (group.empty()) return;
    std::vector<int64_t> outStride = contiguousStrides(group);
    std::vector<std::vector<int64_t>> partStride;
    for (const ConcatPart& p : parts)
        partStride.emplace_back(p.view.stride.begin() + static_cast<std::ptrdiff_t>(from),
                                p.view.stride.begin() + static_cast<std::ptrdiff_t>(to));
    std::vector<std::vector<int64_t>*> all{&outStride};
    for (auto& s : partStride) all.push_back(&s);
    collapseDims(group, all);
    if (group == Shape{1}) return;  // every dim of the group had extent 1
    dims.insert(dims.end(), group.begin(), group.end());
    for (size_t j = 0; j < parts.size(); ++j) strides[j].insert(strides[j].end(), partStride[j].begin(), partStride[j].end());
}

// Every part of the output in one dispatch of concat_parts.comp; false where that kernel cannot
// take them (more than four parts or dimensions, a conversion, 1- or 8-byte elements).
bool emitConcatParts(LowerContext& ctx, const Node& n, const std::vector<ConcatPart>& parts, int out, int64_t axis) {
    namespace kc = kernels::concat_parts;
    constexpr size_t kParts = 4, kRank = 4;
    const auto& o = ctx.value(out);
    const size_t elemSize = dataTypeSize(o.dtype);
    if (parts.size() < 2 || parts.size() > kParts || (elemSize != 2 && elemSize != 4)) return false;
    for (const ConcatPart& p : parts)
        if (ctx.value(p.value).dtype != o.dtype) return false;

    const size_t rank = o.shape.size(), a = static_cast<size_t>(axis);
    Shape dims;
    std::vector<std::vector<int64_t>> strides(parts.size());
    appendCollapsed(o.shape, 0, a, parts, dims, strides);
    const size_t axisAt = dims.size();
    dims.push_back(o.shape[a]);
    for (size_t j = 0; j < parts.size(); ++j) strides[j].push_back(parts[j].view.stride[a]);
    appendCollapsed(o.shape, a + 1, rank, parts, dims, strides);
    if (dims.size() > kRank) return false;

    const int64_t count = elementCount(o.shape);
    requireIndexable(n, count);
    kc::Push p{};
    p.count = static_cast<uint32_t>(count);
    p.rank = static_cast<uint32_t>(dims.size());
    p.axis = static_cast<uint32_t>(axisAt);
    p.parts = static_cast<uint32_t>(parts.size());
    for (size_t d = 0; d < dims.size(); ++d) p.dims[d] = static_cast<uint32_t>(dims[d]);
    for (size_t j = 0; j < parts.size(); ++j) {
        requireIndexable(n, ctx.value(parts[j].value).shape.empty() ? 1 : elementCount(ctx.value(parts[j].value).shape));
        p.partEnd[j] = static_cast<uint32_t>(parts[j].begin + parts[j].view.shape[a]);
        p.inOffset[j] = static_cast<uint32_t>(parts[j].view.offset);
        for (size_t d = 0; d < dims.size(); ++d) p.inStride[j * kRank + d] = static_cast<uint32_t>(strides[j][d]);
    }
    Dispatch& d = ctx.emit(kc::variant(elemSize == 2 ? kc::Elem::b16 : kc::Elem::b32));
    d.setPush(p);
    setLaunch1d(d, count);
    d.bindings = {writeOf(out)};
    for (size_t j = 0; j < kParts; ++j) d.bindings.push_back(readOf(parts[j < parts.size() ? j : 0].value));
    return true;
}

void lowerConcat(LowerContext& ctx, const Node& n) {
    const int out = n.outputs[0];
    const auto& o = ctx.value(out);
    const int64_t axis = normalizeAxis(n, n.attrInt("axis", 0), static_cast<int64_t>(o.shape.size()));
    const std::vector<int64_t> outStride = contiguousStrides(o.shape);
    const size_t elemSize = dataTypeSize(o.dtype);
    std::vector<ConcatPart> parts;
    bool someInPlace = false;
    int64_t at = 0;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
        const int in = n.inputs[i];
        graph::StridedView view = n.inputView(i);
        const bool folded = !view.empty();
        if (!folded) view = contiguousView(ctx.value(in).shape);
        const int64_t begin = at;
        at += view.shape[static_cast<size_t>(axis)];
        if (elementCount(view.shape) == 0) continue;
        // Its producer wrote it in place.
        if (!folded && ctx.storedAt(in, out, begin * outStride[static_cast<size_t>(axis)] * static_cast<int64_t>(elemSize))) {
            someInPlace = true;
            continue;
        }
        parts.push_back({in, std::move(view), begin});
    }
    if (!someInPlace && emitConcatParts(ctx, n, parts, out, axis)) return;
    for (const ConcatPart& p : parts)
        emitStridedCopy(ctx, n, p.value, out, p.view.shape, p.view.stride, outStride, p.view.offset,
                        p.begin * outStride[static_cast<size_t>(axis)], elemSize);
}

}  // namespace

void registerConcatOps(std::vector<OpDef>& t) {
    // Concat moves bytes of any element type: fp16-capable.
    t.push_back(withFp16({"Concat", 1, 1000, inferConcat, evalConcat, lowerConcat}));
}

}  // namespace vkinfer::ops
