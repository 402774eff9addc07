// Gemm's B stored as [N, K] (transB = 1: nn.Linear's weight as the exporters write it for
// 2-D input, ViT's attention out_proj and classifier heads) is transposed once, at planning,
// where it is a constant that only such Gemms read: the kernels then read whole rows of B
// (16-byte words on the tensor cores instead of eight halves gathered from eight rows; rows
// that coalesce in the portable tiles). The products and their summation order are the same.
#pragma once

#include "graph/graph.h"

namespace vkinfer::passes {

void transposeConstantGemmWeights(graph::Graph& g);

}  // namespace vkinfer::passes
