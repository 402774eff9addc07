// Attention as today's exporters write it, fused into one vkinfer.Attention node (ops/attention.h):
//   MatMul(Q, K^T) [-> Mul/Div by a scalar ...] [-> Add(bias) ...] -> Softmax(last axis) -> MatMul(., V)
// with Reshapes that only regroup the batch dimensions between the nodes (Swin's shifted-window
// mask: scores viewed as [batch, windows, heads, S, L] for the mask's Add, and back). It runs
// after passes::runFusions, so the MatMuls already read Q, K and V through the head Slices,
// Reshapes and Transposes (Node::inputViews), carry the scalar scales on their operands
// (Node::matMulScale) and store through the Transpose after them (Node::outputPerm): the
// fused node reads and writes all of them through strides. A bias that fuseResidualAdd made
// the first MatMul's residual is taken as one of the added score tensors. It runs before
// passes::fusePointwise, which would otherwise group the scale Mul or the mask Add.
// Left alone: anything whose scores have another reader or are a graph output, more than two
// added tensors, a scale after an Add, head dimensions over 128, more than
// three batch dimensions that do not merge.
#pragma once

#include "graph/graph.h"

namespace vkinfer::passes {

void fuseAttention(graph::Graph& g);

}  // namespace vkinfer::passes
