// Strided windows onto a tensor (graph::StridedView) and how the nodes that only select or
// reorder elements change one: a Slice with positive steps, a Transpose, a Reshape and the
// other views. What lets a GEMM read its operand where the producer left it (attention's
// q, k, v: Slice -> Reshape -> Transpose of one projection) instead of from copies.
#pragma once

#include <optional>

#include "graph/graph.h"

namespace vkinfer::ops {

graph::StridedView contiguousView(const graph::Shape& shape);

// The view with its dimensions in the order `perm` gives (a Transpose of it; perm checked by
// the caller).
graph::StridedView permutedView(const graph::StridedView& v, const std::vector<int64_t>& perm);

// The view's elements in row-major order under shape `to` (a Reshape of it), or none where
// no strides express that without a copy (a merge of dimensions that are not contiguous).
std::optional<graph::StridedView> reshapeView(const graph::StridedView& v, const graph::Shape& to);

// Node `n`'s output 0 as a view of the tensor that `in` views, `in` being a view of n's input 0
// (of its shape): for a Slice (constant operands, steps > 0, a non-empty window), a Transpose, a
// Gather of one constant index, or a node that keeps element order (ops/element_order.h); none
// for any other node.
std::optional<graph::StridedView> viewThrough(const graph::Graph& g, const graph::Node& n, const graph::StridedView& in);

// The window that a chain of view nodes (`nodes`, the one reading `source` first; each reads the
// one before) makes of `source`, or none. Where one node's output is no strided window of its
// own (a Reshape merging dimensions that are not contiguous among themselves), the walk goes on
// with such merged dimensions kept as their parts, and succeeds where later nodes leave none
// merged: torch's multi-head attention at batch B > 1 merges the batch with the heads ([L, B,
// H * Dh] -> [L, B * H, Dh]), moves them first and splits them again ([B, H, L, Dh]): one window
// over the in-projection, as at batch 1. Node by node it is viewThrough.
std::optional<graph::StridedView> viewThroughChain(const graph::Graph& g, const std::vector<const graph::Node*>& nodes,
                                                   const graph::StridedView& source);

// True when every element of `v` lies inside a tensor of `elements` elements (and the view is
// not empty).
bool viewFits(const graph::StridedView& v, int64_t elements);

// Slice's part of viewThrough, next to the Slice semantics (slice.cpp).
std::optional<graph::StridedView> sliceView(const graph::Graph& g, const graph::Node& n, const graph::StridedView& in);
// Gather's (gather.cpp): one constant index (attention's q, k, v = qkv[0], qkv[1], qkv[2]) selects
// a slab along its axis, whose dimension becomes the index's (all of extent 1); none for more indices.
std::optional<graph::StridedView> gatherView(const graph::Graph& g, const graph::Node& n, const graph::StridedView& in);
// Transpose's permutation for an input of shape `in` (its attribute, or the reversal), checked.
std::vector<int64_t> transposePermutation(const graph::Node& n, const graph::Shape& in);

}  // namespace vkinfer::ops
