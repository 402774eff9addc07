// Channels-last (NHWC) activations between cooperative-matrix convolutions. In NCHW the
// implicit GEMM gathers its reduction (input channels) one half at a time, 2*H*W bytes
// apart; in NHWC eight channels are one 16-byte load. Only the tensor-core conv and global
// pooling read NHWC (the conv and the tiled float16 conv write it), so a tensor is stored
// channels-last exactly when its producer is such a conv and every consumer is a tensor-core
// conv reading it as input (with channel counts that are multiples of 8), the fused residual
// of a conv whose own output is channels-last, or a GlobalAveragePool/GlobalMaxPool. Everything
// else (graph inputs and outputs, other ops, views and in-place Concat slices) stays NCHW,
// so no conversion dispatch is ever needed. Pure: a function of the graph, the aliasing and
// the device description.
#pragma once

#include <vector>

#include "ops/lower_context.h"

namespace vkinfer::ops {

// Whether Conv `n` stores its output NHWC: the planned layout (below), or a Transpose folded
// into its store (Node::outputPerm, passes::foldTransposesIntoConvOutput). Every conv kernel
// reads this, never the layout alone.
bool storesChannelsLast(const LowerContext& ctx, const graph::Node& n);

// Per value: 1 where it is stored channels-last. `aliasParent` as LowerContext::setAliases.
std::vector<char> chooseChannelsLast(const LowerContext& ctx, const std::vector<int>& aliasParent);

}  // namespace vkinfer::ops
