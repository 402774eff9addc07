#include "ops/conv/small_grid.h"

#include "ops/op_util.h"

namespace vkinfer::ops {

namespace {

constexpr int64_t kInvocations = 256;  // conv2d_small.comp's NT
constexpr int64_t kMaxChain = 32;      // reduction indices per invocation, where the layer allows
// Below this many 64x64 tiles a tiled kernel leaves most of a 132-multiprocessor GPU idle.
constexpr int64_t kFewTiles = 64;
// conv2d_small does RM multiply-adds per gathered input and reads the weights from the L1
// cache: past this many multiply-adds a tiled kernel's reuse wins even with few tiles.
constexpr int64_t kMaxMultiplyAdds = int64_t{16} << 20;
// The tensor cores' fragment width: maps with fewer pixels leave most of it empty.
constexpr int64_t kFragmentPixels = 16;

// Push constants of conv2d_small.comp.
struct SmallConvParams {
    uint32_t N, C, H, W;
    uint32_t M, OH, OW, groups;
    uint32_t KH, KW, SH, SW;
    uint32_t padH, padW, DH, DW;
    uint32_t pxShift;
    uint32_t outNhwc;
};

int log2Exact(int64_t v) {
    int s = 0;
    while ((int64_t{1} << s) < v) ++s;
    return s;
}

}  // namespace

int64_t outputTiles64(const ConvGeom& g) { return g.groups * divUp(g.Mg(), 64) * divUp(g.pixels(), 64); }

bool smallGridConvPays(const ConvGeom& g, bool onTensorCores) {
    if (g.M * g.pixels() * g.K() > kMaxMultiplyAdds) return false;
    return onTensorCores ? g.pixels() < kFragmentPixels : outputTiles64(g) < kFewTiles;
}

SmallConvShape smallConvShape(const ConvGeom& g) {
    SmallConvShape s;
    s.pixels = 1;
    while (s.pixels < 32 && s.pixels < g.pixels()) s.pixels *= 2;
    while (s.pixels > 1 && divUp(g.K(), kInvocations / s.pixels) > kMaxChain) s.pixels /= 2;
    s.slices = kInvocations / s.pixels;
    return s;
}

void lowerSmallGridConv(LowerContext& ctx, const graph::Node& n, const ConvGeom& g, const SmallConvShape& s, int bias,
                        int residual, DataType type) {
    const int64_t pixelTiles = divUp(g.pixels(), s.pixels);
    const int64_t zBlocks = g.groups * divUp(g.Mg(), kSmallConvChannels);
    if (pixelTiles > 65535 || zBlocks > 65535)
        unsupported(n, "{} pixels x {} channel blocks exceed the workgroup grid", g.pixels(), zBlocks);
    const bool outNhwc = ctx.channelsLast(n.outputs[0]);
    Dispatch& d = ctx.emit(typedKernel(n, residual >= 0 ? "conv2d_small_res" : "conv2d_small", type));
    d.localSize = {static_cast<uint32_t>(kInvocations), 1, 1};
    d.groups = {u32(pixelTiles), 1, u32(zBlocks)};
    setActivation(d, n.activation);
    d.setPush(SmallConvParams{u32(g.N), u32(g.C), u32(g.H), u32(g.W), u32(g.M), u32(g.OH), u32(g.OW), u32(g.groups),
                              u32(g.KH), u32(g.KW), u32(g.SH), u32(g.SW), u32(g.padT), u32(g.padL), u32(g.DH),
                              u32(g.DW), static_cast<uint32_t>(log2Exact(s.pixels)), outNhwc ? 1u : 0u});
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1]), readOf(bias)};
    if (residual >= 0) d.bindings.push_back(readOf(residual));
}

}  // namespace vkinfer::ops
