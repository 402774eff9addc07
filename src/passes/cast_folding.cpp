#include "passes/cast_folding.h"

#include <algorithm>

#include "ops/emit.h"
#include "ops/element_order.h"
#include "passes/specialize.h"

namespace vkinfer::passes {

using graph::Graph;
using graph::Node;

namespace {

// Lowers to one copy of its data input (input 0) into its output, converting float32 <->
// float16 where their types differ (ops/emit.h emitStridedCopy; ops/pad.cpp). A Transpose
// that keeps the element order is a view instead (no copy to convert in).
bool movesElements(const Graph& g, const Node& n) {
    if (n.removed || n.inputs.empty() || n.outputs.size() != 1) return false;
    if (n.opType == "Pad" || n.opType == "DepthToSpace" || n.opType == "SpaceToDepth") return true;
    return n.opType == "Transpose" && !ops::keepsElementOrder(g, n);
}

bool readsOnlyAsData(const Node& n, int value) {
    return n.inputs[0] == value && std::count(n.inputs.begin(), n.inputs.end(), value) == 1;
}

// A Conv whose kernel runs in float16 (its weights are float16).
bool isFloat16Conv(const Graph& g, const Node& n) {
    return !n.removed && n.opType == "Conv" && n.inputs.size() >= 2 && n.outputs.size() == 1 && n.inputs[1] >= 0 &&
           g.values[n.inputs[1]].dtype == DataType::Float16;
}

}  // namespace

int foldCasts(Graph& g) {
    g.relinkProducers();
    graph::Readers readers(g);
    int folded = 0;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        Node& cast = g.nodes[i];
        if (cast.removed || cast.opType != "Cast" || cast.inputs.size() != 1 || cast.outputs.size() != 1) continue;
        const int in = cast.inputs[0], out = cast.outputs[0];
        if (in < 0 || out < 0 || g.values[in].constant) continue;
        if (ops::floatConversion(g.values[in].dtype, g.values[out].dtype) == ops::FloatConversion::None) continue;

        // Into the copy or float16 Conv that writes its input.
        const int p = g.values[in].producer;
        const auto inReaders = readers.of(in);
        const bool soleReader = inReaders.size() == 1 && inReaders[0] == static_cast<int>(i);
        // A copy that converts already (a Cast folded into it before) would then convert
        // twice in one step: float32 -> float16 -> float32 is not a plain copy.
        const bool intoCopy =
            p >= 0 && movesElements(g, g.nodes[p]) && g.values[g.nodes[p].inputs[0]].dtype == g.values[in].dtype;
        const bool intoConv = p >= 0 && isFloat16Conv(g, g.nodes[p]) && g.values[in].dtype == DataType::Float16 &&
                              g.values[out].dtype == DataType::Float32;
        if ((intoCopy || intoConv) && g.nodes[p].outputs[0] == in && !g.isGraphOutput(in) && soleReader) {
            Node& copy = g.nodes[p];
            copy.outputs[0] = out;
            copy.fusedNames.push_back(cast.name);
            g.values[out].producer = p;
            g.values[in].producer = -1;
            cast.removed = true;
            ++folded;
            continue;
        }

        // Into every copy that reads its output. (Not into a conv: conv2d_cmd narrowing a
        // float32 input as it loads it made ESPCN's stem 0.121 -> 0.184 ms on an H100, more
        // than the 0.008 ms Cast it saved: docs/BENCHMARKS.md, run 71.)
        const auto outReaders = readers.of(out);
        if (outReaders.empty() || g.isGraphOutput(out)) continue;
        bool allCopies = std::all_of(outReaders.begin(), outReaders.end(), [&](int r) {
            return movesElements(g, g.nodes[r]) && readsOnlyAsData(g.nodes[r], out) &&
                   g.values[g.nodes[r].outputs[0]].dtype == g.values[out].dtype;
        });
        if (!allCopies) continue;
        for (int r : outReaders) {
            g.nodes[r].inputs[0] = in;
            readers.add(in, r);
        }
        g.nodes[outReaders[0]].fusedNames.push_back(cast.name);
        cast.removed = true;
        ++folded;
    }
    if (folded) removeDeadNodes(g);  // drops the removed Casts from the node list
    return folded;
}

}  // namespace vkinfer::passes
