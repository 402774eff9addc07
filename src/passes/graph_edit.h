// The edits every fusion pass makes to the graph in place (relinking the whole graph per
// fusion made fusion quadratic): a node retired, a fused node appended in its place.
#pragma once

#include "graph/graph.h"

namespace vkinfer::passes {

// Marks `node` removed and unlinks the values it produced (what relinkProducers would find).
void retire(graph::Graph& g, graph::Node& node);

// Appends `fused` and makes it its outputs' producer; returns its index. Pointers into
// g.nodes do not survive the call.
int appendFused(graph::Graph& g, graph::Node fused);

}  // namespace vkinfer::passes
