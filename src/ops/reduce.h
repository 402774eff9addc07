// The reduction kernel for other ops' lowerings (Einsum's sums over labels).
#pragma once

#include <vector>

#include "ops/lower_context.h"
#include "ops/node_checks.h"

namespace vkinfer::ops {

// One dispatch: `dst`, contiguous in the order of `kept`, is the sum over `red` of `src` read
// through the given element strides (reduce.comp; at most 6 dimensions each after merging).
void emitStridedSum(LowerContext& ctx, const Node& n, int src, int dst, Shape kept, std::vector<int64_t> keptStride,
                    Shape red, std::vector<int64_t> redStride);

}  // namespace vkinfer::ops
