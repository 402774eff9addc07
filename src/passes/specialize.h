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
// The same with some graph inputs bound by value (they become constants and fold).
graph::Graph specialize(const graph::Graph& model, const InputShapes& shapes, const std::vector<NamedTensor>& values);

// The CPU reference's specialization (passes::runOnCpu): `model` with its inputs bound as
// constants, every node evaluated, without a plan's folding budget (bytes and multiply-adds),
// since evaluating is what it is for.
graph::Graph specializeForReference(const graph::Graph& model, const InputShapes& shapes);

// Graph inputs (value ids) whose values, not only their shapes, the plan depends on: they
// reach an operand that shape inference reads as a constant (Reshape's shape, Slice's
// starts, Pad's pads, Tile's repeats, ...) through nodes other than Shape/Size.
std::vector<int> valueInputs(const graph::Graph& model);

// Sorts live nodes so that producers come before consumers (ONNX requires it, but a
// malformed model may not comply). Throws ParseError on a cycle.
void sortTopologically(graph::Graph& g);

// Removes nodes none of whose outputs reach a graph output.
void removeDeadNodes(graph::Graph& g);

// Testing only: the smallest constant-folding budget of a plan (64 MiB unless set; a model's
// budget is the larger of this and 4x its weights). The fuzz targets lower it: their -O0
// sanitized build folds the default's tens of millions of elements slower than libFuzzer's
// timeout, a finding about the build, not the code. Not thread-safe against planning.
void setMinFoldBudgetForTesting(int64_t bytes);

}  // namespace vkinfer::passes
