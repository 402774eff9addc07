// vkinfer plan: the schedule, barriers and memory plan, computed without a GPU.
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
    // Planning describes no device: a device index would be accepted and ignored, where run
    // fails on the same index.
    if (g.device >= 0)
        throw CliError("--device: plan opens no device (it plans on the CPU for no device in particular); the option "
                       "applies to devices, run, check, bench and upscale",
                       2);
    Model model = [&] {
        progress::SlowNotice notice("plan: loading the model");
        return orDie(Model::load(a.model));
    }();
    InputShapes shapes = resolveShapesWithDefaults(model, a.model, parseShapes(a.shapes, model));
    PlanOptions o;
    o.sync = syncMode(g);
    o.precision = precision(g);
    o.alignment = a.alignment;
    Result<std::string> text = std::string();
    {
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
                "plan (no GPU needed)");
    auto a = std::make_shared<PlanArgs>();
    cmd->add_option("model", a->model, "ONNX model file")->required()->check(nonEmpty());
    cmd->add_flag("--json", a->json, "Print the plan as JSON (format in docs/CLI.md)");
    cmd->add_option("--shape", a->shapes,
                    "Input shape NAME=1x3x224x224 for dynamic inputs (default: the model's static shape, else the "
                    "shape in test_data_set_0 beside the model)");
    cmd->add_option("--alignment", a->alignment, "Byte alignment of tensors in the arena: a power of two from 16 to 65536")
        ->capture_default_str()
        ->check(powerOfTwo(16, 65536));
    cmd->callback([a, &g] { planCommand(*a, g); });
}

}  // namespace vkinfer::cli
