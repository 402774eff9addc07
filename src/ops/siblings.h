// Which nodes share a node's wave, and so the GPU: a walk of the graph the split-K rules use.
#pragma once

#include <cstdint>

#include "graph/graph.h"
#include "ops/lower_context.h"

namespace vkinfer::ops {

// Parallel siblings: nodes that share a wave, and so the GPU, with node `n`: `input` fans out
// to 3 or more readers other than Concats (Inception's branch starts, attention's Q/K/V
// projections), or `n` writes a slice of an in-place Concat that another independent node
// also writes (SqueezeNet's expands, Inception's branch ends). A ResNet block input (2
// readers) does not count, nor do DenseNet's layers: the other slices of their Concat are
// their ancestors or descendants. parallelSiblings returns how many share the wave (1:
// none), the larger of the two counts; convolutions aim their split-K at
// kSplitTargetGroups / siblings (GoogLeNet's 7x7 branches are a few workgroups each
// otherwise; docs/BENCHMARKS-HISTORY.md). hasParallelSiblings: a GEMM with siblings is not split.
bool hasParallelSiblings(const LowerContext& ctx, const graph::Node& n, int input);
int64_t parallelSiblings(const LowerContext& ctx, const graph::Node& n, int input);
// The same for node `nodeIndex` of the graph when it is not the one being lowered (the
// layout planner asks before lowering).
int64_t parallelSiblings(const LowerContext& ctx, const graph::Node& n, int input, int nodeIndex);

}  // namespace vkinfer::ops
