#include "ops/conv/coopmat.h"

#include <cstring>

#include "ops/conv/layout.h"
#include "ops/conv/split_k_reduce.h"
#include "ops/node_checks.h"
#include "ops/split_k.h"

namespace vkinfer::ops {

namespace {

bool pointwise(const ConvGeom& g) {
    return g.KH == 1 && g.KW == 1 && g.SH == 1 && g.SW == 1 && g.padT == 0 && g.padL == 0 && g.padB == 0 &&
           g.padR == 0;
}

}  // namespace

bool coopmatConvFits(const ConvGeom& g, const KernelTarget& t) {
    // The shared tiles: A 64 x 40 and B 32 x 136 halves, plus 16 x 20 floats per warp.
    return g.Mg() >= 8 && (t.emulateCooperativeMatrix || t.facts.sharedMemoryBytes >= 24 * 1024);
}

bool coopmatReductionFits(const ConvGeom& g) { return g.K() >= kCoopmatTileK; }

namespace k = kernels::conv2d_cm;

CoopmatConvTile coopmatConvTile(const ConvGeom& g) {
    // 32 rows for layers of at most 32 channels per group (DenseNet's growth convs).
    const k::Bm bm = g.Mg() <= 32 ? k::Bm::t32 : k::Bm::t64;
    const k::BmValue& v = k::kBmValues[static_cast<size_t>(bm)];
    CoopmatConvTile t;
    t.variant = bm;
    t.bm = v.BM;
    t.warpsM = static_cast<int>(v.WARPS_M);
    t.warpsN = static_cast<int>(v.WARPS_N);
    return t;
}

Tensor packCoopmatWeights(const Tensor& w, const ConvGeom& g, int64_t bm, bool channelsLast) {
    const int64_t Mg = g.Mg(), K = g.K(), Cg = g.Cg(), taps = g.KH * g.KW;
    const int64_t Mpad = roundUp(Mg, bm), Kpad = roundUp(K, kCoopmatTileK);
    Tensor packed(DataType::Float16, {g.groups, Mpad, Kpad});  // zero-filled
    const auto* src = w.as<uint16_t>();
    auto* dst = packed.as<uint16_t>();
    for (int64_t grp = 0; grp < g.groups; ++grp)
        for (int64_t m = 0; m < Mg; ++m) {
            const uint16_t* from = src + (grp * Mg + m) * K;  // [ci][ky][kx]
            uint16_t* to = dst + (grp * Mpad + m) * Kpad;
            if (!channelsLast) {
                std::memcpy(to, from, static_cast<size_t>(K) * 2);
                continue;
            }
            for (int64_t ci = 0; ci < Cg; ++ci)  // to [ky][kx][ci]
                for (int64_t t = 0; t < taps; ++t) to[t * Cg + ci] = from[ci * taps + t];
        }
    return packed;
}

Tensor channelsLastReductionTable(const ConvGeom& g) {
    const int64_t Cg = g.Cg();
    Tensor t(DataType::Int32, {g.K(), 4});
    int32_t* e = t.as<int32_t>();
    for (int64_t ky = 0; ky < g.KH; ++ky)
        for (int64_t kx = 0; kx < g.KW; ++kx)
            for (int64_t ci = 0; ci < Cg; ++ci, e += 4) {
                int64_t dy = ky * g.DH, dx = kx * g.DW;
                e[0] = static_cast<int32_t>((dy * g.W + dx) * g.C + ci);
                e[1] = static_cast<int32_t>(dy);
                e[2] = static_cast<int32_t>(dx);
                e[3] = 0;
            }
    return t;
}

std::pair<int64_t, int64_t> coopmatConvSplit(const ConvGeom& g, const CoopmatConvTile& tile, int64_t siblings,
                                             uint32_t shuffle) {
    const int64_t K = g.K(), Kpad = roundUp(K, kCoopmatTileK);
    const int64_t zTiles = g.groups * (roundUp(g.Mg(), tile.bm) / tile.bm);
    const int64_t pixelTiles = (g.pixels() + tile.bn - 1) / tile.bn;
    // Split-K aims at 256 workgroups here (the portable kernels: 128): with the fragment loops
    // unrolled these kernels finish a tile fast enough that ResNet-50's 28x28 and 14x14 layers
    // (49-98 tiles at batch 8) left the H200's 132 multiprocessors half idle (batch 8: 1.683 ->
    // 1.516 ms, docs/BENCHMARKS.md).
    constexpr int64_t kCoopmatSplitTargetGroups = 256;
    int64_t kChunk = splitKChunk(pixelTiles * zTiles * siblings, K, kCoopmatTileK, kCoopmatSplitTargetGroups);
    if (kChunk >= K) kChunk = Kpad;
    int64_t splits = (K + kChunk - 1) / kChunk;
    // The split-K reduce stores unshuffled: a fused DepthToSpace keeps the reduction whole.
    if (zTiles * splits > 65535 || shuffle != 0) splits = 1, kChunk = Kpad;
    return {splits, kChunk};
}

void lowerCoopmatConv(LowerContext& ctx, const Node& n, const ConvGeom& g, const CoopmatConvTile& tile, int64_t splits,
                      int64_t kChunk, int bias, int residual) {
    const int64_t Mg = g.Mg(), K = g.K(), pixels = g.pixels();
    const int64_t Mpad = roundUp(Mg, tile.bm), Kpad = roundUp(K, kCoopmatTileK);
    const int64_t mTiles = Mpad / tile.bm, zTiles = g.groups * mTiles;
    if (zTiles > 65535) unsupported(n, "{} groups x {} channels per group exceed the workgroup grid", g.groups, Mg);

    const bool inNhwc = ctx.channelsLast(n.inputs[0]), outNhwc = storesChannelsLast(ctx, n);
    const Tensor& w = *ctx.value(n.inputs[1]).constant;
    const int packedW = ctx.addConstant(n.name + "_cm_weights", packCoopmatWeights(w, g, tile.bm, inNhwc));
    const int kTable =
        ctx.addConstant(n.name + "_ktable", inNhwc ? channelsLastReductionTable(g) : reductionTable(g));
    int partial = -1;
    if (splits > 1)
        partial = ctx.addScratch(n.name + "_splitk", DataType::Float32,
                                 outNhwc ? Shape{splits, pixels, g.M} : Shape{splits, g.M, pixels});

    Dispatch& d = ctx.emit(k::variant(tile.variant, inNhwc ? k::Input::nhwc : k::Input::none,
                                      pointwise(g) ? k::Pw::pw : k::Pw::none,
                                      splits > 1      ? k::Epilogue::splitk
                                      : residual >= 0 ? k::Epilogue::res
                                                      : k::Epilogue::none,
                                      ctx.target().emulateCooperativeMatrix ? k::Mode::emu : k::Mode::nv));
    d.localSize = {static_cast<uint32_t>(32 * tile.warpsM * tile.warpsN), 1, 1};
    setActivation(d, n.activation);
    finishPackedConv(ctx, d, n, g,
                     {tile.bn, zTiles, splits, kChunk, Kpad, Mpad, outNhwc, partial, packedW, bias, kTable, residual,
                      DataType::Float16, depthToSpaceShuffle(n)});
}

}  // namespace vkinfer::ops
