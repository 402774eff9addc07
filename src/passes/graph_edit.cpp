#include "passes/graph_edit.h"

namespace vkinfer::passes {

void retire(graph::Graph& g, graph::Node& node) {
    node.removed = true;
    const int index = static_cast<int>(&node - g.nodes.data());
    for (int o : node.outputs)
        if (o >= 0 && g.values[o].producer == index) g.values[o].producer = -1;
}

int appendFused(graph::Graph& g, graph::Node fused) {
    g.nodes.push_back(std::move(fused));
    const int index = static_cast<int>(g.nodes.size() - 1);
    for (int o : g.nodes.back().outputs)
        if (o >= 0) g.values[o].producer = index;
    return index;
}

}  // namespace vkinfer::passes
