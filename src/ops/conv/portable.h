// The portable float convolution (conv2d.comp): an implicit GEMM in 64x64 tiles of 4x4 outputs
// per invocation, or 16x128 tiles of 2x4 for layers of at most 16 output channels per group (a
// 3- or 12-channel head would waste 3/4 of a 64-row tile), with the im2col gather through a
// plan-time table and split-K for layers with few tiles. Every device runs it; CPU devices
// (lavapipe) run their float16 convolutions and the float32 ones that the register-direct
// kernel does not take on it (all but depthwise ones).
#pragma once

#include <utility>

#include "kernels/families/conv2d.h"
#include "ops/conv/geometry.h"
#include "ops/lower_context.h"

namespace vkinfer::ops {

struct PortableConvTile {
    kernels::conv2d::Tile tile = kernels::conv2d::Tile::t64x64;
    bool smallM = false;        // the 16x128 tile
    int64_t bm = 64, bn = 64;   // output channels x pixels (WM TM x WN TN, conv2d.toml)
};
PortableConvTile portableConvTile(const ConvGeom& g);
// Split-K (64x64 tiles only): {splits, reduction indices per split}, whole where a slice would
// exceed the grid.
std::pair<int64_t, int64_t> portableConvSplit(const ConvGeom& g, const PortableConvTile& t, int64_t siblings);

// Emits the dispatch (and split-K reduce) for `n`: bias is a value id, residual the node's
// fourth input or -1; type is the float type of its tensors.
void lowerPortableConv(LowerContext& ctx, const graph::Node& n, const ConvGeom& g, const PortableConvTile& t,
                       int64_t splits, int64_t kChunk, int bias, int residual, DataType type);

}  // namespace vkinfer::ops
