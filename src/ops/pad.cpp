// Pad: modes constant (value from the opset-2 attribute or the opset-11 input), edge,
// reflect and wrap; pads as the opset-2 attribute or the opset-11 input, opset-18 axes;
// negative pads crop. Any element type (the kernel moves bytes; the constant travels as
// the element's raw bits). One kernel (pad.comp) resolves every output element's source.
#include <algorithm>
#include <cstring>

#include "kernels/families/pad.h"
#include "core/half.h"
#include "ops/broadcast.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

enum class PadMode : uint32_t { Constant = 0, Edge = 1, Reflect = 2, Wrap = 3 };

struct PadSpec {
    std::vector<int64_t> begin, end;  // per input dimension (negative: crop)
    Shape out;
    PadMode mode = PadMode::Constant;
    uint64_t valueBits = 0;  // the constant, as the element's bytes (little-endian)
};

PadSpec padSpec(const Node& n, const Shape& in, DataType type, const Tensor* padsT, const Tensor* valueT,
                const Tensor* axesT) {
    const int64_t rank = static_cast<int64_t>(in.size());
    PadSpec s;
    std::string mode = n.attrString("mode", "constant");
    if (mode == "constant")
        s.mode = PadMode::Constant;
    else if (mode == "edge")
        s.mode = PadMode::Edge;
    else if (mode == "reflect")
        s.mode = PadMode::Reflect;
    else if (mode == "wrap")
        s.mode = PadMode::Wrap;
    else
        unsupported(n, "mode '{}' is not supported (constant, edge, reflect, wrap)", mode);

    std::vector<int64_t> pads, axes;
    Tensor value(type, {});
    if (n.hasAttr("pads") || n.hasAttr("paddings")) {  // opset 1-10
        pads = n.hasAttr("pads") ? n.attrInts("pads") : n.attrInts("paddings");
        float v = n.attrFloat("value", 0.0f);
        if (type == DataType::Float32)
            std::memcpy(value.data(), &v, 4);
        else if (type == DataType::Float16)
            value.as<uint16_t>()[0] = floatToHalf(v);
        else if (v != 0.0f)
            unsupported(n, "a non-zero value attribute on {} data", dataTypeName(type));
    } else {
        if (!padsT) shapeError(n, "the pads input is required");
        pads = tensorInts(*padsT);
        if (axesT) axes = tensorInts(*axesT);
        if (valueT && valueT->elementCount() > 0) {
            if (type == DataType::Float16 && valueT->dtype() == DataType::Float32) {
                // Float16 precision (passes/precision.cpp) keeps the constant float32: narrow it.
                value.as<uint16_t>()[0] = floatToHalf(valueT->as<float>()[0]);
            } else if (type == DataType::Float32 && valueT->dtype() == DataType::Float16) {
                // A float16 Pad whose Cast to float32 was folded into it (passes/cast_folding.h).
                float v = halfToFloat(valueT->as<uint16_t>()[0]);
                std::memcpy(value.data(), &v, 4);
            } else if (valueT->dtype() != type) {
                shapeError(n, "constant_value is {}, data is {}", dataTypeName(valueT->dtype()), dataTypeName(type));
            } else {
                std::memcpy(value.data(), valueT->data(), dataTypeSize(type));
            }
        }
    }
    std::memcpy(&s.valueBits, value.data(), std::min<size_t>(value.byteSize(), 8));
    if (axes.empty())
        for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
    if (pads.size() != 2 * axes.size()) shapeError(n, "pads has {} entries for {} axes", pads.size(), axes.size());
    s.begin.assign(in.size(), 0);
    s.end.assign(in.size(), 0);
    for (size_t k = 0; k < axes.size(); ++k) {
        int64_t a = normalizeAxis(n, axes[k], rank);
        s.begin[a] = pads[k];
        s.end[a] = pads[k + axes.size()];
    }
    s.out = in;
    for (size_t d = 0; d < in.size(); ++d) {
        s.out[d] = addChecked(n, addChecked(n, in[d], s.begin[d]), s.end[d]);
        if (s.out[d] < 0) shapeError(n, "pads crop axis {} of extent {} below zero", d, in[d]);
        bool padded = s.begin[d] > 0 || s.end[d] > 0;
        if (padded && in[d] == 0 && s.mode != PadMode::Constant)
            shapeError(n, "cannot {}-pad the empty axis {}", mode, d);
    }
    return s;
}

// Source coordinate along one dimension (the twin of pad.comp); -1 for the constant.
int64_t sourceCoord(PadMode mode, int64_t c, int64_t n) {
    if (c >= 0 && c < n) return c;
    switch (mode) {
        case PadMode::Constant:
            return -1;
        case PadMode::Edge:
            return std::clamp<int64_t>(c, 0, n - 1);
        case PadMode::Reflect: {
            int64_t period = std::max<int64_t>(2 * n - 2, 1);
            c = (c < 0 ? -c : c) % period;
            return c >= n ? period - c : c;
        }
        case PadMode::Wrap:
            return ((c % n) + n) % n;
    }
    return -1;
}

// `type`: of the output, in which the constant is written (the input's, unless a Cast was
// folded into the Pad: passes/cast_folding.h).
PadSpec padSpecOf(const Graph& g, const Node& n, DataType type) {
    const auto& x = inputValue(g, n, 0);
    return padSpec(n, x.shape, type, optionalConstant(g, n, 1, "pads"), optionalConstant(g, n, 2, "constant_value"),
                   optionalConstant(g, n, 3, "axes"));
}

void inferPad(Graph& g, const Node& n) {
    const DataType type = inputValue(g, n, 0).dtype;
    setOutput(g, n, 0, type, padSpecOf(g, n, type).out);
}

void evalPad(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Tensor& x = *in[0];
    PadSpec s = padSpec(n, x.shape(), x.dtype(), optionalInput(in, 1), optionalInput(in, 2), optionalInput(in, 3));
    size_t es = dataTypeSize(x.dtype());
    auto xs = contiguousStrides(x.shape());
    std::vector<int64_t> c(s.out.size(), 0);
    for (int64_t i = 0; i < elementCount(s.out); ++i) {
        int64_t src = 0;
        for (size_t d = 0; d < s.out.size() && src >= 0; ++d) {
            int64_t k = sourceCoord(s.mode, c[d] - s.begin[d], x.shape()[d]);
            src = k < 0 ? -1 : src + k * xs[d];
        }
        if (src < 0)
            std::memcpy(out[0].data() + i * es, &s.valueBits, es);
        else
            std::memcpy(out[0].data() + i * es, x.data() + src * es, es);
        for (size_t d = s.out.size(); d-- > 0;) {
            if (++c[d] < s.out[d]) break;
            c[d] = 0;
        }
    }
}

// A Pad that adds nothing moves no element (torchvision's Swin pads each map to a multiple
// of its window and each patch merge's input to even sides; at 224 x 224 every one of them is
// already): its output is a view at offset 0. Not where a Cast was folded into it.
int64_t padViewOffset(const Graph& g, const Node& n, size_t output) {
    if (output != 0 || n.outputs.empty() || n.inputs.empty() || n.inputs[0] < 0) return -1;
    try {
        const DataType type = inputValue(g, n, 0).dtype;
        if (g.values[n.outputs[0]].dtype != type) return -1;
        const PadSpec s = padSpecOf(g, n, type);
        const auto zero = [](int64_t p) { return p == 0; };
        return std::all_of(s.begin.begin(), s.begin.end(), zero) && std::all_of(s.end.begin(), s.end.end(), zero) ? 0 : -1;
    } catch (const Error&) {
        return -1;  // pads not constant: a copy, checked when lowered
    }
}

void lowerPad(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[0]);
    const DataType outType = ctx.value(n.outputs[0]).dtype;
    PadSpec s = padSpecOf(ctx.graph(), n, outType);
    // Merge neighbouring unpadded dimensions (the kernel walks at most 6).
    Shape in, out;
    std::vector<int64_t> begin;
    for (size_t d = 0; d < x.shape.size(); ++d) {
        bool flat = s.begin[d] == 0 && s.end[d] == 0;
        bool prevFlat = !in.empty() && begin.back() == 0 && in.back() == out.back();
        if (flat && prevFlat) {
            in.back() *= x.shape[d];
            out.back() *= x.shape[d];
            continue;
        }
        in.push_back(x.shape[d]);
        out.push_back(s.out[d]);
        begin.push_back(s.begin[d]);
    }
    if (in.size() > 6) unsupported(n, "padding {} separate dimensions (the kernel walks up to 6)", in.size());
    int64_t count = elementCount(out);
    if (count == 0) return;
    // A Cast folded into the Pad converts each element (one word each).
    const FloatConversion conversion = floatConversion(x.dtype, outType);
    size_t es = conversion != FloatConversion::None ? 4 : dataTypeSize(x.dtype);
    int64_t words = es >= 4 ? static_cast<int64_t>(es / 4) : 1;
    if (es > 8 || (es > 2 && es % 4)) unsupported(n, "{}-byte elements are not supported", es);
    requireIndexable(n, std::max(count, x.elementCount()) * words);
    using kernels::pad::Elem;
    Dispatch& d = ctx.emit(kernels::pad::variant(conversion == FloatConversion::F32ToF16   ? Elem::f32_f16
                                                 : conversion == FloatConversion::F16ToF32 ? Elem::f16_f32
                                                 : es == 1                                 ? Elem::b8
                                                 : es == 2                                 ? Elem::b16
                                                                                           : Elem::b32));
    d.setSpec(kernels::pad::kMode, static_cast<uint32_t>(s.mode));
    kernels::pad::Push p{};
    p.count = u32(count);
    p.rank = u32(static_cast<int64_t>(in.size()));
    p.words = u32(words);
    p.valueLo = static_cast<uint32_t>(s.valueBits);
    p.valueHi = static_cast<uint32_t>(s.valueBits >> 32);
    auto st = contiguousStrides(in);
    for (size_t i = 0; i < in.size(); ++i) {
        p.outDims[i] = u32(out[i]);
        p.inDims[i] = u32(in[i]);
        p.begin[i] = static_cast<int32_t>(begin[i]);
        p.inStride[i] = u32(st[i]);
    }
    d.setPush(p);
    setLaunch1d(d, count * words);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0])};
}

}  // namespace

void registerPadOps(std::vector<OpDef>& t) {
    OpDef pad = withFp16({"Pad", 1, 1000, inferPad, evalPad, lowerPad});
    pad.viewOffset = padViewOffset;
    t.push_back(pad);
}

}  // namespace vkinfer::ops
