// Runs a whole graph on the CPU with the ops' naive reference implementations (the same
// constant folding that specialization does, with the inputs made constant). The op and
// model tests compare the GPU against it.
#pragma once

#include <vector>

#include "graph/graph.h"
#include "vkinfer/tensor.h"

namespace vkinfer::passes {

// Outputs in graph output order; inputs with a default may be left out. Throws Error naming
// the node that cannot run on the CPU.
std::vector<Tensor> runOnCpu(const graph::Graph& model, const std::vector<NamedTensor>& inputs);

}  // namespace vkinfer::passes
