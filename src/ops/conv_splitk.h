// The second dispatch of a split-K convolution, shared by the tiled (conv.cpp) and the
// cooperative-matrix (conv_coopmat.cpp) lowerings: conv_splitk_reduce adds the float32 slices
// in a fixed order, then bias, residual and the node's fused activation.
#pragma once

#include "ops/conv_geometry.h"
#include "ops/lower_context.h"

namespace vkinfer::ops {

// `partial` holds [splits, M, pixels] float32 sums; `residual` is -1 when there is none.
// channelsLast: partial is [splits, pixels, M], and the residual and output are NHWC.
void emitConvSplitKReduce(LowerContext& ctx, const graph::Node& n, const ConvGeom& g, int64_t splits, int partial,
                          int bias, int residual, DataType type, bool channelsLast = false);

}  // namespace vkinfer::ops
