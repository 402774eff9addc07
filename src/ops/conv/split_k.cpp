#include "ops/conv/split_k.h"

#include "ops/op_util.h"

namespace vkinfer::ops {

void emitConvSplitKReduce(LowerContext& ctx, const Node& n, const ConvGeom& g, int64_t splits, int partial, int bias,
                          int residual, DataType type, bool channelsLast) {
    requireIndexable(n, splits * g.M * g.pixels());
    const int64_t count = g.N * g.M * g.OH * g.OW;
    Dispatch& r = ctx.emit(typedKernel(n, std::string("conv_splitk_reduce") + (residual >= 0 ? "_res" : ""), type));
    setActivation(r, n.activation);
    // Quads: 16-byte partial sums, output and residual (bound 16-byte aligned, plan::compilePlan).
    const bool quads = channelsLast ? g.M % 4 == 0 : (g.OH * g.OW) % 4 == 0;
    struct {
        uint32_t count, M, pixels, splits, nhwc, quads;
    } rp{u32(count), u32(g.M), u32(g.OH * g.OW), u32(splits), channelsLast ? 1u : 0u, quads ? 1u : 0u};
    r.setPush(rp);
    setLaunch1d(r, quads ? count / 4 : count);
    r.bindings = {writeOf(n.outputs[0]), readOf(partial), readOf(bias)};
    if (residual >= 0) r.bindings.push_back(readOf(residual));
}

void finishPackedConv(LowerContext& ctx, Dispatch& d, const Node& n, const ConvGeom& g, const PackedConvLaunch& l) {
    auto grid = grid1d(g.pixels(), static_cast<uint32_t>(l.bn));
    d.groups = {grid[0], grid[1], static_cast<uint32_t>(l.zTiles * l.splits)};
    d.setPush(packedConvParams(g, l.kChunk, l.Kpad, l.Mpad, l.outNhwc));
    // After the activation's constants 3-5 (setActivation): conv_store.glsl's SHUFFLE, then
    // conv2d_rt's VEC4_STORE (other kernels do not declare it; Vulkan ignores it there).
    d.spec.resize(3, 0);
    d.spec.push_back(l.shuffle);
    d.spec.push_back(l.vec4Store ? 1u : 0u);
    d.bindings = {writeOf(l.partial >= 0 ? l.partial : n.outputs[0]), readOf(n.inputs[0]), readOf(l.weights),
                  readOf(l.bias), readOf(l.kTable)};
    if (l.partial < 0) {
        if (l.residual >= 0) d.bindings.push_back(readOf(l.residual));
        return;
    }
    // After the last use of d: emitting the reduce may move the dispatch list.
    emitConvSplitKReduce(ctx, n, g, l.splits, l.partial, l.bias, l.residual, l.type, l.outNhwc);
}

}  // namespace vkinfer::ops
