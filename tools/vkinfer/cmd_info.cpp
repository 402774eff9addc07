// vkinfer info: what a model declares and whether vkinfer can run it, without a GPU and
// without failing on what it cannot run.
#include <fmt/format.h>

#include <filesystem>
#include <optional>

#include "common.h"
#include "inputs.h"
#include "progress.h"

namespace vkinfer::cli {

namespace {

struct InfoArgs {
    std::string model;
    bool json = false;
    std::vector<std::string> shapes;
};

// "N x 3 x H x W": fixed dims as numbers, dynamic ones by their symbolic name.
std::string dimsText(const TensorDesc& d) {
    if (!d.rankKnown) return "(no declared shape)";
    if (d.shape.empty()) return "scalar";
    std::string s;
    for (size_t i = 0; i < d.shape.size(); ++i)
        s += (i ? " x " : "") + (d.shape[i] >= 0 ? std::to_string(d.shape[i]) : d.dimNames[i]);
    return s;
}

nlohmann::json dimsJson(const TensorDesc& d) {
    if (!d.rankKnown) return nullptr;
    nlohmann::json dims = nlohmann::json::array();
    for (size_t i = 0; i < d.shape.size(); ++i) {
        if (d.shape[i] >= 0) dims.push_back(d.shape[i]);
        else if (d.dimNames[i] == "?") dims.push_back(nullptr);
        else dims.push_back(d.dimNames[i]);
    }
    return dims;
}

std::string opName(const OpCount& c) { return c.domain.empty() ? c.op : c.domain + "." + c.op; }

// What planning says, when the model loaded and its shapes are known.
struct PlanCheck {
    std::string status;  // "ok", "failed", "not compiled"
    std::string detail;
    std::string shapes;
    std::optional<PlanSummary> summary;
};

PlanCheck checkPlan(const InfoArgs& a, const GlobalOptions& g, std::vector<UnsupportedItem>& unsupported) {
    PlanCheck p;
    auto model = [&] {
        progress::SlowNotice notice("info: loading the model");
        return Model::load(a.model);
    }();
    if (!model.ok()) {
        // Something the importer refuses that the static checks did not see (external data,
        // a malformed graph): the model cannot run, and this says why.
        p.status = "failed";
        p.detail = model.status().toString();
        unsupported.push_back({"", "", "loading: " + model.status().toString()});
        return p;
    }
    InputShapes shapes;
    try {
        shapes = resolveShapesWithDefaults(*model, a.model, parseShapes(a.shapes, *model));
    } catch (const CliError& e) {
        if (e.exitCode() == 2) throw;  // a malformed --shape
        p.status = "not compiled";
        p.detail = std::string(e.what()) + " (give --shape to plan it)";
        return p;
    }
    for (const auto& [name, dims] : shapes) p.shapes += (p.shapes.empty() ? "" : ", ") + name + "=" + shapeToString(dims);
    PlanOptions o;
    o.sync = syncMode(g);
    o.precision = precision(g);
    o.kernels = orDie(kernelPolicyFromEnvironment());  // the VKINFER_* kernel variables, as plan takes them
    Result<PlanSummary> summary = PlanSummary{};
    {
        progress::SlowNotice notice("info: compiling the plan");  // a large graph takes seconds
        summary = planSummary(*model, shapes, o);
    }
    if (!summary.ok()) {
        p.status = "failed";
        p.detail = summary.status().toString();
        if (summary.status().code() == ErrorCode::Unsupported)
            unsupported.push_back({"", "", "planning for " + p.shapes + ": " + summary.status().toString()});
        return p;
    }
    p.status = "ok";
    p.summary = *summary;
    return p;
}

void infoCommand(const InfoArgs& a, const GlobalOptions& g) {
    // Planning describes no device: a device index would be accepted and ignored, where run
    // fails on the same index.
    if (g.device >= 0)
        throw CliError("--device: info opens no device (it plans on the CPU for no device in particular); the option "
                       "applies to devices, run, check, bench and upscale",
                       2);
    ModelInfo info = orDie(Model::inspect(a.model));
    PlanCheck plan;
    if (info.unsupported.empty()) plan = checkPlan(a, g, info.unsupported);
    else plan = {"not compiled", "the model has unsupported parts", "", std::nullopt};
    // Planning adds what it refuses as unsupported (an attribute value a lowering rejects);
    // other planning failures (shapes that do not agree) are reported under "plan".
    const bool supported = info.unsupported.empty();

    if (a.json) {
        auto values = [](const std::vector<TensorDesc>& v) {
            nlohmann::json j = nlohmann::json::array();
            for (const auto& d : v) {
                j.push_back({{"name", d.name}, {"type", dataTypeName(d.dtype)}, {"shape", dimsJson(d)}});
                if (d.hasDefault) j.back()["default"] = true;  // optional: its initializer is the default
            }
            return j;
        };
        nlohmann::json ops = nlohmann::json::array(), imports = nlohmann::json::array(), bad = nlohmann::json::array();
        for (const auto& c : info.opCounts) ops.push_back({{"domain", c.domain}, {"op", c.op}, {"count", c.count}});
        for (const auto& [domain, version] : info.opsetImports) imports.push_back({{"domain", domain}, {"version", version}});
        for (const auto& u : info.unsupported) {
            nlohmann::json e{{"reason", u.reason}};
            e["node"] = u.node.empty() ? nlohmann::json(nullptr) : nlohmann::json(u.node);
            e["op"] = u.op.empty() ? nlohmann::json(nullptr) : nlohmann::json(u.op);
            bad.push_back(e);
        }
        nlohmann::json planJ{{"status", plan.status}, {"detail", plan.detail}, {"shapes", plan.shapes}};
        if (plan.summary)
            planJ.update({{"dispatches", plan.summary->dispatches},
                          {"barriers", plan.summary->barriers},
                          {"waves", plan.summary->waves},
                          {"arena_bytes", plan.summary->arenaBytes},
                          {"weight_bytes", plan.summary->weightBytes}});
        nlohmann::json j{{"model", a.model},
                         {"ir_version", info.irVersion},
                         {"producer", {{"name", info.producerName}, {"version", info.producerVersion}}},
                         {"domain", info.domain},
                         {"model_version", info.modelVersion},
                         {"graph", info.graphName},
                         {"opset", info.opset},
                         {"opset_imports", imports},
                         {"inputs", values(info.inputs)},
                         {"outputs", values(info.outputs)},
                         {"nodes", info.nodeCount},
                         {"ops", ops},
                         {"initializers", info.initializerCount},
                         {"parameters", info.parameters},
                         {"weight_bytes", info.weightBytes},
                         {"external_weight_bytes", info.externalWeightBytes},
                         {"supported", supported},
                         {"unsupported", bad},
                         {"plan", planJ}};
        fmt::print("{}\n", jsonText(j));
        return;
    }

    std::string imports;
    for (const auto& [domain, version] : info.opsetImports)
        imports += fmt::format("{}{} {}", imports.empty() ? "" : ", ", domain.empty() ? "ai.onnx" : domain, version);
    fmt::print("model        {}\n", a.model);
    fmt::print("producer     {}{}\n", info.producerName.empty() ? "(not recorded)" : info.producerName,
               info.producerVersion.empty() ? "" : " " + info.producerVersion);
    fmt::print("format       IR version {}, opset {} (imports: {})\n", info.irVersion, info.opset,
               imports.empty() ? "none" : imports);
    size_t width = 0;
    for (const auto* list : {&info.inputs, &info.outputs})
        for (const auto& d : *list) width = std::max(width, d.name.size());
    for (const auto& d : info.inputs)
        fmt::print("input        {:<{}}  {:<8}  {}{}\n", d.name, width, dataTypeName(d.dtype), dimsText(d),
                   d.hasDefault ? "  (optional: defaults to its initializer)" : "");
    for (const auto& d : info.outputs)
        fmt::print("output       {:<{}}  {:<8}  {}\n", d.name, width, dataTypeName(d.dtype), dimsText(d));
    std::string ops;
    for (const auto& c : info.opCounts) ops += fmt::format("{}{} {}", ops.empty() ? "" : ", ", opName(c), c.count);
    fmt::print("nodes        {}: {}\n", info.nodeCount, ops.empty() ? "none" : ops);
    fmt::print("weights      {} in {}, {}{}\n", counted(static_cast<int64_t>(info.parameters), "parameter"),
               counted(static_cast<int64_t>(info.initializerCount), "initializer"),
               bytesText(info.weightBytes),
               info.externalWeightBytes ? fmt::format(" ({} in external data files)", bytesText(info.externalWeightBytes))
                                        : "");
    if (supported) {
        fmt::print("supported    yes: every node is in vkinfer's operator table\n");
    } else {
        size_t nodes = 0;
        for (const auto& u : info.unsupported) nodes += u.node.empty() ? 0 : 1;
        fmt::print("supported    no: {} unsupported node{}{}\n", nodes, nodes == 1 ? "" : "s",
                   info.unsupported.size() > nodes ? fmt::format(", {} model-wide reason{}", info.unsupported.size() - nodes,
                                                                 info.unsupported.size() - nodes == 1 ? "" : "s")
                                                   : "");
        for (const auto& u : info.unsupported)
            fmt::print("  {}{}\n", u.node.empty() ? "" : fmt::format("node '{}' ({}): ", u.node, u.op), u.reason);
    }
    if (plan.summary)
        fmt::print("plan         {}: {}, {}, {}, arena {}, weights {}\n", plan.shapes,
                   counted(static_cast<int64_t>(plan.summary->dispatches), "dispatch", "dispatches"),
                   counted(static_cast<int64_t>(plan.summary->barriers), "barrier"),
                   counted(static_cast<int64_t>(plan.summary->waves), "wave"),
                   bytesText(plan.summary->arenaBytes), bytesText(plan.summary->weightBytes));
    else if (info.unsupported.empty())
        fmt::print("plan         {}: {}\n", plan.status, plan.detail);
}

}  // namespace

void addInfoCommand(CLI::App& app, GlobalOptions& g) {
    auto* cmd = app.add_subcommand("info", "Describe a model: inputs, outputs, opset, producer, operators, weights, and "
                                           "what vkinfer does not support (no GPU needed)");
    auto a = std::make_shared<InfoArgs>();
    cmd->add_option("model", a->model, "ONNX model file")->required()->check(nonEmpty());
    cmd->add_flag("--json", a->json, "Print JSON (format in docs/CLI.md)");
    cmd->add_option("--shape", a->shapes,
                    "Input shape NAME=1x3x224x224 to compile the plan for (default: the model's static shape, else "
                    "test_data_set_0 beside it; without either the plan is not compiled)");
    cmd->callback([a, &g] { infoCommand(*a, g); });
}

}  // namespace vkinfer::cli
