#include "ops/conv/split_k_reduce.h"

#include "kernels/families/conv2d_cm.h"
#include "kernels/families/conv2d_rt.h"
#include "kernels/families/conv_splitk_reduce.h"
#include "ops/emit.h"
#include "ops/node_checks.h"

namespace vkinfer::ops {

void emitConvSplitKReduce(LowerContext& ctx, const Node& n, const ConvGeom& g, int64_t splits, int partial, int bias,
                          int residual, DataType type, bool channelsLast) {
    requireIndexable(n, splits * g.M * g.pixels());
    const int64_t count = g.N * g.M * g.OH * g.OW;
    namespace k = kernels::conv_splitk_reduce;
    const k::Epilogue epilogue = residual >= 0 ? k::Epilogue::res : k::Epilogue::none;
    Dispatch& r = ctx.emit(typedKernel(n, k::variant(epilogue, type), "conv_splitk_reduce", type));
    setActivation(r, n.activation);
    // Quads: 16-byte partial sums, output and residual (bound 16-byte aligned, plan::compilePlan).
    const bool quads = channelsLast ? g.M % 4 == 0 : (g.OH * g.OW) % 4 == 0;
    r.setPush(k::Push{u32(count), u32(g.M), u32(g.OH * g.OW), u32(splits), channelsLast ? 1u : 0u, quads ? 1u : 0u});
    setLaunch1d(r, quads ? count / 4 : count);
    r.bindings = {writeOf(n.outputs[0]), readOf(partial), readOf(bias)};
    if (residual >= 0) r.bindings.push_back(readOf(residual));
}

void finishPackedConv(LowerContext& ctx, Dispatch& d, const Node& n, const ConvGeom& g, const PackedConvLaunch& l) {
    auto grid = grid1d(g.pixels(), static_cast<uint32_t>(l.bn));
    d.groups = {grid[0], grid[1], static_cast<uint32_t>(l.zTiles * l.splits)};
    // conv2d_rt and conv2d_cm share the block (conv2d_cm.toml: push_from).
    kernels::conv2d_rt::Push p{};
    setConvGeometry(p, g);
    p.kChunk = u32(l.kChunk);
    p.Kpad = u32(l.Kpad);
    p.Mpad = u32(l.Mpad);
    p.outNhwc = l.outNhwc ? 1u : 0u;
    d.setPush(p);
    static_assert(static_cast<uint32_t>(kernels::conv2d_rt::kShuffle) == static_cast<uint32_t>(kernels::conv2d_cm::kShuffle));
    d.setSpec(kernels::conv2d_rt::kShuffle, l.shuffle);
    if (l.vec4Store) d.setSpec(kernels::conv2d_rt::kVec4Store, 1);  // (conv2d_rt only)
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
