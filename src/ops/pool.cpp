// MaxPool, AveragePool (1-D, 2-D and 3-D: pads, auto_pad, ceil_mode, dilations,
// count_include_pad; MaxPool on uint8 and its Indices output with storage_order) and
// GlobalAveragePool / GlobalMaxPool.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <type_traits>

#include "kernels/families/global_pool.h"
#include "kernels/families/pool2d.h"
#include "kernels/families/pool_nd.h"
#include "ops/activation.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

// Spatial axes padded to three (D, H, W; leading unit axes for 1-D and 2-D pooling).
struct PoolGeom {
    int64_t NC, D, H, W, OD, OH, OW, KD, KH, KW, SD, SH, SW, DD, DH, DW;
    int64_t padF, padT, padL, padBk, padB, padR;  // begin (front, top, left) and end pads
    size_t sp;                                     // the node's spatial rank
};

int64_t pooledSize(int64_t in, int64_t k, int64_t s, int64_t d, int64_t padBegin, int64_t padEnd, bool ceilMode) {
    int64_t span = in + padBegin + padEnd - ((k - 1) * d + 1);
    int64_t out = (ceilMode ? (span + s - 1) / s : span / s) + 1;
    // A window that would start inside the end padding is dropped (PyTorch and ONNX agree).
    if (ceilMode && (out - 1) * s >= in + padBegin) --out;
    return out;
}

PoolGeom poolGeometry(const Node& n, const Shape& x) {
    if (x.size() < 3 || x.size() > 5)
        unsupported(n, "only 1-D, 2-D and 3-D pooling is supported (input shape {})", shapeToString(x));
    const size_t sp = x.size() - 2;
    auto k = n.attrInts("kernel_shape");
    if (k.size() != sp) shapeError(n, "kernel_shape must have {} values", sp);
    auto s = n.attrInts("strides", std::vector<int64_t>(sp, 1));
    auto d = n.attrInts("dilations", std::vector<int64_t>(sp, 1));
    auto pads = n.attrInts("pads", std::vector<int64_t>(2 * sp, 0));
    if (s.size() != sp || d.size() != sp || pads.size() != 2 * sp)
        shapeError(n, "strides/dilations/pads have the wrong length for {}-D pooling", sp);
    checkGeometry(n, "kernel_shape", k, 1);
    checkGeometry(n, "strides", s, 1);
    checkGeometry(n, "dilations", d, 1);
    checkGeometry(n, "pads", pads, 0);
    std::string autoPad = n.attrString("auto_pad", "NOTSET");
    bool ceilMode = n.attrInt("ceil_mode", 0) != 0;
    // Per axis (padded to three): in, kernel, stride, dilation, begin/end pads, output.
    int64_t in[3] = {1, 1, 1}, kk[3] = {1, 1, 1}, ss[3] = {1, 1, 1}, dd[3] = {1, 1, 1}, b[3] = {0, 0, 0},
            e[3] = {0, 0, 0}, out[3] = {1, 1, 1};
    for (size_t i = 0; i < sp; ++i) {
        size_t a = 3 - sp + i;
        in[a] = x[2 + i];
        kk[a] = k[i];
        ss[a] = s[i];
        dd[a] = d[i];
        if (kk[a] <= 0 || ss[a] <= 0 || dd[a] <= 0) shapeError(n, "kernel, strides and dilations must be positive");
        if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            out[a] = (in[a] + ss[a] - 1) / ss[a];
            int64_t total = std::max<int64_t>(0, (out[a] - 1) * ss[a] + (kk[a] - 1) * dd[a] + 1 - in[a]);
            b[a] = autoPad == "SAME_UPPER" ? total / 2 : total - total / 2;
            e[a] = total - b[a];
            continue;
        }
        if (autoPad != "VALID") {
            b[a] = pads[i];
            e[a] = pads[i + sp];
        }
        out[a] = pooledSize(in[a], kk[a], ss[a], dd[a], b[a], e[a], ceilMode);
    }
    PoolGeom g{x[0] * x[1], in[0], in[1], in[2], out[0], out[1], out[2], kk[0], kk[1], kk[2], ss[0], ss[1], ss[2],
               dd[0],       dd[1], dd[2], b[0],  b[1],   b[2],   e[0],   e[1],   e[2],  sp};
    if (g.OD <= 0 || g.OH <= 0 || g.OW <= 0)
        shapeError(n, "the window does not fit the padded input {}", shapeToString(x));
    return g;
}

Shape pooledShape(const Shape& x, const PoolGeom& g) {
    Shape s{x[0], x[1]};
    const int64_t out[3] = {g.OD, g.OH, g.OW};
    for (size_t a = 3 - g.sp; a < 3; ++a) s.push_back(out[a]);
    return s;
}

bool wantsIndices(const Node& n) { return n.outputs.size() > 1 && n.outputs[1] >= 0; }

template <bool IsMax>
void inferPool(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    // MaxPool also takes 8-bit integers (pool_nd.comp's u8 variant); averages are float only.
    if (x.dtype != DataType::Float32 && !(IsMax && x.dtype == DataType::UInt8)) requireFloat(g, n, 0);
    Shape out = pooledShape(x.shape, poolGeometry(n, x.shape));
    setOutput(g, n, 0, x.dtype, out);
    if (wantsIndices(n)) setOutput(g, n, 1, DataType::Int64, out);
}

template <class T, bool IsMax>
void evalPoolTyped(const Node& n, const PoolGeom& g, const Tensor& in, std::span<Tensor> out) {
    bool includePad = n.attrInt("count_include_pad", 0) != 0;
    bool colMajor = n.attrInt("storage_order", 0) != 0;
    const T* x = in.as<T>();
    T* y = out[0].as<T>();
    int64_t* ind = wantsIndices(n) ? out[1].as<int64_t>() : nullptr;
    int64_t o = 0;
    for (int64_t nc = 0; nc < g.NC; ++nc)
        for (int64_t oz = 0; oz < g.OD; ++oz)
            for (int64_t oy = 0; oy < g.OH; ++oy)
                for (int64_t ox = 0; ox < g.OW; ++ox, ++o) {
                    double acc = 0.0;
                    bool found = false;
                    int64_t count = 0, best = 0;
                    for (int64_t kz = 0; kz < g.KD; ++kz)
                        for (int64_t ky = 0; ky < g.KH; ++ky)
                            for (int64_t kx = 0; kx < g.KW; ++kx) {
                                int64_t iz = oz * g.SD - g.padF + kz * g.DD, iy = oy * g.SH - g.padT + ky * g.DH,
                                        ix = ox * g.SW - g.padL + kx * g.DW;
                                if (iz >= 0 && iz < g.D && iy >= 0 && iy < g.H && ix >= 0 && ix < g.W) {
                                    int64_t at = ((nc * g.D + iz) * g.H + iy) * g.W + ix;
                                    double v = static_cast<double>(x[at]);
                                    if (IsMax) {
                                        // The first NaN wins and stays (v > NaN is false).
                                        if (!found || v > acc || (std::isnan(v) && !std::isnan(acc))) {
                                            acc = v;
                                            best = colMajor ? ((nc * g.D + iz) * g.W + ix) * g.H + iy : at;
                                        }
                                        found = true;
                                    } else {
                                        acc += v;
                                    }
                                    ++count;
                                } else if (includePad && iz < g.D + g.padBk && iy < g.H + g.padB && ix < g.W + g.padR) {
                                    ++count;
                                }
                            }
                    if (IsMax && !found) acc = std::is_same_v<T, float> ? -FLT_MAX : 0.0;
                    if (!IsMax) acc = count ? acc / static_cast<double>(count) : 0.0;
                    if constexpr (std::is_same_v<T, float>)
                        y[o] = applyActivation(n.activation, static_cast<float>(acc));
                    else
                        y[o] = static_cast<T>(acc);
                    if (ind) ind[o] = best;
                }
}

template <bool IsMax>
void evalPool(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    PoolGeom g = poolGeometry(n, in[0]->shape());
    if (in[0]->dtype() == DataType::UInt8) evalPoolTyped<uint8_t, IsMax>(n, g, *in[0], out);
    else evalPoolTyped<float, IsMax>(n, g, *in[0], out);
}

// 1-D and 2-D float pooling without indices: pool2d.comp.
void emitPool2d(LowerContext& ctx, const Node& n, const PoolGeom& g, bool isMax) {
    Dispatch& d = ctx.emit(typedKernel(n, kernels::pool2d::variant(ctx.value(n.inputs[0]).dtype), "pool2d", ctx.value(n.inputs[0]).dtype));
    setActivation(d, n.activation);
    d.setSpec(kernels::pool2d::kIsMax, isMax ? 1 : 0);
    d.setSpec(kernels::pool2d::kCountIncludePad, n.attrInt("count_include_pad", 0) != 0 ? 1 : 0);
    kernels::pool2d::Push p{};
    p.NC = u32(g.NC);
    p.H = u32(g.H);
    p.W = u32(g.W);
    p.OH = u32(g.OH);
    p.OW = u32(g.OW);
    p.KH = u32(g.KH);
    p.KW = u32(g.KW);
    p.SH = u32(g.SH);
    p.SW = u32(g.SW);
    p.padH = u32(g.padT);
    p.padW = u32(g.padL);
    p.DH = u32(g.DH);
    p.DW = u32(g.DW);
    p.padBottom = u32(g.padB);
    p.padRight = u32(g.padR);
    d.setPush(p);
    setLaunch1d(d, g.NC * g.OH * g.OW, 64);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0])};
}

template <bool IsMax>
void lowerPool(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[0]);
    PoolGeom g = poolGeometry(n, x.shape);
    int64_t count = g.NC * g.OD * g.OH * g.OW;
    requireIndexable(n, std::max(count, x.elementCount()));
    const bool indices = IsMax && wantsIndices(n);
    bool isFloat = x.dtype == DataType::Float32 || x.dtype == DataType::Float16;
    if (g.sp <= 2 && isFloat && !indices) return emitPool2d(ctx, n, g, IsMax);
    // 3-D windows, uint8 data or the Indices output: pool_nd.comp.
    Dispatch& d = ctx.emit(typedKernel(
        n, kernels::pool_nd::variant(indices ? kernels::pool_nd::Indices::idx : kernels::pool_nd::Indices::none, x.dtype),
        "pool_nd", x.dtype));
    setActivation(d, n.activation);
    d.setSpec(kernels::pool_nd::kIsMax, IsMax ? 1 : 0);
    d.setSpec(kernels::pool_nd::kCountIncludePad, n.attrInt("count_include_pad", 0) != 0 ? 1 : 0);
    d.setSpec(kernels::pool_nd::kStorageOrder, n.attrInt("storage_order", 0) != 0 ? 1 : 0);
    kernels::pool_nd::Push p{};
    p.NC = u32(g.NC);
    p.D = u32(g.D);
    p.H = u32(g.H);
    p.W = u32(g.W);
    p.OD = u32(g.OD);
    p.OH = u32(g.OH);
    p.OW = u32(g.OW);
    p.KD = u32(g.KD);
    p.KH = u32(g.KH);
    p.KW = u32(g.KW);
    p.SD = u32(g.SD);
    p.SH = u32(g.SH);
    p.SW = u32(g.SW);
    p.DD = u32(g.DD);
    p.DH = u32(g.DH);
    p.DW = u32(g.DW);
    p.padD = u32(g.padF);
    p.padH = u32(g.padT);
    p.padW = u32(g.padL);
    p.endD = u32(g.D + g.padBk);
    p.endH = u32(g.H + g.padB);
    p.endW = u32(g.W + g.padR);
    d.setPush(p);
    setLaunch1d(d, count, 64);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0])};
    if (indices) d.bindings.push_back(writeOf(n.outputs[1]));
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
        // Max from -inf (a plane of -inf is -inf, not -FLT_MAX), keeping a NaN.
        double acc = IsMax ? -INFINITY : 0.0;
        for (int64_t i = 0; i < hw; ++i) {
            double v = x[p * hw + i];
            acc = !IsMax ? acc + v : (std::isnan(acc) || !(std::isnan(v) || v > acc)) ? acc : v;
        }
        out[0].as<float>()[p] = applyActivation(n.activation, static_cast<float>(IsMax ? acc : acc / hw));
    }
}

template <bool IsMax>
void lowerGlobalPool(LowerContext& ctx, const Node& n) {
    const Shape& s = ctx.value(n.inputs[0]).shape;
    int64_t nc = s[0] * s[1], hw = ctx.value(n.inputs[0]).elementCount() / std::max<int64_t>(nc, 1);
    requireIndexable(n, ctx.value(n.inputs[0]).elementCount());
    const DataType type = floatKernelType(ctx, n, n.inputs[0], {n.outputs[0]});
    Dispatch& d = ctx.emit(typedKernel(n, kernels::global_pool::variant(type), "global_pool", type));
    setActivation(d, n.activation);
    d.setSpec(kernels::global_pool::kIsMax, IsMax ? 1 : 0);
    // Channels-last input (ops::chooseChannelsLast keeps a conv's output so for a global pool).
    const bool nhwc = ctx.channelsLast(n.inputs[0]);
    kernels::global_pool::Push p{};
    p.NC = static_cast<uint32_t>(nc);
    p.HW = static_cast<uint32_t>(hw);
    p.C = static_cast<uint32_t>(s[1]);
    p.nhwc = nhwc ? 1u : 0u;
    d.setPush(p);
    d.localSize = {64, 1, 1};
    d.groups = nc <= 65535 ? std::array<uint32_t, 3>{static_cast<uint32_t>(nc), 1, 1}
                           : std::array<uint32_t, 3>{65535u, ceilDiv(nc, 65535), 1};
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0])};
}

}  // namespace

void registerPoolOps(std::vector<OpDef>& t) {
    t.push_back(withFp16({"MaxPool", 1, 1000, inferPool<true>, evalPool<true>, lowerPool<true>}));
    t.push_back(withFp16({"AveragePool", 1, 1000, inferPool<false>, evalPool<false>, lowerPool<false>}));
    t.push_back(withFp16(
        {"GlobalAveragePool", 1, 1000, inferGlobalPool<false>, evalGlobalPool<false>, lowerGlobalPool<false>}));
    t.push_back(
        withFp16({"GlobalMaxPool", 1, 1000, inferGlobalPool<true>, evalGlobalPool<true>, lowerGlobalPool<true>}));
}

}  // namespace vkinfer::ops
