// The edits every fusion pass makes to the graph in place (relinking the whole graph per
// fusion made fusion quadratic): a node retired, a fused node appended in its place, another
// folded into the node that now does its work; and the queries that decide whether a node may
// go (its sole reader, its extra outputs, the selection chain in front of a reader).
#pragma once

#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace vkinfer::passes {

// Marks `node` removed and unlinks the values it produced (what relinkProducers would find).
void retire(graph::Graph& g, graph::Node& node);

// Appends `fused` and makes it its outputs' producer; returns its index. Pointers into
// g.nodes do not survive the call.
int appendFused(graph::Graph& g, graph::Node fused);

// Retires `gone`, whose work `into` now does, and records its name there.
void foldInto(graph::Graph& g, graph::Node& into, graph::Node& gone);

// The live node producing `value` if `value` is read only by `reader` (once), is not a graph
// output, and comes from a node of one of the given types (any type for none); else null.
graph::Node* soleProducer(graph::Graph& g, const graph::Readers& readers, int value, int reader,
                          std::initializer_list<const char*> types);

// True when a node's optional extra outputs (BatchNormalization's training statistics) are
// requested: its computation cannot be folded into another node's.
bool hasExtraOutputs(const graph::Node& n);

// The nodes that only select or reorder elements (a Slice, a Transpose, a Gather of one
// constant index, a Reshape or another node that keeps element order) in front of node
// `reader`'s input `value`, nearest first, each read only by the next: what a strided read of
// the chain's source could replace. With `owned`, the chain goes on through nodes that other
// nodes read too (the 5-D Transpose that separates ViT's q, k and v, read by three Gathers),
// and *owned says how many of its nearest nodes are read only by the next: only those may be
// folded away; the rest stay for their other readers (removeDeadNodes drops them once all
// of those read the source through views too).
std::vector<graph::Node*> selectionChain(graph::Graph& g, const graph::Readers& readers, int value, int reader,
                                         size_t* owned = nullptr);

// The first `length` nodes of `chain` (nearest first) as one strided window of their source,
// chain[length - 1]'s input 0; none where no window expresses them (ops/strided_view.h).
std::optional<graph::StridedView> chainView(const graph::Graph& g, const std::vector<graph::Node*>& chain,
                                            size_t length);

}  // namespace vkinfer::passes
