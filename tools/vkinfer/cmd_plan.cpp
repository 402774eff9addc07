// vkinfer plan: the schedule, barriers and memory plan, computed without a GPU for no device
// in particular (the portable kernels), or with --device for that device as a session there
// runs it.
#include <fmt/format.h>

#include "common.h"
#include "inputs.h"
#include "progress.h"

namespace vkinfer::cli {

namespace {

struct PlanArgs {
    std::string model;
    bool json = false;
    std::vector<std::string> shapes;
    uint32_t alignment = 64;
};

void planCommand(const PlanArgs& a, const GlobalOptions& g) {
    Model model = [&] {
        progress::SlowNotice notice("plan: loading the model");
        return orDie(Model::load(a.model));
    }();
    InputShapes shapes = resolveShapesWithDefaults(model, a.model, parseShapes(a.shapes, model));
    Result<std::string> text = std::string();
    if (g.device >= 0) {
        // The plan a session on that device runs: its capabilities pick the kernels (tensor
        // cores, tiles), as in run, check and bench.
        if (a.alignment != 64)
            throw CliError("--alignment: with --device the plan takes the session's alignment (the device's); leave "
                           "--alignment out or plan for no device",
                           2);
        Context context = makeContext(g);
        Session session = orDie(Session::create(context, model, sessionOptions(g)));
        progress::SlowNotice notice("plan: compiling the plan and its kernels");
        text = a.json ? session.planJson(shapes) : session.planText(shapes);
    } else {
        PlanOptions o;
        o.sync = syncMode(g);
        o.precision = precision(g);
        o.alignment = a.alignment;
        o.kernels = orDie(kernelPolicyFromEnvironment());  // VKINFER_* as sessions take them
        progress::SlowNotice notice("plan: compiling the plan");
        text = a.json ? planJson(model, shapes, o) : planText(model, shapes, o);
    }
    const std::string out = orDie(std::move(text));
    fmt::print("{}{}", out, a.json ? "\n" : "");
}

}  // namespace

void addPlanCommand(CLI::App& app, GlobalOptions& g) {
    auto* cmd = app.add_subcommand(
        "plan", "Print the execution plan: dispatches in recording order with their waves and barriers, and the memory "
                "plan. Without --device it plans on the CPU for no device in particular (the portable kernels; no GPU "
                "needed); with --device N, the plan a session on that device runs (its tensor-core and tile kernels). "
                "Both take the VKINFER_* kernel variables of docs/CLI.md as run, check and bench do");
    auto a = std::make_shared<PlanArgs>();
    cmd->add_option("model", a->model, "ONNX model file")->required()->check(nonEmpty());
    cmd->add_flag("--json", a->json, "Print the plan as JSON (format in docs/CLI.md)");
    cmd->add_option("--shape", a->shapes,
                    "Input shape NAME=1x3x224x224 for dynamic inputs (default: the model's static shape, else the "
                    "shape in test_data_set_0 beside the model)");
    cmd->add_option("--alignment", a->alignment,
                    "Byte alignment of tensors in the arena: a power of two from 16 to 65536 (without --device)")
        ->capture_default_str()
        ->check(powerOfTwo(16, 65536));
    cmd->callback([a, &g] { planCommand(*a, g); });
}

}  // namespace vkinfer::cli
