#include "passes/cpu_reference.h"

#include <algorithm>

#include "core/error.h"
#include "passes/specialize.h"

namespace vkinfer::passes {

std::vector<Tensor> runOnCpu(const graph::Graph& model, const std::vector<NamedTensor>& inputs) {
    InputShapes shapes;
    for (const auto& in : inputs) shapes.emplace_back(in.name, in.tensor.shape());
    graph::Graph g = model;
    for (const auto& decl : g.inputs) {
        auto& v = g.values[decl.value];
        auto it = std::find_if(inputs.begin(), inputs.end(), [&](const NamedTensor& t) { return t.name == v.name; });
        if (it != inputs.end()) {
            v.constant = it->tensor;
        } else if (decl.defaultValue) {  // left out: its default
            v.constant = *decl.defaultValue;
            shapes.emplace_back(v.name, decl.defaultValue->shape());
        } else {
            fail(ErrorCode::InvalidArgument, "runOnCpu: input '{}' is missing", v.name);
        }
    }
    graph::Graph folded = specializeForReference(g, shapes);
    std::vector<Tensor> out;
    for (int o : folded.outputs) {
        const auto& v = folded.values[o];
        if (!v.constant) {
            int p = v.producer;
            fail(ErrorCode::Unsupported, "runOnCpu: {} has no CPU implementation",
                 p >= 0 ? folded.nodes[p].describe() : "tensor '" + v.name + "'");
        }
        out.push_back(*v.constant);
    }
    return out;
}

}  // namespace vkinfer::passes
