// Einsum's equation resolved against its operands' shapes (ONNX and NumPy semantics): every
// subscript letter and every dimension that an ellipsis stands for becomes a label with one
// size; each operand and the output list their labels axis by axis. A letter repeated in one
// operand takes that operand's diagonal; a label absent from the output is summed over.
// Implicit mode (no "->"): the output is the ellipsis' dimensions, then the letters that
// appear once, in character order. Pure: ops/einsum.cpp lowers and evaluates what it returns.
#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"

namespace vkinfer::ops {

struct EinsumSpec {
    std::vector<int64_t> sizes;               // per label: letters, then the ellipsis' dimensions
    std::vector<std::vector<int>> operands;   // per operand, the label of each axis (repeats: a diagonal)
    std::vector<int> output;                  // the label of each output axis (no repeats)
    graph::Shape outputShape() const;
};

// Throws ShapeError naming node `n` for a malformed equation, a term whose subscripts do not
// match its operand's rank, or a letter with two different sizes (ellipsis dimensions
// broadcast NumPy-style: 1 against n gives n).
EinsumSpec resolveEinsum(const graph::Node& n, const std::string& equation, const std::vector<graph::Shape>& shapes);

// How the labels of a product a x b -> y divide: batch (in a, b and y), rows (in a and y),
// columns (in b and y) in y's order; summed (in a and b, not y) in a's order; and those only
// a or only b has and y lacks (summed within that operand). Each list names a label once (no
// diagonals). The one place both the Einsum
// lowering (ops/einsum.cpp) and its rewrite as MatMul (passes/einsum_matmul.cpp) decide this.
struct EinsumGroups {
    std::vector<int> batch, rows, cols, sum, onlyA, onlyB;
};
EinsumGroups einsumGroups(const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& y);

// Element strides of operand `i` (of shape `shape`) per label: the sum over its axes with that
// label (a diagonal), 0 for a label it lacks or broadcasts (a size-1 ellipsis dimension).
std::vector<int64_t> einsumStrides(const EinsumSpec& s, size_t i, const graph::Shape& shape);

}  // namespace vkinfer::ops
