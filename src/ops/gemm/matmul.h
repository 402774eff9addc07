// What the fusion passes ask of MatMul before changing a node: the output shape the lowering
// would compute for operands of these stored shapes, seen through the node's operandPerm
// (a Transpose folded into the GEMM's strides). Throws Error (ShapeError, Unsupported) where
// the GEMM cannot express the product: more than two batch dimensions that do not merge.
#pragma once

#include "graph/graph.h"

namespace vkinfer::ops {

graph::Shape matMulOutputShape(const graph::Node& n, const graph::Shape& a, const graph::Shape& b);

}  // namespace vkinfer::ops
