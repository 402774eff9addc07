// Fusions for graphs whose time goes to many small dispatches (transformers, restoration
// nets as today's exporters write them):
//   fuseLayerNormPattern: ReduceMean -> Sub -> Pow(2) -> ReduceMean -> Add(eps) -> Sqrt -> Div
//                      [-> Mul(gamma) -> Add(beta)] over trailing axes  =>  LayerNormalization;
//                      over the channel axis of [N, C, spatial...] (NAFNet's LayerNorm2d)
//                      =>  vkinfer.ChannelNorm (ops/normalization.h)
//   fusePointwise:     chains and small DAGs of element-wise float ops (Add, Sub, Mul, Div, Pow,
//                      Max, Min, Sqrt, Erf, Tanh, Sigmoid, Relu, ...), operands broadcast,
//                      shapes growing along the chain  =>  one vkinfer.Pointwise node (ops/pointwise.h)
// Values that are graph outputs or read outside a fused group stay materialised: the group
// stores them too (up to 2 outputs per group; a group that needs more is cut short).
#pragma once

#include "graph/graph.h"

namespace vkinfer::passes {

void fuseLayerNormPattern(graph::Graph& g);

// GroupNorm as today's exporters write it (torchlib at opset 18 avoids GroupNormalization,
// whose meaning changed in opset 21): Reshape(x [N, C, ...] -> [N, G, L]) ->
// InstanceNormalization(unit scale, zero bias) -> Reshape(back to x's shape) [-> Mul(gamma)
// [-> Add(beta)]], gamma and beta per channel, each intermediate read only inside the pattern:
// one vkinfer.GroupNorm (ops/normalization.h), which an activation after it then joins.
void fuseGroupNormPattern(graph::Graph& g);
void fusePointwise(graph::Graph& g);

}  // namespace vkinfer::passes
