#include "ops/conv/register_tiled.h"

#include <cstring>

#include "ops/conv/layout.h"
#include "ops/conv/split_k_reduce.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/split_k.h"

namespace vkinfer::ops {

namespace {

// Warps that keep a large GPU busy: about 16 per multiprocessor of a 132-SM H200. An 8x8 tile
// per invocation leaves few warps per layer at batch 1 and in deep layers; counted in
// workgroups (256 of any tile, the first rule), ResNet-50 at batch 8 ran 2 to 4 warps per
// multiprocessor and took 5.21 ms against 4.22 with this (docs/BENCHMARKS.md, runs 29-30).
// Fewer tiles than this and a smaller tile is faster, then split-K.
constexpr int64_t kFillWarps = 2048;
constexpr int64_t kMinPixels = 32;
constexpr int64_t kMinReduction = 32;

}  // namespace

bool registerTiledConvPays(const ConvGeom& g) {
    // Where a tile's work is mostly loads and stores, conv2d.comp's 256 invocations per tile
    // and its coalesced stores are faster (docs/BENCHMARKS.md, runs 19-20): a squeeze-
    // excitation's 1x1 convs over a pooled 1x1 map fill one column of a tile, and reductions
    // shorter than 32 (3-channel stems, MobileNet's first expansions) do few FMAs per output.
    return g.pixels() >= kMinPixels && g.K() >= kMinReduction;
}

namespace k = kernels::conv2d_rt;

k::Tile RegisterTiledConvTile::variant() const {
    for (const k::TileValue& v : k::kTileValues)
        if (8 * v.WM == bm && 8 * v.WN == bn) return v.value;
    fail(ErrorCode::Internal, "conv2d_rt has no {}x{} tile (shaders/kernels/conv2d_rt.toml)", bm, bn);
}

int64_t RegisterTiledConvTile::warps() const { return bm * bn / (8 * 8 * 32); }

RegisterTiledConvTile registerTiledConvTile(const ConvGeom& g, int64_t siblings) {
    const int64_t Mg = g.Mg(), pixels = g.pixels();
    RegisterTiledConvTile t;
    t.bm = Mg <= 16 ? 16 : Mg <= 32 ? 32 : Mg <= 64 ? 64 : 128;  // the fewest padded rows
    auto warps = [&] { return g.groups * divUp(Mg, t.bm) * divUp(pixels, t.bn) * siblings * t.warps(); };
    if (t.bm == 128 && warps() < kFillWarps) t.bm = 64;
    // (16 x 64 would be 16 invocations, less than a subgroup: split-K instead.)
    if (t.bm >= 32 && warps() < kFillWarps) t.bn = 64;
    return t;
}

bool vec4ConvStores(const ConvGeom& g, bool outNhwc, uint32_t shuffle, bool splitK) {
    if (outNhwc || shuffle != 0) return false;
    return (splitK ? g.pixels() : g.OH * g.OW) % 4 == 0;
}

Tensor packRegisterTiledWeights(const Tensor& w, const ConvGeom& g, int64_t bm) {
    const int64_t Mg = g.Mg(), K = g.K();
    const int64_t Mpad = roundUp(Mg, bm), Kpad = roundUp(K, kRegisterTiledK);
    const size_t elem = dataTypeSize(w.dtype());
    Tensor packed(w.dtype(), {g.groups, Kpad, Mpad});  // zero-filled
    const auto* src = w.data();
    auto* dst = packed.data();
    for (int64_t grp = 0; grp < g.groups; ++grp)
        for (int64_t m = 0; m < Mg; ++m)
            for (int64_t k = 0; k < K; ++k)
                std::memcpy(dst + ((grp * Kpad + k) * Mpad + m) * elem, src + ((grp * Mg + m) * K + k) * elem, elem);
    return packed;
}

std::pair<int64_t, int64_t> registerTiledConvSplit(const ConvGeom& g, const RegisterTiledConvTile& tile, int64_t siblings,
                                                   uint32_t shuffle) {
    const int64_t K = g.K();
    const int64_t zTiles = g.groups * (roundUp(g.Mg(), tile.bm) / tile.bm);
    const int64_t pixelTiles = divUp(g.pixels(), tile.bn);
    // Split-K aims at as many warps as the tile choice does.
    int64_t kChunk = splitKChunk(pixelTiles * zTiles * siblings, K, kRegisterTiledK, kFillWarps / tile.warps());
    int64_t splits = divUp(K, kChunk);
    // The split-K reduce stores unshuffled: a fused DepthToSpace keeps the reduction whole.
    if (zTiles * splits > 65535 || shuffle != 0) splits = 1, kChunk = K;
    return {splits, kChunk};
}

void lowerRegisterTiledConv(LowerContext& ctx, const Node& n, const ConvGeom& g, const RegisterTiledConvTile& tile,
                            int64_t splits, int64_t kChunk, bool vec4Store, int bias, int residual, DataType type) {
    const int64_t Mg = g.Mg(), K = g.K(), pixels = g.pixels();
    const int64_t Mpad = roundUp(Mg, tile.bm), Kpad = roundUp(K, kRegisterTiledK);
    const int64_t zTiles = g.groups * (Mpad / tile.bm);
    if (zTiles > 65535) unsupported(n, "{} groups x {} channels per group exceed the workgroup grid", g.groups, Mg);

    const bool outNhwc = storesChannelsLast(ctx, n);
    const Tensor& w = *ctx.value(n.inputs[1]).constant;
    const int packedW = ctx.addConstant(n.name + "_rt_weights", packRegisterTiledWeights(w, g, tile.bm));
    const int kTable = ctx.addConstant(n.name + "_ktable", reductionTable(g, Kpad));
    int partial = -1;
    if (splits > 1)
        partial = ctx.addScratch(n.name + "_splitk", DataType::Float32,
                                 outNhwc ? Shape{splits, pixels, g.M} : Shape{splits, g.M, pixels});

    const k::Epilogue epilogue = splits > 1 ? k::Epilogue::splitk : residual >= 0 ? k::Epilogue::res : k::Epilogue::none;
    Dispatch& d = ctx.emit(typedKernel(n, k::variant(tile.variant(), epilogue, type), "conv2d_rt", type));
    d.localSize = {static_cast<uint32_t>(tile.bn / 8), static_cast<uint32_t>(tile.bm / 8), 1};
    setActivation(d, n.activation);
    const uint32_t shuffle = depthToSpaceShuffle(n);
    finishPackedConv(ctx, d, n, g,
                     {tile.bn, zTiles, splits, kChunk, Kpad, Mpad, outNhwc, partial, packedW, bias, kTable, residual, type,
                      shuffle, vec4Store});
}

}  // namespace vkinfer::ops
