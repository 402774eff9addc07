#include "passes/graph_edit.h"

#include <algorithm>

#include "ops/element_order.h"
#include "ops/strided_view.h"

namespace vkinfer::passes {

using graph::Graph;
using graph::Node;

void retire(Graph& g, Node& node) {
    node.removed = true;
    const int index = static_cast<int>(&node - g.nodes.data());
    for (int o : node.outputs)
        if (o >= 0 && g.values[o].producer == index) g.values[o].producer = -1;
}

int appendFused(Graph& g, Node fused) {
    g.nodes.push_back(std::move(fused));
    const int index = static_cast<int>(g.nodes.size() - 1);
    for (int o : g.nodes.back().outputs)
        if (o >= 0) g.values[o].producer = index;
    return index;
}

void foldInto(Graph& g, Node& into, Node& gone) {
    into.fusedNames.push_back(gone.name);
    retire(g, gone);
}

Node* soleProducer(Graph& g, const graph::Readers& readers, int value, int reader,
                   std::initializer_list<const char*> types) {
    if (value < 0 || g.isGraphOutput(value)) return nullptr;
    int p = g.values[value].producer;
    if (p < 0 || g.nodes[p].removed) return nullptr;
    auto users = readers.of(value);
    if (users.size() != 1 || users[0] != reader) return nullptr;
    // The value must appear once among the reader's inputs (Add(x, x) cannot fuse).
    int uses = 0;
    for (int in : g.nodes[reader].inputs) uses += in == value;
    if (uses != 1) return nullptr;
    if (types.size() == 0) return &g.nodes[p];
    for (const char* t : types)
        if (g.nodes[p].opType == t) return &g.nodes[p];
    return nullptr;
}

bool hasExtraOutputs(const Node& n) {
    return n.outputs.size() > 1 && std::any_of(n.outputs.begin() + 1, n.outputs.end(), [](int o) { return o >= 0; });
}

std::vector<Node*> selectionChain(Graph& g, const graph::Readers& readers, int value, int reader, size_t* owned) {
    std::vector<Node*> chain;
    bool shared = false;
    while (true) {
        const int producer = value >= 0 ? g.values[value].producer : -1;
        if (producer < 0) break;
        Node* p = soleProducer(g, readers, value, reader, {});
        if (!p && owned && !g.isGraphOutput(value) && !g.nodes[producer].removed) {
            p = &g.nodes[producer];
            if (!shared) *owned = chain.size();
            shared = true;
        }
        if (!p || p->inputs.empty() || p->inputs[0] < 0 || hasExtraOutputs(*p)) break;
        if (p->opType != "Slice" && p->opType != "Transpose" && p->opType != "Gather" && !ops::keepsElementOrder(g, *p))
            break;
        chain.push_back(p);
        value = p->inputs[0];
        reader = producer;
    }
    if (owned && !shared) *owned = chain.size();
    return chain;
}

std::optional<graph::StridedView> chainView(const Graph& g, const std::vector<Node*>& chain, size_t length) {
    if (length == 0 || length > chain.size()) return std::nullopt;
    std::vector<const Node*> sourceFirst;
    for (size_t k = length; k-- > 0;) sourceFirst.push_back(chain[k]);
    return ops::viewThroughChain(g, sourceFirst, ops::contiguousView(g.values[chain[length - 1]->inputs[0]].shape));
}

}  // namespace vkinfer::passes
