// Graph rewrites after specialization that reduce dispatches (and so barriers):
//   foldBatchNorm:     Conv -> BatchNormalization  =>  Conv with scaled weights and bias
//   fuseResidualAdd:   {Conv, MatMul, Gemm} -> Add(y, r)  =>  producer that adds r in its epilogue
//   fuseSilu:          {Conv, Gemm, MatMul, Add, BatchNormalization} -> x,
//                      Mul(x, Sigmoid(x))  =>  producer with SiLU applied before its store
//   fuseDepthToSpace:  Conv -> DepthToSpace        =>  Conv that stores the shuffled output
//   fuseActivations:   {Conv, Gemm, MatMul, Add, Mul, BatchNormalization} -> activation
//                      =>  producer with the activation applied before its store
//   foldScalesIntoMatMul: Mul/Div by a scalar on a MatMul operand or output  =>  the GEMM's alpha
//   moveBatchScaleToOperand: MatMul -> Mul by a constant per batch ([H, 1, 1])  =>  the Mul
//                      on the first operand (Swin V2's cosine attention then fuses)
//   foldViewsIntoMatMul: Slice/Reshape/Transpose chain -> MatMul  =>  MatMul reading the chain's
//                      source through one strided window (offset and strides)
//   foldTransposesIntoMatMulOutput: MatMul -> Transpose  =>  MatMul storing its output transposed
//   foldTransposesIntoConvOutput: Conv -> Transpose(0, 2, 3, 1)  =>  Conv storing channels-last
//   foldColumnScaleIntoMatMul: MatMul (constant B) -> [Transpose] -> Mul by a per-channel
//                      constant (a layer scale)  =>  B's columns and the bias scaled, no Mul
//   foldViewsIntoConcat (concat_views.h): Slice/Reshape/Transpose chains -> Concat  =>  Concat
//                      reading each part through one strided window of the chain's source
//   fuseMatMulBias:    MatMul -> Add(constant row) =>  MatMul with the bias in its epilogue
//   fuseErfGelu:       x * 0.5 * (1 + erf(x / sqrt 2)) after a producer  =>  producer with Gelu
// Each rewrite only fires when the intermediate tensor has no other reader and is not a
// graph output, so no value the user can observe changes.
#pragma once

#include "graph/graph.h"

namespace vkinfer::passes {

void foldBatchNorm(graph::Graph& g);
void fuseResidualAdd(graph::Graph& g);
void foldColumnScaleIntoMatMul(graph::Graph& g);
void fuseSilu(graph::Graph& g);
void fuseDepthToSpace(graph::Graph& g);
void fuseActivations(graph::Graph& g);

// All of the above, in an order where each enables the next.
void runFusions(graph::Graph& g);

}  // namespace vkinfer::passes
