#include "ops/conv/packed_launch.h"

#include "kernels/families/conv2d_cm.h"
#include "kernels/families/conv2d_rt.h"
#include "ops/emit.h"
#include "ops/node_checks.h"

namespace vkinfer::ops {

void bindConvSplitK(LowerContext& ctx, Dispatch& d, const Node& n, const ConvGeom& g, int64_t splits,
                    bool channelsLast) {
    requireIndexable(n, splits * g.M * g.pixels());
    const Shape partial = channelsLast ? Shape{splits, g.pixels(), g.M} : Shape{splits, g.M, g.pixels()};
    d.bindings.push_back(writeOf(ctx.addScratch(n.name + "_splitk", DataType::Float32, partial)));
    d.bindings.push_back(ctx.splitTickets(int64_t{d.groups[0]} * d.groups[1] * (d.groups[2] / splits)));
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
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(l.weights), readOf(l.bias), readOf(l.kTable)};
    if (l.residual >= 0) d.bindings.push_back(readOf(l.residual));
    if (l.splits > 1) bindConvSplitK(ctx, d, n, g, l.splits, l.outNhwc);
}

}  // namespace vkinfer::ops
