// Conv (1-D and 2-D, groups, strides, pads, auto_pad, dilations, bias; plus the fused
// residual Add and activation). (BatchNormalization, which passes/fusion folds into Conv,
// is in normalization.cpp.)
#include <cmath>

#include "ops/activation.h"
#include "ops/conv/coopmat.h"
#include "ops/conv/geometry.h"
#include "ops/conv/register_direct.h"
#include "ops/conv/register_tiled.h"
#include "ops/conv/small_grid.h"
#include "ops/conv/split_k.h"
#include "ops/op_util.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

Shape outputShape(const ConvGeom& g, bool oneD) {
    return oneD ? Shape{g.N, g.M, g.OW} : Shape{g.N, g.M, g.OH, g.OW};
}

void inferConv(Graph& g, const Node& n) {
    requireFloat(g, n, 0);
    const Shape& x = inputShape(g, n, 0);
    ConvGeom cg = convGeometry(n, x, inputShape(g, n, 1));
    if (n.input(2) >= 0 && inputValue(g, n, 2).elementCount() != cg.M)
        shapeError(n, "bias has {} elements for {} output channels", inputValue(g, n, 2).elementCount(), cg.M);
    setOutput(g, n, 0, DataType::Float32, outputShape(cg, x.size() == 3));
}

// Naive reference. inputs[3], when present, is the fused residual.
void evalConv(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    ConvGeom g = convGeometry(n, in[0]->shape(), in[1]->shape());
    const float* x = in[0]->as<float>();
    const float* w = in[1]->as<float>();
    const float* b = in.size() > 2 && in[2] ? in[2]->as<float>() : nullptr;
    const float* r = in.size() > 3 && in[3] ? in[3]->as<float>() : nullptr;
    float* y = out[0].as<float>();
    int64_t Mg = g.M / g.groups, Cg = g.C / g.groups;
    for (int64_t bt = 0; bt < g.N; ++bt)
        for (int64_t oc = 0; oc < g.M; ++oc) {
            int64_t grp = oc / Mg;
            for (int64_t oy = 0; oy < g.OH; ++oy)
                for (int64_t ox = 0; ox < g.OW; ++ox) {
                    double acc = b ? b[oc] : 0.0;
                    for (int64_t ci = 0; ci < Cg; ++ci)
                        for (int64_t ky = 0; ky < g.KH; ++ky) {
                            int64_t iy = oy * g.SH + ky * g.DH - g.padT;
                            if (iy < 0 || iy >= g.H) continue;
                            for (int64_t kx = 0; kx < g.KW; ++kx) {
                                int64_t ix = ox * g.SW + kx * g.DW - g.padL;
                                if (ix < 0 || ix >= g.W) continue;
                                acc += static_cast<double>(x[((bt * g.C + grp * Cg + ci) * g.H + iy) * g.W + ix]) *
                                       w[((oc * Cg + ci) * g.KH + ky) * g.KW + kx];
                            }
                        }
                    int64_t idx = ((bt * g.M + oc) * g.OH + oy) * g.OW + ox;
                    if (r) acc += r[idx];
                    y[idx] = applyActivation(n.activation, static_cast<float>(acc));
                }
        }
}

struct ConvParams {
    uint32_t N, C, H, W;
    uint32_t M, OH, OW, groups;
    uint32_t KH, KW, SH, SW;
    uint32_t padH, padW, DH, DW;
    uint32_t kChunk;
    uint32_t outNhwc;  // conv2d.comp: output, residual and partial sums channels-last
};

// Whether the kernel `n` lowers to stores a fused DepthToSpace itself (conv_store.glsl).
bool storesShuffled(const LowerContext& ctx, const Node& n, const ConvGeom& g, DataType type) {
    if (useSmallConv(ctx, n, g, type) || ctx.channelsLast(n.outputs[0])) return false;
    return useCoopmatConv(ctx, n, g, type) || useRegisterDirectConv(ctx, n, g, type) ||
           useRegisterTiledConv(ctx, n, g);
}

void lowerConv(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[0]);
    ConvGeom g = convGeometry(n, x.shape, ctx.value(n.inputs[1]).shape);
    requireIndexable(n, std::max(x.elementCount(), ctx.value(n.outputs[0]).elementCount()));
    // float32, or float16 throughout (weights, bias, residual and output too).
    const DataType type = floatKernelType(ctx, n, n.inputs[0], {n.inputs[1], n.input(2), n.input(3), n.outputs[0]});
    // A fused DepthToSpace (passes/fusion.cpp): the tensor-core and register-tiled kernels
    // store each output where it goes; the others write the conv's own layout to a scratch
    // tensor that a copy then shuffles.
    if (n.depthToSpace != 0 && !storesShuffled(ctx, n, g, type)) {
        graph::Node conv = n;
        conv.depthToSpace = 0;
        conv.outputs[0] = ctx.addScratch(n.name + "_unshuffled", type, outputShape(g, false));
        lowerConv(ctx, conv);
        emitDepthToSpace(ctx, n, conv.outputs[0], n.outputs[0], n.depthToSpace, n.depthToSpaceCrd);
        return;
    }
    int bias = n.input(2);
    if (bias < 0) bias = ctx.addConstant(n.name + "_zero_bias", Tensor(type, {g.M}));
    const bool residual = n.input(3) >= 0;
    const int64_t Mg = g.M / g.groups, Cg = g.C / g.groups;
    const int64_t pixels = g.N * g.OH * g.OW;

    if (useSmallConv(ctx, n, g, type)) {
        lowerSmallConv(ctx, n, g, bias, residual ? n.inputs[3] : -1, type);
        return;
    }
    if (useCoopmatConv(ctx, n, g, type)) {
        lowerCoopmatConv(ctx, n, g, bias, residual ? n.inputs[3] : -1);
        return;
    }
    if (useRegisterDirectConv(ctx, n, g, type)) {
        lowerRegisterDirectConv(ctx, n, g, bias, residual ? n.inputs[3] : -1, type);
        return;
    }
    if (useRegisterTiledConv(ctx, n, g)) {
        lowerRegisterTiledConv(ctx, n, g, bias, residual ? n.inputs[3] : -1, type);
        return;
    }
    Dispatch* d;
    int kTable = -1;
    int64_t kChunk = Cg * g.KH * g.KW, splits = 1;
    int partial = -1;
    // The tiled kernel can write channels-last for a tensor-core conv that reads it
    // (ops/conv/layout.h); the direct kernel never gets such an output.
    const bool outNhwc = ctx.channelsLast(n.outputs[0]);
    if (usesDirectConv(g)) {
        d = &ctx.emit(typedKernel(n, std::string("conv2d_direct") + (residual ? "_res" : ""), type));
        setLaunch1d(*d, g.N * g.M * g.OH * g.OW, 64);
    } else {
        bool smallM = Mg <= 16;
        uint32_t bm = smallM ? 16 : 64, bn = smallM ? 128 : 64;
        // z holds group x m-tile; pixel tiles go along x and spill into y (see conv2d.comp).
        int64_t zTiles = g.groups * ((Mg + bm - 1) / bm);
        if (zTiles > 65535) unsupported(n, "{} groups x {} channels per group exceed the workgroup grid", g.groups, Mg);
        const int64_t pixelTiles = (pixels + bn - 1) / bn;
        if (!smallM) kChunk = splitKChunk(pixelTiles * zTiles * parallelSiblings(ctx, n, n.inputs[0]), kChunk);
        splits = (Cg * g.KH * g.KW + kChunk - 1) / kChunk;
        if (zTiles * splits > 65535) splits = 1, kChunk = Cg * g.KH * g.KW;
        kTable = ctx.addConstant(n.name + "_ktable", reductionTable(g));
        if (splits > 1)
            partial = ctx.addScratch(n.name + "_splitk", DataType::Float32,
                                     outNhwc ? Shape{splits, pixels, g.M} : Shape{splits, g.M, pixels});
        std::string kernel = std::string(smallM ? "conv2d_t16x128" : "conv2d_t64x64") +
                             (splits > 1 ? "_splitk" : residual ? "_res" : "");
        d = &ctx.emit(typedKernel(n, kernel, type));
        d->localSize = smallM ? std::array<uint32_t, 3>{32, 8, 1} : std::array<uint32_t, 3>{16, 16, 1};
        auto grid = grid1d(pixels, bn);
        d->groups = {grid[0], grid[1], static_cast<uint32_t>(zTiles * splits)};
    }
    setActivation(*d, n.activation);
    ConvParams p{u32(g.N),  u32(g.C),  u32(g.H),  u32(g.W),    u32(g.M),     u32(g.OH), u32(g.OW),
                 u32(g.groups), u32(g.KH), u32(g.KW), u32(g.SH), u32(g.SW), u32(g.padT), u32(g.padL),
                 u32(g.DH), u32(g.DW), u32(kChunk), outNhwc ? 1u : 0u};
    d->setPush(p);
    d->bindings = {writeOf(partial >= 0 ? partial : n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1]),
                   readOf(bias)};
    if (kTable >= 0) d->bindings.push_back(readOf(kTable));
    if (partial < 0) {
        if (residual) d->bindings.push_back(readOf(n.inputs[3]));
        return;
    }
    emitConvSplitKReduce(ctx, n, g, splits, partial, bias, residual ? n.inputs[3] : -1, type, outNhwc);
}

}  // namespace

void registerConvOps(std::vector<OpDef>& t) {
    t.push_back(withFp16({"Conv", 1, 1000, inferConv, evalConv, lowerConv}));
}

}  // namespace vkinfer::ops
