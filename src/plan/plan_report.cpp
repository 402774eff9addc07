// Plan reports: the JSON behind `vkinfer plan --json` and the text listing.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/wording.h"
#include "ops/pointwise.h"
#include "plan/compile.h"

namespace vkinfer::plan {

namespace {

using nlohmann::json;

std::vector<std::string> nodeNames(const CompiledPlan& plan, const ops::Dispatch& d) {
    if (d.node < 0) return {};
    const auto& n = plan.graph.nodes[d.node];
    std::vector<std::string> names{n.name};
    names.insert(names.end(), n.fusedNames.begin(), n.fusedNames.end());
    return names;
}

// A float16 Conv that writes its float32 output itself (the output's Cast folded into it,
// passes/cast_folding.h): the dispatch binds that value.
bool convConvertsItself(const CompiledPlan& plan, const ops::Dispatch& d, const graph::Node& n) {
    if (n.opType != "Conv" || n.inputs.size() < 2 || plan.graph.values[n.inputs[1]].dtype != DataType::Float16)
        return false;
    return std::any_of(d.bindings.begin(), d.bindings.end(), [&](const ops::Binding& b) {
        const int v = b.ref.value;
        return v == n.outputs[0] && plan.graph.values[v].dtype == DataType::Float32;
    });
}

std::string opName(const CompiledPlan& plan, const ops::Dispatch& d) {
    if (d.node < 0) return "Copy";
    const auto& n = plan.graph.nodes[d.node];
    const std::string_view kernel = kernels::kernelName(d.kernel);
    // A Cast folded into a conv whose kernel could not do it, run by the lowering (ops/conv/conv.cpp).
    if (kernel.starts_with("cast_") && n.opType == "Conv") return "Cast";
    // A fused DepthToSpace its conv's kernel could not store, run as a copy (ops/conv/conv.cpp).
    const bool shuffleCopy = n.opType == "Conv" && n.depthToSpace != 0 && kernel.starts_with("copy_strided");
    std::string op = shuffleCopy ? "DepthToSpace" : n.opType;
    // A fused pointwise program by the ops it runs: Pointwise(Div+Erf+Add+Mul+Mul).
    if (n.opType == ops::kPointwiseOpType) op = "Pointwise(" + n.attrString("fused_ops", "") + ")";
    if (n.inputs.size() > 3 && n.opType == "Conv" && !shuffleCopy) op += "+Add";
    // A copy a Cast was folded into (passes/cast_folding.h) runs a converting variant (as
    // the Cast's own kernel does: that is a Cast, not Cast+Cast).
    const bool isCast = n.opType == "Cast" || n.opType == "CastLike";
    if (!isCast && (kernel.ends_with("_f32_f16") || kernel.ends_with("_f16_f32") || convConvertsItself(plan, d, n)))
        op += "+Cast";
    if (n.activation.kind != graph::ActKind::None && !shuffleCopy)
        op += std::string("+") + graph::actKindName(n.activation.kind);
    return op;
}

json rangesJson(const CompiledPlan& plan, const std::vector<Range>& ranges) {
    json a = json::array();
    for (const auto& r : ranges)
        a.push_back({{"tensor", plan.graph.values[r.tag].name},
                     {"allocation", plan.allocations[r.alloc].name},
                     {"offset", r.begin},
                     {"bytes", r.end - r.begin}});
    return a;
}

json shapeJson(const std::vector<int64_t>& s) { return json(s); }

}  // namespace

std::string planToJson(const CompiledPlan& plan) {
    const auto& s = plan.summary;
    json j;
    j["model"] = plan.graph.label;
    j["sync"] = syncModeName(plan.sync);
    j["precision"] = precisionName(plan.precision);
    j["alignment"] = plan.alignment;
    json inputs = json::object();
    for (const auto& in : plan.graph.inputs) inputs[plan.graph.values[in.value].name] = shapeJson(plan.graph.values[in.value].shape);
    j["inputs"] = inputs;
    json outputs = json::object();
    for (size_t k = 0; k < plan.graph.outputs.size(); ++k)
        outputs[plan.outputNames[k]] = shapeJson(plan.graph.values[plan.graph.outputs[k]].shape);
    j["outputs"] = outputs;
    j["dispatches"] = s.dispatches;
    j["barriers"] = s.barriers;
    j["barrier_lower_bound"] = s.barrierLowerBound;
    j["waves"] = s.waves;
    j["arena_bytes"] = s.arenaBytes;
    j["intermediate_bytes"] = s.intermediateBytes;
    j["weight_bytes"] = s.weightBytes;
    json allocs = json::array();
    for (size_t i = 0; i < plan.allocations.size(); ++i)
        allocs.push_back({{"id", i},
                          {"name", plan.allocations[i].name},
                          {"kind", allocKindName(plan.allocations[i].kind)},
                          {"bytes", plan.allocations[i].size}});
    j["allocations"] = allocs;
    j["views"] = plan.viewNodes;
    j["channels_last"] = plan.channelsLast;
    json sched = json::array();
    for (size_t i = 0; i < plan.dispatches.size(); ++i) {
        const auto& d = plan.dispatches[i];
        json e;
        e["index"] = i;
        e["op"] = opName(plan, d);
        e["kernel"] = std::string(kernels::kernelName(d.kernel));
        e["nodes"] = nodeNames(plan, d);
        e["wave"] = plan.wave[i];
        e["groups"] = d.groups;
        e["local_size"] = d.localSize;
        e["reads"] = rangesJson(plan, plan.commands[i].reads);
        e["writes"] = rangesJson(plan, plan.commands[i].writes);
        const Barrier& b = plan.barriers[i];
        if (!b.present) {
            e["barrier"] = nullptr;
        } else {
            json hz = json::array();
            for (const auto& h : b.hazards)
                hz.push_back({{"kind", hazardKindName(h.kind)},
                              {"allocation", plan.allocations[h.alloc].name},
                              {"tensors", {plan.graph.values[h.earlierTag].name, plan.graph.values[h.laterTag].name}},
                              {"after_dispatch", h.earlierCommand}});
            e["barrier"] = {{"memory_dependency", b.needsMemoryDependency() || plan.sync == SyncMode::Conservative},
                            {"hazards", hz}};
        }
        sched.push_back(std::move(e));
    }
    j["schedule"] = sched;
    // Model names are arbitrary bytes: invalid UTF-8 becomes U+FFFD rather than an exception.
    return j.dump(1, ' ', false, json::error_handler_t::replace);
}

std::string planToText(const CompiledPlan& plan) {
    const auto& s = plan.summary;
    std::string out;
    for (size_t i = 0; i < plan.dispatches.size(); ++i) {
        const auto& d = plan.dispatches[i];
        const Barrier& b = plan.barriers[i];
        if (b.present) {
            std::string what;
            for (const auto& h : b.hazards) {
                if (!what.empty()) what += ", ";
                what += fmt::format("{} {}", hazardKindName(h.kind), plan.graph.values[h.laterTag].name);
            }
            out += fmt::format("      ---- barrier{}{}\n", what.empty() ? "" : ": ", what);
        }
        auto names = nodeNames(plan, d);
        out += fmt::format("{:4}  w{:<3} {:<22} {:<20} {}\n", i, plan.wave[i], opName(plan, d), kernels::kernelName(d.kernel),
                           names.empty() ? std::string("(output copy)") : names.front());
    }
    out += fmt::format(
        "{}, {} (lower bound {}, {}); arena {:.2f} MiB for {:.2f} MiB of intermediates "
        "({:.1f}%); weights {:.2f} MiB; sync {}, {}\n",
        counted(static_cast<int64_t>(s.dispatches), "dispatch", "dispatches"), counted(static_cast<int64_t>(s.barriers), "barrier"),
        s.barrierLowerBound, counted(static_cast<int64_t>(s.waves), "wave"), s.arenaBytes / 1048576.0, s.intermediateBytes / 1048576.0,
        s.intermediateBytes ? 100.0 * s.arenaBytes / s.intermediateBytes : 0.0, s.weightBytes / 1048576.0,
        syncModeName(plan.sync), precisionName(plan.precision));
    return out;
}

}  // namespace vkinfer::plan
