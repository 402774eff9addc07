// Nodes that move no element: their output is their input's bytes in the same order under
// another shape (Reshape, Flatten, Squeeze, Unsqueeze, Identity, and a Transpose that moves
// only dimensions of size 1). The plan makes them views; fusions look through them.
#pragma once

#include "graph/graph.h"

namespace vkinfer::ops {

// True when `perm` applied to `shape` moves only dimensions of size 1.
bool permutationKeepsOrder(const graph::Shape& shape, const std::vector<int64_t>& perm);

// True for a node of the kinds above whose input 0 has a known shape.
bool keepsElementOrder(const graph::Graph& g, const graph::Node& n);

}  // namespace vkinfer::ops
