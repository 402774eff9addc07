// What the tiled convolution dispatches bind, shared by the portable (portable.cpp), register-
// tiled (register_tiled.cpp) and cooperative-matrix (coopmat.cpp) lowerings: their split-K's
// partial sums and tile tickets (shaders/conv_split.glsl), and the launch of the two that read
// weights packed at plan time.
#pragma once

#include "ops/conv/geometry.h"
#include "ops/lower_context.h"

namespace vkinfer::ops {

// Split-K in one dispatch: appends to `d`'s bindings (after the residual, if any) the float32
// partial sums, [splits, M, pixels] or with `channelsLast` [splits, pixels, M], and the tile
// tickets, one per workgroup of a split (the grid's x times y times z / splits).
void bindConvSplitK(LowerContext& ctx, Dispatch& d, const graph::Node& n, const ConvGeom& g, int64_t splits,
                    bool channelsLast);

// What a conv dispatch that reads weights packed at plan time (conv2d_cm, conv2d_rt) binds:
// value ids (residual: -1 when none) and the launch shape.
struct PackedConvLaunch {
    int64_t bn, zTiles, splits, kChunk, Kpad, Mpad;
    bool outNhwc;
    int weights, bias, kTable, residual;
    uint32_t shuffle = 0;  // depthToSpaceShuffle (never with split-K, residual or outNhwc)
    bool vec4Store = false;  // conv2d_rt's VEC4_STORE (ops::vec4ConvStores)
};
// Sets `d`'s grid (pixel tiles along x spilling into y, z = split x group x m-tile), push
// constants and bindings (with split-K's, bindConvSplitK).
void finishPackedConv(LowerContext& ctx, Dispatch& d, const graph::Node& n, const ConvGeom& g, const PackedConvLaunch& l);

}  // namespace vkinfer::ops
