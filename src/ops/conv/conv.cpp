// Conv (1-D and 2-D, groups, strides, pads, auto_pad, dilations, bias; plus the fused
// residual Add and activation). (BatchNormalization, which passes/fusion folds into Conv,
// is in normalization.cpp.)
#include <cmath>

#include "ops/activation.h"
#include "ops/cpu_copy.h"
#include "ops/conv/depthwise.h"
#include "ops/conv/layout.h"
#include "ops/conv/select.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/siblings.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

Shape outputShape(const ConvGeom& g, bool oneD) {
    return oneD ? Shape{g.N, g.M, g.OW} : Shape{g.N, g.M, g.OH, g.OW};
}

// Where output (b, oc, oy, ox) lies: NCHW, or NHWC where a Transpose folded into the conv's
// store (passes::foldTransposesIntoConvOutput).
int64_t outputIndex(const Node& n, const ConvGeom& g, int64_t b, int64_t oc, int64_t oy, int64_t ox) {
    return n.outputPerm.empty() ? ((b * g.M + oc) * g.OH + oy) * g.OW + ox : ((b * g.OH + oy) * g.OW + ox) * g.M + oc;
}

void inferConv(Graph& g, const Node& n) {
    requireFloat(g, n, 0);
    const Shape& x = inputShape(g, n, 0);
    ConvGeom cg = convGeometry(n, x, inputShape(g, n, 1));
    if (n.input(2) >= 0 && inputValue(g, n, 2).elementCount() != cg.M)
        shapeError(n, "bias has {} elements for {} output channels", inputValue(g, n, 2).elementCount(), cg.M);
    if (!n.outputPerm.empty()) {
        if (x.size() != 4) shapeError(n, "a channels-last store needs a 2-D convolution");
        setOutput(g, n, 0, DataType::Float32, Shape{cg.N, cg.OH, cg.OW, cg.M});
        return;
    }
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
                    const int64_t idx = outputIndex(n, g, bt, oc, oy, ox);
                    if (r) acc += r[idx];
                    y[idx] = applyActivation(n.activation, static_cast<float>(acc), oc);
                }
        }
}

// The bias binding of a conv with a fused PRelu: its M biases, then the M slopes, in the
// kernel's type (shaders/common.glsl, SLOPE_OF).
int biasAndSlopes(LowerContext& ctx, const Node& n, int bias, int64_t M, DataType type) {
    const auto& slopes = n.activation.slopes;
    if (static_cast<int64_t>(slopes.size()) != M)
        fail(ErrorCode::Internal, "{}: a fused PRelu has {} slopes for {} output channels", n.describe(), slopes.size(), M);
    const Tensor* b = bias >= 0 ? &*ctx.value(bias).constant : nullptr;
    Tensor packed(DataType::Float32, {2 * M});
    for (int64_t c = 0; c < M; ++c) {
        packed.as<float>()[c] = b ? static_cast<float>(b->getDouble(c)) : 0.0f;
        packed.as<float>()[M + c] = slopes[static_cast<size_t>(c)];
    }
    return ctx.addConstant(n.name + "_bias_slopes", type == DataType::Float32 ? packed : castTensor(n, packed, type));
}

// `siblings`: of the model's node (ops::parallelSiblings), also when `n` is the unshuffled
// copy below, so that the kernel agrees with the layout planner's.
void lowerConvWith(LowerContext& ctx, const Node& n, int64_t siblings) {
    const auto& x = ctx.value(n.inputs[0]);
    ConvGeom g = convGeometry(n, x.shape, ctx.value(n.inputs[1]).shape);
    requireIndexable(n, std::max(x.elementCount(), ctx.value(n.outputs[0]).elementCount()));
    // float32, or float16 throughout (weights, bias, residual and output too), but for a Cast
    // folded in at a float16 plan's boundary (conv/geometry.h).
    const std::optional<ConvTypes> types = convTypes(ctx.graph(), n);
    if (!types) floatKernelType(ctx, n, n.inputs[0], {n.inputs[1], n.input(2), n.input(3), n.outputs[0]});  // throws
    const DataType type = floatKernelType(ctx, n, n.inputs[1]);
    ConvProblem problem;
    problem.g = g;
    problem.type = type;
    problem.constantWeights = ctx.value(n.inputs[1]).constant.has_value();
    problem.residual = n.input(3) >= 0;
    problem.shuffle = depthToSpaceShuffle(n);
    problem.siblings = siblings;
    problem.inNhwc = ctx.channelsLast(n.inputs[0]);
    problem.outNhwc = storesChannelsLast(ctx, n);
    const ConvChoice choice = selectConv(problem, ctx.target());
    // A folded Cast the kernel does not do itself runs as the Cast did, from a scratch tensor
    // of the kernel's type (a shuffled output's below: the DepthToSpace copy converts).
    if (types->storesFloat32 && !choice.storesFloat32 && (n.depthToSpace == 0 || choice.storesShuffled)) {
        graph::Node conv = n;
        conv.outputs[0] = ctx.addScratch(n.name + "_output_f16", type, ctx.value(n.outputs[0]).shape);
        lowerConvWith(ctx, conv, siblings);
        emitCast(ctx, n, conv.outputs[0], n.outputs[0], type, DataType::Float32);
        return;
    }
    // A fused DepthToSpace (passes/fusion.cpp) that the kernel does not store itself: the
    // conv writes its own layout to a scratch tensor that a copy then shuffles.
    if (n.depthToSpace != 0 && !choice.storesShuffled) {
        graph::Node conv = n;
        conv.depthToSpace = 0;
        conv.outputs[0] = ctx.addScratch(n.name + "_unshuffled", type, outputShape(g, false));
        lowerConvWith(ctx, conv, siblings);
        emitDepthToSpace(ctx, n, conv.outputs[0], n.outputs[0], n.depthToSpace, n.depthToSpaceCrd);
        return;
    }
    int bias = n.input(2);
    if (n.activation.kind == graph::ActKind::PRelu) {
        if (bias >= 0 && !ctx.value(bias).constant) unsupported(n, "a fused PRelu needs a constant bias");
        bias = biasAndSlopes(ctx, n, bias, g.M, type);
    } else if (bias < 0) {
        bias = ctx.addConstant(n.name + "_zero_bias", Tensor(type, {g.M}));
    }
    const int residual = n.input(3);
    switch (choice.kernel) {
        case ConvKernel::SmallGrid: return lowerSmallGridConv(ctx, n, g, choice.smallGrid, bias, residual, type);
        case ConvKernel::Coopmat:
            return lowerCoopmatConv(ctx, n, g, choice.coopmat, choice.splits, choice.kChunk, bias, residual);
        case ConvKernel::CoopmatDirect: return lowerCoopmatDirectConv(ctx, n, g, choice.coopmatDirect, bias, residual);
        case ConvKernel::RegisterDirect:
            return lowerRegisterDirectConv(ctx, n, g, choice.registerDirect, bias, residual, type);
        case ConvKernel::RegisterTiled:
            return lowerRegisterTiledConv(ctx, n, g, choice.registerTiled, choice.splits, choice.kChunk, choice.vec4Store,
                                          bias, residual, type);
        case ConvKernel::Depthwise: return lowerDepthwiseConv(ctx, n, g, bias, residual, type);
        case ConvKernel::Portable:
            return lowerPortableConv(ctx, n, g, choice.portable, choice.splits, choice.kChunk, bias, residual, type);
    }
}

// Folding work: each output sums a filter's C / group x kernel products.
int64_t convFoldWork(const Graph& g, const Node& n) {
    const Shape& w = inputShape(g, n, 1);
    return mulSaturated(g.values[n.outputs[0]].elementCount(), w.at(0) > 0 ? elementCount(w) / w[0] : 0);
}

void lowerConv(LowerContext& ctx, const Node& n) { lowerConvWith(ctx, n, parallelSiblings(ctx, n, n.inputs[0])); }

}  // namespace

void registerConvOps(std::vector<OpDef>& t) {
    t.push_back(withFoldWork(withFp16({"Conv", 1, 1000, inferConv, evalConv, lowerConv}), convFoldWork));
}

}  // namespace vkinfer::ops
