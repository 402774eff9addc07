#pragma once

#include <string>
#include <vector>

#include "graph/graph.h"
#include "vkinfer/model.h"

namespace vkinfer::detail {

struct ModelData {
    graph::Graph graph;
    std::vector<TensorDesc> inputs;
    std::vector<TensorDesc> outputs;
    std::string label;
    size_t nodeCount = 0;

    // The default of input i (graph::InputDecl::defaultValue), or null.
    const Tensor* defaultOf(size_t i) const {
        const auto& d = graph.inputs[i].defaultValue;
        return d ? &*d : nullptr;
    }
};

// The values to plan as constants when the inputs flagged in `leftOut` (by input index) are
// not given: the defaults of those that have one.
std::vector<NamedTensor> defaultValues(const ModelData& model, const std::vector<bool>& leftOut);
// Inputs (by index) that take their default in a plan asked for by shapes alone (prepare,
// planJson, vkinfer plan): those with a default that `given` does not name. An input named
// there is one the caller will give.
std::vector<bool> defaultedUnlessNamed(const ModelData& model, const InputShapes& given);

}  // namespace vkinfer::detail
