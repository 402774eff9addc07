// Stride-1 convolution on cooperative matrices without im2col (conv2d_cmd.comp): each
// workgroup copies the input window of its output tile (the halo) into shared memory once per
// 16 input channels and reads every tap's operand from there. For wide maps, where the
// gathering kernel (conv2d_cm.comp) spends its time re-reading each input KH x KW times:
// upscalers and the early layers of image networks. Tile choice is a pure function of the
// geometry and the device's shared memory.
#pragma once

#include <optional>

#include "ops/conv/geometry.h"
#include "ops/lower_context.h"

namespace vkinfer::ops {

struct CoopmatDirectConvTile {
    int64_t bm = 32;     // output channels per workgroup (16, 32 or 64)
    int64_t warps = 4;   // output rows per workgroup, one warp each
    int64_t tw = 64;     // output pixels per row (4 fragments of 16)
    bool narrow = false; // input of at most 8 channels: two taps along x per fragment
    int64_t chunks = 1;  // 16-channel chunks of the input (1 when narrow)
    int64_t tapSteps = 0;  // fragments of reduction per chunk
    int64_t haloW = 0;     // halo pixels per row
    uint32_t haloWords = 0, weightWords = 0;  // shared uvec4 words (conv2d_cmd.comp)
    int64_t sharedBytes = 0;
};

// The tile conv2d_cmd would use for `g` with the input channels-last or not, or none where
// the kernel cannot take it: not stride 1 and dilation 1, grouped, a channels-last input
// whose channels are not a multiple of 8, fewer than 8 output channels, or no tile that fits
// `sharedMemoryBytes`.
std::optional<CoopmatDirectConvTile> coopmatDirectConvTile(const ConvGeom& g, bool inNhwc, uint32_t sharedMemoryBytes);

// The measured rule (DirectConv::Auto): a kernel larger than 1x1, a grid of at least 384
// warps, and rows of the tile at least three quarters filled by the map.
bool coopmatDirectConvPays(const ConvGeom& g, const CoopmatDirectConvTile& t);

// The weights [M, C, KH, KW] as conv2d_cmd reads them: [chunk][tap step][Mpad][16] halves,
// zero past M, past C and (narrow) past KW, Mpad a multiple of the tile's bm.
Tensor packCoopmatDirectWeights(const Tensor& w, const ConvGeom& g, const CoopmatDirectConvTile& t);

// Emits the dispatch for `n` with tile `t`: bias is a value id, residual the node's fourth
// input or -1.
void lowerCoopmatDirectConv(LowerContext& ctx, const graph::Node& n, const ConvGeom& g, const CoopmatDirectConvTile& t, int bias,
                            int residual);

}  // namespace vkinfer::ops
