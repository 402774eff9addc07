// MaxPool, AveragePool (1-D and 2-D: pads, auto_pad, ceil_mode, dilations,
// count_include_pad) and GlobalAveragePool / GlobalMaxPool.
#include <cfloat>

#include "ops/activation.h"
#include "ops/op_util.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

struct PoolGeom {
    int64_t NC, H, W, OH, OW, KH, KW, SH, SW, DH, DW, padT, padL, padB, padR;
};

int64_t pooledSize(int64_t in, int64_t k, int64_t s, int64_t d, int64_t padBegin, int64_t padEnd, bool ceilMode) {
    int64_t span = in + padBegin + padEnd - ((k - 1) * d + 1);
    int64_t out = (ceilMode ? (span + s - 1) / s : span / s) + 1;
    // A window that would start inside the end padding is dropped (PyTorch and ONNX agree).
    if (ceilMode && (out - 1) * s >= in + padBegin) --out;
    return out;
}

PoolGeom poolGeometry(const Node& n, const Shape& x, bool isMax) {
    if (x.size() != 3 && x.size() != 4)
        unsupported(n, "only 1-D and 2-D pooling is supported (input shape {})", shapeToString(x));
    const bool oneD = x.size() == 3;
    const size_t sp = oneD ? 1 : 2;
    auto k = n.attrInts("kernel_shape");
    if (k.size() != sp) shapeError(n, "kernel_shape must have {} values", sp);
    auto s = n.attrInts("strides", std::vector<int64_t>(sp, 1));
    auto d = n.attrInts("dilations", std::vector<int64_t>(sp, 1));
    auto pads = n.attrInts("pads", std::vector<int64_t>(2 * sp, 0));
    if (s.size() != sp || d.size() != sp || pads.size() != 2 * sp)
        shapeError(n, "strides/dilations/pads have the wrong length for {}-D pooling", sp);
    if (!isMax && (d[0] != 1 || d.back() != 1)) unsupported(n, "dilated AveragePool is not supported");
    PoolGeom g{};
    g.NC = x[0] * x[1];
    g.H = oneD ? 1 : x[2];
    g.W = x.back();
    g.KH = oneD ? 1 : k[0];
    g.KW = k.back();
    g.SH = oneD ? 1 : s[0];
    g.SW = s.back();
    g.DH = oneD ? 1 : d[0];
    g.DW = d.back();
    if (g.SH <= 0 || g.SW <= 0 || g.KH <= 0 || g.KW <= 0) shapeError(n, "kernel and strides must be positive");
    std::string autoPad = n.attrString("auto_pad", "NOTSET");
    bool ceilMode = n.attrInt("ceil_mode", 0) != 0;
    auto axis = [&](int64_t in, int64_t kk, int64_t ss, int64_t dd, int64_t pb, int64_t pe, int64_t* b, int64_t* e,
                    int64_t* out) {
        if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            *out = (in + ss - 1) / ss;
            int64_t total = std::max<int64_t>(0, (*out - 1) * ss + (kk - 1) * dd + 1 - in);
            *b = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            *e = total - *b;
            return;
        }
        if (autoPad == "VALID") pb = pe = 0;
        *b = pb;
        *e = pe;
        *out = pooledSize(in, kk, ss, dd, pb, pe, ceilMode);
    };
    if (oneD) {
        g.padT = g.padB = 0;
        g.OH = 1;
        axis(g.W, g.KW, g.SW, g.DW, pads[0], pads[1], &g.padL, &g.padR, &g.OW);
    } else {
        axis(g.H, g.KH, g.SH, g.DH, pads[0], pads[2], &g.padT, &g.padB, &g.OH);
        axis(g.W, g.KW, g.SW, g.DW, pads[1], pads[3], &g.padL, &g.padR, &g.OW);
    }
    if (g.OH <= 0 || g.OW <= 0) shapeError(n, "the window does not fit the padded input {}", shapeToString(x));
    return g;
}

Shape pooledShape(const Shape& x, const PoolGeom& g) {
    return x.size() == 3 ? Shape{x[0], x[1], g.OW} : Shape{x[0], x[1], g.OH, g.OW};
}

template <bool IsMax>
void inferPool(Graph& g, const Node& n) {
    requireFloat(g, n, 0);
    if (n.outputs.size() > 1 && n.outputs[1] >= 0) unsupported(n, "the Indices output of MaxPool is not supported");
    const Shape& x = inputShape(g, n, 0);
    setOutput(g, n, 0, DataType::Float32, pooledShape(x, poolGeometry(n, x, IsMax)));
}

template <bool IsMax>
void evalPool(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    PoolGeom g = poolGeometry(n, in[0]->shape(), IsMax);
    bool includePad = n.attrInt("count_include_pad", 0) != 0;
    const float* x = in[0]->as<float>();
    float* y = out[0].as<float>();
    for (int64_t nc = 0; nc < g.NC; ++nc)
        for (int64_t oy = 0; oy < g.OH; ++oy)
            for (int64_t ox = 0; ox < g.OW; ++ox) {
                double acc = IsMax ? -FLT_MAX : 0.0;
                int64_t count = 0;
                for (int64_t ky = 0; ky < g.KH; ++ky)
                    for (int64_t kx = 0; kx < g.KW; ++kx) {
                        int64_t iy = oy * g.SH - g.padT + ky * g.DH, ix = ox * g.SW - g.padL + kx * g.DW;
                        if (iy >= 0 && iy < g.H && ix >= 0 && ix < g.W) {
                            double v = x[(nc * g.H + iy) * g.W + ix];
                            acc = IsMax ? std::max(acc, v) : acc + v;
                            ++count;
                        } else if (includePad && iy < g.H + g.padB && ix < g.W + g.padR) {
                            ++count;
                        }
                    }
                if (!IsMax) acc = count ? acc / static_cast<double>(count) : 0.0;
                y[(nc * g.OH + oy) * g.OW + ox] = applyActivation(n.activation, static_cast<float>(acc));
            }
}

template <bool IsMax>
void lowerPool(LowerContext& ctx, const Node& n) {
    PoolGeom g = poolGeometry(n, ctx.value(n.inputs[0]).shape, IsMax);
    int64_t count = g.NC * g.OH * g.OW;
    requireIndexable(n, std::max(count, ctx.value(n.inputs[0]).elementCount()));
    Dispatch& d = ctx.emit("pool2d");
    setActivation(d, n.activation);
    d.spec.push_back(IsMax ? 1 : 0);
    d.spec.push_back(n.attrInt("count_include_pad", 0) != 0 ? 1 : 0);
    struct {
        uint32_t NC, H, W, OH, OW, KH, KW, SH, SW, padH, padW, DH, DW, padBottom, padRight;
    } p{u32(g.NC), u32(g.H),    u32(g.W),    u32(g.OH), u32(g.OW), u32(g.KH),   u32(g.KW),  u32(g.SH),
        u32(g.SW), u32(g.padT), u32(g.padL), u32(g.DH), u32(g.DW), u32(g.padB), u32(g.padR)};
    d.setPush(p);
    d.localSize = {64, 1, 1};
    d.groups = grid1d(count, 64);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0])};
}

template <bool IsMax>
void inferGlobalPool(Graph& g, const Node& n) {
    requireFloat(g, n, 0);
    Shape s = inputShape(g, n, 0);
    if (s.size() < 3) shapeError(n, "input must have spatial dimensions, got {}", shapeToString(s));
    for (size_t i = 2; i < s.size(); ++i) s[i] = 1;
    setOutput(g, n, 0, DataType::Float32, s);
}

template <bool IsMax>
void evalGlobalPool(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Shape& s = in[0]->shape();
    int64_t nc = s[0] * s[1], hw = in[0]->elementCount() / std::max<int64_t>(nc, 1);
    const float* x = in[0]->as<float>();
    for (int64_t p = 0; p < nc; ++p) {
        double acc = IsMax ? -FLT_MAX : 0.0;
        for (int64_t i = 0; i < hw; ++i) acc = IsMax ? std::max(acc, static_cast<double>(x[p * hw + i])) : acc + x[p * hw + i];
        out[0].as<float>()[p] = applyActivation(n.activation, static_cast<float>(IsMax ? acc : acc / hw));
    }
}

template <bool IsMax>
void lowerGlobalPool(LowerContext& ctx, const Node& n) {
    const Shape& s = ctx.value(n.inputs[0]).shape;
    int64_t nc = s[0] * s[1], hw = ctx.value(n.inputs[0]).elementCount() / std::max<int64_t>(nc, 1);
    requireIndexable(n, ctx.value(n.inputs[0]).elementCount());
    Dispatch& d = ctx.emit("global_pool");
    setActivation(d, n.activation);
    d.spec.push_back(IsMax ? 1 : 0);
    struct {
        uint32_t NC, HW;
    } p{static_cast<uint32_t>(nc), static_cast<uint32_t>(hw)};
    d.setPush(p);
    d.localSize = {64, 1, 1};
    d.groups = nc <= 65535 ? std::array<uint32_t, 3>{static_cast<uint32_t>(nc), 1, 1}
                           : std::array<uint32_t, 3>{65535u, ceilDiv(nc, 65535), 1};
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0])};
}

}  // namespace

void registerPoolOps(std::vector<OpDef>& t) {
    t.push_back({"MaxPool", 1, 1000, inferPool<true>, evalPool<true>, lowerPool<true>});
    t.push_back({"AveragePool", 1, 1000, inferPool<false>, evalPool<false>, lowerPool<false>});
    t.push_back({"GlobalAveragePool", 1, 1000, inferGlobalPool<false>, evalGlobalPool<false>, lowerGlobalPool<false>});
    t.push_back({"GlobalMaxPool", 1, 1000, inferGlobalPool<true>, evalGlobalPool<true>, lowerGlobalPool<true>});
}

}  // namespace vkinfer::ops
