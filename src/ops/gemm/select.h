// The one place that decides how a Gemm or MatMul runs: the portable tiles (gemm.comp) or the
// cooperative-matrix ones (gemm_cm.comp), the tile, whether operand rows load as whole words,
// and how the reduction is split. A pure function of the problem and the target
// (ops/kernel_target.h); gemm.cpp lowers what it returns and the tests check it per device.
#pragma once

#include <cstdint>

#include "kernels/families/gemm.h"
#include "kernels/families/gemm_cm.h"
#include "ops/kernel_target.h"
#include "vkinfer/tensor.h"

namespace vkinfer::ops {

// A GEMM problem in element strides (what the kernel and the CPU reference both execute):
// `outer` x `inner` batches of [M, K] x [K, N], the operands' strides per batch, row and
// column, and a broadcast C (Gemm's beta term). The operands start at element aOffset /
// bOffset of their buffers; the output (and a fused residual, which has its layout) is stored
// at b1 * yOuter + b2 * yInner + m * yM + n * yN, row-major unless a Transpose after the product
// was folded into it (Node::outputPerm; yN != 1 where it moves the columns, as ConvNeXt's
// [N, H, W, C] -> [N, C, H, W] after its second Linear).
struct GemmProblem {
    int64_t M = 0, N = 0, K = 0, outer = 1, inner = 1;
    int64_t aOuter = 0, aInner = 0, bOuter = 0, bInner = 0;
    int64_t aM = 0, aK = 0, bK = 0, bN = 0, cM = 0, cN = 0;
    int64_t aOffset = 0, bOffset = 0;
    int64_t yOuter = 0, yInner = 0, yM = 0, yN = 1;
    float alpha = 1, beta = 0;
    bool hasC = false;
    int64_t batches() const { return outer * inner; }
    // The output's strides when it is stored row-major, batch after batch.
    void storeRowMajor() {
        yM = N;
        yN = 1;
        yInner = M * N;
        yOuter = inner * M * N;
    }
};

enum class GemmKernel : uint8_t {
    Portable,  // gemm.comp: 64x64 tiles of 4x4 per invocation, or 16x128 for M <= 16
    Coopmat,   // gemm_cm.comp: float16 on cooperative matrices, 64x64 or 128x128 tiles
};

struct GemmChoice {
    GemmKernel kernel = GemmKernel::Portable;
    int64_t bm = 64, bn = 64;  // tile: rows of A x columns of B
    bool smallM = false;       // the portable 16x128 tile
    kernels::gemm::Tile portableTile = kernels::gemm::Tile::t64x64;
    kernels::gemm_cm::Tile coopmatTile = kernels::gemm_cm::Tile::t64;  // 64 x 64 or 128 x 128
    // Cooperative-matrix loads: A's / B's rows as whole 8-half words (_va / _vb), and both with
    // no bounds checks where every K slice is whole and N a multiple of 8 (_clamped: rows past
    // M and columns past N are read clamped to the last one; they only feed outputs never stored).
    bool wordsA = false, wordsB = false, clampedLoads = false;
    // The reduction indices per shared-memory round: TILE_K (32), or with clampedLoads the
    // deepest of kCoopmatGemmDeepSlices (_clamped_k128, _clamped_k64) that K and the split chunk
    // are multiples of and whose shared tiles fit the device.
    int64_t kSlice = 0;
    int64_t splits = 1, kChunk = 0;  // split-K: slices x reduction indices per slice
};

// The fewest 128 x 128 cooperative-matrix tiles (with their batches) for which a product with
// M >= 128 takes them; fewer take 64 x 64 tiles: half of the 128 workgroups split-K aims at.
inline constexpr int64_t kCoopmatGemmTilesFor128 = 64;
// The shortest reduction that takes 128 x 128 tiles: below it a tile's few K slices cannot
// pay for its long epilogue and the idle multiprocessors (Swin-T's and ConvNeXt-T's first
// stage: 3136 x 384 x 96).
inline constexpr int64_t kCoopmatGemm128MinK = 256;

// The deeper K slices of the cooperative-matrix GEMM (gemm_cm.comp's K_SLICE), deepest first:
// fewer shared-memory rounds, more bytes in flight per round (H100, run 61: slices of 64 for
// TILE_K's 32 made ViT-B/16 fp16 0.89).
inline constexpr int64_t kCoopmatGemmDeepSlices[] = {128, 64};

// The subgroups of a gemm_cm.comp workgroup with this tile (its WARPS_M x WARPS_N).
int64_t coopmatGemmWarps(kernels::gemm_cm::Tile tile);

// The shared memory gemm_cm.comp declares for a BM x BN tile of `warps` subgroups with K
// slices of `bk`, in bytes.
uint64_t coopmatGemmSharedBytes(int64_t bm, int64_t bn, int64_t bk, int64_t warps);

// `siblings`: the product shares its wave with parallel branches (ops::hasParallelSiblings);
// it is then never split.
GemmChoice selectGemm(const GemmProblem& p, DataType type, bool siblings, const KernelTarget& t);

}  // namespace vkinfer::ops
