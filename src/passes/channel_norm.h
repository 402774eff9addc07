// LayerNorm over the channels of an NCHW tensor written as the exporters write it:
// permute the channels last, LayerNormalization over the last axis, permute back (torchvision's
// LayerNorm2d in ConvNeXt's stem and downsampling layers: Transpose(0,2,3,1) -> LN ->
// Transpose(0,3,1,2); Restormer's to_3d/to_4d: Reshape + Transpose around it). The three nodes
// (and any Reshapes between) become one vkinfer.ChannelNorm (ops/normalization.h), which
// normalizes each pixel's channels where they are: two copies of the tensor fewer, two
// dispatches fewer. Matched through strided views (ops/strided_view.h): the LN's input must be
// exactly the source with its channel axis moved last, and the value reached after it exactly
// that moved back; every node in between read only by the next.
#pragma once

#include "graph/graph.h"

namespace vkinfer::passes {

void fuseChannelLayerNorm(graph::Graph& g);

}  // namespace vkinfer::passes
