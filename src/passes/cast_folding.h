// Casts between float32 and float16 folded into the copy or convolution next to them. A Pad,
// DepthToSpace, SpaceToDepth or element-moving Transpose only moves elements, so it can convert
// them on the way (the float32 <-> float16 variants of copy_strided.comp and pad.comp) and the
// Cast's own pass over the tensor (a dispatch, a barrier, a write and a read of it) goes. This
// is what float16 precision puts at a graph's boundary: the input's Cast feeding the first layer's
// Pad, the output's Cast after a final DepthToSpace (the shipped upscaler: both). Exact: the
// copies convert with the Cast kernel's rounding (shaders/half_bits.glsl), bit for bit.
// A float16 Conv likewise stores a float32 output (the tensor-core direct kernel widens its
// float16 result as it stores it; where another kernel takes the conv, the lowering runs the
// Cast as before, ops/conv/conv.cpp): ESPCN's output Cast, after its last conv.
// Runs after passes::convertToFloat16, before lowering.
#pragma once

#include "graph/graph.h"

namespace vkinfer::passes {

// A Cast (float32 -> float16 or back) goes when either
//  - its input is written by such a copy that nothing else reads (and is not a graph
//    output): the copy writes the Cast's output, converting; or
//  - every reader of its output is such a copy reading it as its data input (and it is not a
//    graph output): they read the Cast's input, converting; or
//  - float16 -> float32: its input is written by a float16 Conv that nothing else reads (and
//    is not a graph output): the Conv writes the Cast's output.
// Returns the number of Casts removed.
int foldCasts(graph::Graph& g);

}  // namespace vkinfer::passes
