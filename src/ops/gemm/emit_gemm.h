// The GEMM kernels for other ops' lowerings (Einsum's products): the dispatches of one
// GemmProblem, as ops/gemm/select.cpp chooses them.
#pragma once

#include "ops/gemm/select.h"
#include "ops/lower_context.h"
#include "ops/node_checks.h"

namespace vkinfer::ops {

// y = alpha * A B (+ beta * C) (+ the residual r), then node n's fused activation: one GEMM
// dispatch, two where the reduction is split. `c` and `r` are -1 where absent; `y` is n's
// output or a scratch value. The values are read and written through p's strides.
void emitGemm(LowerContext& ctx, const Node& n, const GemmProblem& p, int a, int b, int c, int r, int y);

}  // namespace vkinfer::ops
