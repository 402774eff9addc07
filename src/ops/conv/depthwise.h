// Depthwise and small-group convolution (conv2d_depthwise.comp): the reduction of each output
// (at most 64 terms: channels per group x kernel taps) is too short to fill a GEMM tile, so one
// invocation computes one output directly from the input.
#pragma once

#include "ops/conv/geometry.h"
#include "ops/lower_context.h"

namespace vkinfer::ops {

// Grouped convolutions with a reduction of at most 64 run here on every device.
inline bool depthwiseConvFits(const ConvGeom& g) { return g.groups > 1 && g.K() <= 64; }

// Four neighbouring outputs of a row per invocation (conv2d_depthwise.comp's X4: each input row's
// window loaded once for them) where the taps along x are unit-stride and at most
// kDepthwiseRowMaxKw, in layers of at least kDepthwiseRowsFrom outputs (ConvNeXt-T's 7x7 convs
// down to 14x14; docs/BENCHMARKS.md, run 60: from 2^14 rather than 2^17 outputs, ConvNeXt-T
// 0.990, MobileNetV2 0.996 in fp32 and 1.003 in fp16).
inline constexpr int64_t kDepthwiseRowMaxKw = 7, kDepthwiseRowsFrom = int64_t{1} << 14;
bool depthwiseRowsOfFour(const ConvGeom& g);

// Emits the dispatch for `n`: bias is a value id, residual the node's fourth input or -1;
// type is the float type of its tensors.
void lowerDepthwiseConv(LowerContext& ctx, const graph::Node& n, const ConvGeom& g, int bias, int residual, DataType type);

}  // namespace vkinfer::ops
