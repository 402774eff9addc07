// Nodes that move no element: their output is their input's bytes in the same order under
// another shape (the ops the table marks as views, OpDef::isView: Reshape, Flatten, Squeeze,
// Unsqueeze, Identity, Dropout; and a Transpose that moves only dimensions of size 1). The
// plan makes them views; fusions look through them.
#pragma once

#include "graph/graph.h"

namespace vkinfer::ops {

// True when `perm` applied to `shape` moves only dimensions of size 1.
bool permutationKeepsOrder(const graph::Shape& shape, const std::vector<int64_t>& perm);

// True for a live node of the kinds above with one output in use.
bool keepsElementOrder(const graph::Graph& g, const graph::Node& n);

}  // namespace vkinfer::ops
