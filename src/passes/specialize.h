// Specialization: binds concrete input shapes, infers every tensor's shape and folds what
// is constant (initializer-only subgraphs, and shape-computing subgraphs such as
// Shape -> Gather -> Concat -> Reshape, which become constant once input shapes are known).
#pragma once

#include "graph/graph.h"
#include "vkinfer/model.h"

namespace vkinfer::passes {

// Returns a copy of `model` with shapes for every value reachable from the outputs; nodes
// whose inputs are all constant are evaluated on the CPU and removed; dead nodes removed.
// Throws Error naming the node at fault.
graph::Graph specialize(const graph::Graph& model, const InputShapes& shapes);

// Sorts live nodes so that producers come before consumers (ONNX requires it, but a
// malformed model may not comply). Throws ParseError on a cycle.
void sortTopologically(graph::Graph& g);

// Removes nodes none of whose outputs reach a graph output.
void removeDeadNodes(graph::Graph& g);

}  // namespace vkinfer::passes
