#include "ops/gemm/select.h"

#include <algorithm>

#include "ops/dispatch.h"
#include "ops/split_k.h"
#include "ops/word_loads.h"

namespace vkinfer::ops {

namespace {

// Cooperative-matrix tiles for float16 products that fill 16x16 fragments, where the shared
// tiles fit.
bool coopmatGemmFits(const GemmProblem& p, DataType type, const KernelTarget& t) {
    return type == DataType::Float16 && t.cooperativeMatrix && p.M >= 16 && p.N >= 16 && p.K >= 32 &&
           (t.emulateCooperativeMatrix || t.facts.sharedMemoryBytes >= 24 * 1024);
}

}  // namespace

int64_t coopmatGemmWarps(kernels::gemm_cm::Tile tile) {
    const kernels::gemm_cm::TileValue& v = kernels::gemm_cm::kTileValues[static_cast<size_t>(tile)];
    return v.WARPS_M * v.WARPS_N;
}

uint64_t coopmatGemmSharedBytes(int64_t bm, int64_t bn, int64_t bk, int64_t warps) {
    // The A tile (BM rows of BK + 8 halves) and the B tile (BK rows of BN + 8), whose words then
    // stage each warp's accumulators (a 16 x 20 float tile per warp).
    return static_cast<uint64_t>(std::max(2 * (bm * (bk + 8) + bk * (bn + 8)), 4 * warps * 16 * 20));
}

GemmChoice selectGemm(const GemmProblem& p, DataType type, bool siblings, const KernelTarget& t) {
    GemmChoice c;
    const bool coopmat = coopmatGemmFits(p, type, t);
    c.kernel = coopmat ? GemmKernel::Coopmat : GemmKernel::Portable;
    c.smallM = !coopmat && p.M <= 16;
    if (coopmat) {
        // 128 x 128 tiles where they still make half of the workgroups a large GPU wants and
        // the reduction is long enough; else 64 x 64, four times the workgroups. A
        // transformer's projections of a few hundred tokens (ViT-B/16: 197 x 2304 x 768, 36
        // tiles of 128) take 64 x 64 rather than idle multiprocessors or a split reduction; so
        // do the first stages' short reductions (3136 x 384 x 96). H100, run 62, side by side:
        // 64 x 64 instead of 64 x 128 below 256 rows (with the slices of 128 below) ViT-B/16
        // 0.986, Swin-T 0.968, ConvNeXt-T 0.951; then everywhere, with kCoopmatGemm128MinK,
        // ConvNeXt-T 0.851, Swin-T 0.883, ConvNeXt-T at batch 8 0.939.
        namespace k = kernels::gemm_cm;
        const k::TileValue& big = k::kTileValues[static_cast<size_t>(k::Tile::t128)];
        const int64_t tiles128 = ceilDiv(p.M, big.BM) * ceilDiv(p.N, big.BN) * p.batches();
        c.coopmatTile = p.M >= big.BM && tiles128 >= kCoopmatGemmTilesFor128 && p.K >= kCoopmatGemm128MinK
                            ? k::Tile::t128
                            : k::Tile::t64;
        c.bm = k::kTileValues[static_cast<size_t>(c.coopmatTile)].BM;
        c.bn = k::kTileValues[static_cast<size_t>(c.coopmatTile)].BN;
    } else {
        c.portableTile = c.smallM ? kernels::gemm::Tile::t16x128 : kernels::gemm::Tile::t64x64;
        const auto& v = kernels::gemm::kTileValues[static_cast<size_t>(c.portableTile)];
        c.bm = v.WM * v.TM;
        c.bn = v.WN * v.TN;
    }
    // Split-K for products with few tiles (a batch-1 classifier: 1 x 1000 x 1280), where the
    // reduction is long enough: a small transformer's projections (65 x 512 x 128 in tiny_vit)
    // take longer as two dispatches than as one.
    const int64_t batches = p.batches();
    const int64_t tiles = ceilDiv(p.N, c.bn) * ceilDiv(p.M, c.bm) * batches;
    const int64_t tileK = coopmat ? kernels::gemm_cm::TILE_K : kernels::gemm::BK;
    constexpr int64_t kMinSplitReduction = 256;
    c.kChunk = siblings ? p.K : splitKChunk(tiles, p.K, tileK, 128, kMinSplitReduction);
    c.splits = p.K > 0 ? (p.K + c.kChunk - 1) / c.kChunk : 1;
    if (batches * c.splits > 65535) c.splits = 1, c.kChunk = p.K;
    if (coopmat) {
        // (Words start at k0 + 8q with k0 a multiple of 32: the split chunk is one too.)
        c.wordsA = rowsOfWords(p.aK, p.aM, {p.aOuter, p.aInner, p.aOffset});
        c.wordsB = rowsOfWords(p.bN, p.bK, {p.bOuter, p.bInner, p.bOffset});
        // Loads clamped into bounds instead of checked: a third off ViT-B/16's products (H100,
        // run 61: 197 x 3072 x 768 23.7 -> 16.4 us, 1576 x 3072 x 768 128 -> 81 us).
        c.clampedLoads = c.wordsA && c.wordsB && onWord(p.N) && p.K % tileK == 0 && c.kChunk % tileK == 0;
        c.kSlice = tileK;
        for (int64_t s : kCoopmatGemmDeepSlices) {
            if (c.clampedLoads && p.K % s == 0 && c.kChunk % s == 0 &&
                coopmatGemmSharedBytes(c.bm, c.bn, s, coopmatGemmWarps(c.coopmatTile)) <= t.facts.sharedMemoryBytes) {
                c.kSlice = s;
                break;
            }
        }
    }
    return c;
}

}  // namespace vkinfer::ops
