// The second dispatch of a split-K convolution, shared by the tiled (conv.cpp) and the
// cooperative-matrix (conv/coopmat.cpp) lowerings: conv_splitk_reduce adds the float32 slices
// in a fixed order, then bias, residual and the node's fused activation.
#pragma once

#include "ops/conv/geometry.h"
#include "ops/lower_context.h"

namespace vkinfer::ops {

// `partial` holds [splits, M, pixels] float32 sums; `residual` is -1 when there is none.
// channelsLast: partial is [splits, pixels, M], and the residual and output are NHWC.
void emitConvSplitKReduce(LowerContext& ctx, const graph::Node& n, const ConvGeom& g, int64_t splits, int partial,
                          int bias, int residual, DataType type, bool channelsLast = false);

// What a conv dispatch that reads weights packed at plan time (conv2d_cm, conv2d_rt) binds:
// value ids (partial, residual: -1 when none) and the launch shape.
struct PackedConvLaunch {
    int64_t bn, zTiles, splits, kChunk, Kpad, Mpad;
    bool outNhwc;
    int partial, weights, bias, kTable, residual;
    DataType type;  // of the node's tensors (the split-K reduce writes it)
    uint32_t shuffle = 0;  // depthToSpaceShuffle (never with split-K, residual or outNhwc)
    bool vec4Store = false;  // conv2d_rt's VEC4_STORE (ops::vec4ConvStores)
};
// Sets `d`'s grid (pixel tiles along x spilling into y, z = split x group x m-tile), push
// constants and bindings, then emits the split-K reduce when there is a partial tensor.
void finishPackedConv(LowerContext& ctx, Dispatch& d, const graph::Node& n, const ConvGeom& g, const PackedConvLaunch& l);

}  // namespace vkinfer::ops
