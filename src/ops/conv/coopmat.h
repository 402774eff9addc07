// Convolution on cooperative matrices (conv2d_cm.comp): float16 operands, float32 sums, for
// devices that have them (DeviceCapabilities) and convolutions large enough to fill 16x16
// tiles. Tile shape and split-K are chosen here from the geometry alone.
#pragma once

#include "ops/conv/geometry.h"
#include "ops/lower_context.h"

namespace vkinfer::ops {

struct CoopmatConvTile {
    int64_t bm = 64, bn = 128;  // workgroup tile (output channels x pixels)
    int warpsM = 2, warpsN = 4;
};
constexpr int64_t kCoopmatTileK = 32;  // reduction slice per shared-memory round

// Whether `n` lowers to the cooperative-matrix kernel on this device (type: its tensors').
bool useCoopmatConv(const LowerContext& ctx, const graph::Node& n, const ConvGeom& g, DataType type);
CoopmatConvTile coopmatConvTile(const ConvGeom& g);

// The weights [M, Cg, KH, KW] as the kernel reads them: per group a zero-padded
// [Mpad][Kpad] row-major block (Mpad a multiple of the tile's bm, Kpad of kCoopmatTileK), so
// that tiles load as whole 16-byte words without bounds checks. The reduction runs
// (ci, ky, kx), or (ky, kx, ci) for a channels-last input.
Tensor packCoopmatWeights(const Tensor& w, const ConvGeom& g, int64_t bm, bool channelsLast = false);
// reductionTable's counterpart for a channels-last input: k = (ky, kx, ci), offsets in NHWC.
Tensor channelsLastReductionTable(const ConvGeom& g);

// Emits the dispatch (and split-K reduce) for `n`: bias is a value id, residual the node's
// fourth input or -1.
void lowerCoopmatConv(LowerContext& ctx, const graph::Node& n, const ConvGeom& g, int bias, int residual);

}  // namespace vkinfer::ops
