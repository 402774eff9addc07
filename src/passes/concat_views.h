// Slice / Reshape / Transpose chains in front of a Concat => the Concat reading each part
// through one strided window of the chain's source (Node::inputViews), the copies gone. What
// the exporter writes for torch.roll (two Slices and a Concat per rolled dimension: Swin's
// shifted windows) and for Swin's patch merging (four strided Slices and a Concat); ops/concat.cpp
// then writes all parts in one dispatch.
#pragma once

#include "graph/graph.h"

namespace vkinfer::passes {

void foldViewsIntoConcat(graph::Graph& g);

}  // namespace vkinfer::passes
