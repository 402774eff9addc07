#include "passes/concat_views.h"

#include <algorithm>

#include "passes/graph_edit.h"

namespace vkinfer::passes {

using graph::Graph;
using graph::Node;

namespace {

// Worth a window only where the chain moves elements: a chain of Reshapes alone is free
// already, and a part read through a window cannot be written in place by its producer.
bool movesElements(const std::vector<Node*>& chain, size_t length) {
    return std::any_of(chain.begin(), chain.begin() + static_cast<std::ptrdiff_t>(length),
                       [](const Node* n) { return n->opType == "Slice" || n->opType == "Transpose"; });
}

}  // namespace

void foldViewsIntoConcat(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Node& concat = g.nodes[i];
        if (concat.removed || concat.opType != "Concat") continue;
        for (size_t k = 0; k < concat.inputs.size(); ++k) {
            const int v = concat.inputs[k];
            if (v < 0 || !concat.inputView(k).empty()) continue;
            const std::vector<Node*> chain = selectionChain(g, readers, v, static_cast<int>(i));
            // The longest tail that is one window of its source.
            for (size_t length = chain.size(); length > 0; --length) {
                if (!movesElements(chain, length)) break;
                const std::optional<graph::StridedView> view = chainView(g, chain, length);
                if (!view || view->shape != g.values[v].shape) continue;
                const int source = chain[length - 1]->inputs[0];
                concat.setInputView(k, *view);
                concat.inputs[k] = source;
                readers.add(source, static_cast<int>(i));
                for (size_t j = 0; j < length; ++j) foldInto(g, concat, *chain[j]);
                break;
            }
        }
    }
}

}  // namespace vkinfer::passes
