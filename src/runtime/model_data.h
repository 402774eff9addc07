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
};

}  // namespace vkinfer::detail
