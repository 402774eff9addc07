// Einsum as MatMul where it is one: two operands with exactly one row label (the first's),
// one column label (the second's) and one summed label (both), every other label a batch
// label both have, no diagonal, and the column label last in the output (the operands are
// swapped if that puts it there). The Einsum becomes Transpose -> MatMul <- Transpose
// [-> Transpose], each Transpose only where the order differs, so the MatMul folds that follow
// (passes/fusion.cpp: operands read through their Transposes, the output stored through one
// that keeps the columns last) and the attention fusion (MaxViT writes its attention as two
// einsums) see a MatMul like any other. Everything else stays an Einsum (ops/einsum.cpp).
#pragma once

#include "graph/graph.h"

namespace vkinfer::passes {

void rewriteEinsumAsMatMul(graph::Graph& g);

}  // namespace vkinfer::passes
