// Common subexpressions merged: exporters write the same computation twice where the model's
// code does (NAFNet's LayerNorm2d computes `x - mu` twice; a variance computed by its own
// mean beside the mean the LayerNorm subtracts), and each copy would be a dispatch and a
// tensor. Two live nodes of the same op, domain and attributes reading the same inputs
// compute the same outputs (every op vkinfer runs is deterministic; random ops are never
// merged), so the later one's readers read the earlier one's outputs instead. Runs right
// after specialization, so that the pattern fusions see one node where the model wrote two.
#pragma once

#include "graph/graph.h"

namespace vkinfer::passes {

// Returns the number of nodes merged away. A node whose output is a graph output stays.
int mergeCommonSubexpressions(graph::Graph& g);

}  // namespace vkinfer::passes
