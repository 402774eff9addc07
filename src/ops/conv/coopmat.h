// Convolution on cooperative matrices (conv2d_cm.comp): float16 operands, float32 sums, for
// devices that have them (DeviceCapabilities) and convolutions large enough to fill 16x16
// tiles. Tile shape and split-K are chosen here from the geometry alone.
#pragma once

#include <utility>

#include "kernels/families/conv2d_cm.h"
#include "ops/conv/geometry.h"
#include "ops/kernel_target.h"
#include "ops/lower_context.h"

namespace vkinfer::ops {

struct CoopmatConvTile {
    kernels::conv2d_cm::Bm variant = kernels::conv2d_cm::Bm::t64;
    int64_t bm = 64, bn = kernels::conv2d_cm::BN;  // workgroup tile (output channels x pixels)
    int warpsM = 2, warpsN = 4;
};
constexpr int64_t kCoopmatTileK = kernels::conv2d_cm::TILE_K;  // reduction slice per shared-memory round

// Where the tensor cores can take a float16 layer with constant weights (conv/select.cpp):
// at least 8 output channels per group (16x16 fragments: fewer waste most of each one;
// depthwise and small-group convolutions have their own kernel; 8 to 15 channels, an
// upscaler's last layer or a squeeze-excitation's reduction, still beat the portable kernel in
// a 32-row tile, docs/BENCHMARKS.md) and the shared tiles in shared memory. A reduction
// shorter than 32 needs the direct kernel (conv2d_cmd), which packs it into few fragments.
bool coopmatConvFits(const ConvGeom& g, const KernelTarget& t);
bool coopmatReductionFits(const ConvGeom& g);
CoopmatConvTile coopmatConvTile(const ConvGeom& g);
// Split-K for that tile: {splits, reduction indices per split (a multiple of kCoopmatTileK,
// or the padded reduction when whole)}; whole where a slice would exceed the grid or a fused
// DepthToSpace (`shuffle`) needs the store of a whole reduction.
std::pair<int64_t, int64_t> coopmatConvSplit(const ConvGeom& g, const CoopmatConvTile& t, int64_t siblings,
                                             uint32_t shuffle);

// The weights [M, Cg, KH, KW] as the kernel reads them: per group a zero-padded
// [Mpad][Kpad] row-major block (Mpad a multiple of the tile's bm, Kpad of kCoopmatTileK), so
// that tiles load as whole 16-byte words without bounds checks. The reduction runs
// (ci, ky, kx), or (ky, kx, ci) for a channels-last input.
Tensor packCoopmatWeights(const Tensor& w, const ConvGeom& g, int64_t bm, bool channelsLast = false);
// reductionTable's counterpart for a channels-last input: k = (ky, kx, ci), offsets in NHWC.
Tensor channelsLastReductionTable(const ConvGeom& g);

// Emits the dispatch (and split-K reduce) for `n` with `tile` and split {splits, kChunk}: bias
// is a value id, residual the node's fourth input or -1.
void lowerCoopmatConv(LowerContext& ctx, const graph::Node& n, const ConvGeom& g, const CoopmatConvTile& tile,
                      int64_t splits, int64_t kChunk, int bias, int residual);

}  // namespace vkinfer::ops
