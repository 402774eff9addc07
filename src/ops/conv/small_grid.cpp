#include "ops/conv/small_grid.h"

#include "ops/conv/layout.h"
#include "ops/emit.h"
#include "ops/node_checks.h"

namespace vkinfer::ops {

namespace {

namespace k = kernels::conv2d_small;
constexpr int64_t kInvocations = k::NT;
constexpr int64_t kMaxChain = 32;      // reduction indices per invocation, where the layer allows
// Below this many 64x64 tiles a tiled kernel leaves most of a 132-multiprocessor GPU idle.
constexpr int64_t kFewTiles = 64;
// conv2d_small does RM multiply-adds per gathered input and reads the weights from the L1
// cache: past this many multiply-adds a tiled kernel's reuse wins even with few tiles.
constexpr int64_t kMaxMultiplyAdds = int64_t{16} << 20;
// The tensor cores' fragment width: maps with fewer pixels leave most of it empty.
constexpr int64_t kFragmentPixels = 16;
// Where the tensor cores could take a few-tiles layer, conv2d_small is faster on the narrow
// ones (docs/BENCHMARKS.md, runs 53 and 54: rrdb_x2's 3x3 convs of 8 and 16 channels took
// 0.030 ms on conv2d_cm32 against 0.010 to 0.015 on conv2d_small): up to this many output
// channels per group ...
constexpr int64_t kNarrowChannels = 64;
// ... except 1x1 convs of this many multiply-adds or more, which the pointwise tensor-core
// kernels run faster (GoogLeNet's branch 1x1s of 24 to 64 channels: 0.013 to 0.016 ms against
// 0.017 to 0.021).
constexpr int64_t kPointwiseTensorCoreMultiplyAdds = int64_t{2} << 20;

int log2Exact(int64_t v) {
    int s = 0;
    while ((int64_t{1} << s) < v) ++s;
    return s;
}

}  // namespace

int64_t outputTiles64(const ConvGeom& g) { return g.groups * divUp(g.Mg(), 64) * divUp(g.pixels(), 64); }

bool smallGridConvPays(const ConvGeom& g, bool onTensorCores, int64_t siblings) {
    const int64_t multiplyAdds = g.M * g.pixels() * g.K();
    if (multiplyAdds > kMaxMultiplyAdds) return false;
    if (!onTensorCores) return outputTiles64(g) < kFewTiles;
    if (g.pixels() < kFragmentPixels) return true;
    // Convolutions that share their wave with parallel branches stay on the tensor cores:
    // GoogLeNet's branches overlapped much less on conv2d_small (its GPU time rose 8%, run 54).
    const bool pointwise = g.KH == 1 && g.KW == 1;
    return siblings == 1 && outputTiles64(g) < kFewTiles && g.Mg() <= kNarrowChannels &&
           !(pointwise && multiplyAdds >= kPointwiseTensorCoreMultiplyAdds);
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
    const bool outNhwc = storesChannelsLast(ctx, n);
    const k::Epilogue epilogue = residual >= 0 ? k::Epilogue::res : k::Epilogue::none;
    Dispatch& d = ctx.emit(typedKernel(n, k::variant(epilogue, type), "conv2d_small", type));
    d.localSize = {static_cast<uint32_t>(kInvocations), 1, 1};
    d.groups = {u32(pixelTiles), 1, u32(zBlocks)};
    setActivation(d, n.activation);
    k::Push p{};
    setConvGeometry(p, g);
    p.pxShift = static_cast<uint32_t>(log2Exact(s.pixels));
    p.outNhwc = outNhwc ? 1u : 0u;
    d.setPush(p);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1]), readOf(bias)};
    if (residual >= 0) d.bindings.push_back(readOf(residual));
}

}  // namespace vkinfer::ops
