// vkinfer bench: latency per inference over many runs.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include <nlohmann/json.hpp>

#include "bench_profile.h"
#include "common.h"
#include "inputs.h"

namespace vkinfer::cli {

namespace {

// More would only fill memory with samples (a double each) for a benchmark nobody waits for.
constexpr int kMaxIterations = 1000000;

struct BenchArgs {
    std::string model;
    int iters = 50;
    int warmup = 5;
    std::vector<std::string> inputs;
    std::vector<std::string> shapes;
    bool json = false;
    bool profile = false;
    int top = 15;
};

void benchCommand(const BenchArgs& a, const GlobalOptions& g) {
    if (!a.inputs.empty() && !a.shapes.empty())
        throw CliError("--shape applies only to generated inputs (inputs from -i files have the files' shapes)", 2);
    Model model = orDie(Model::load(a.model));
    std::vector<NamedTensor> inputs =
        a.inputs.empty() ? syntheticInputs(model, resolveShapesWithDefaults(model, a.model, parseShapes(a.shapes, model)))
                         : loadInputs(a.inputs, model);
    Context ctx = makeContext(g);
    Session session = orDie(Session::create(ctx, model, sessionOptions(g)));
    for (int i = 0; i < std::max(a.warmup, 1); ++i) orDie(session.run(inputs));
    std::vector<double> wall, gpu;
    for (int i = 0; i < a.iters; ++i) {
        RunStats s;
        orDie(session.run(inputs, &s));
        wall.push_back(s.wallMs);
        if (s.gpuMs >= 0) gpu.push_back(s.gpuMs);
    }
    Stats w = statsOf(wall);
    std::string shapeText;
    for (const auto& in : inputs) shapeText += (shapeText.empty() ? "" : ", ") + in.name + "=" + shapeToString(in.tensor.shape());
    if (a.json) {
        nlohmann::json j{{"model", a.model},
                         {"device", ctx.device().name},
                         {"inputs", shapeText},
                         {"sync", syncModeName(syncMode(g))},
                         {"precision", precisionName(precision(g))},
                         {"iters", a.iters},
                         {"wall_ms", {{"median", w.median}, {"min", w.min}, {"p90", w.p90}, {"mean", w.mean}}}};
        if (!gpu.empty()) {
            Stats s = statsOf(gpu);
            j["gpu_ms"] = {{"median", s.median}, {"min", s.min}, {"p90", s.p90}, {"mean", s.mean}};
        }
        if (a.profile) j["profile"] = profileJson(profileDispatches(ctx, model, inputs, g, a.iters));
        fmt::print("{}\n", jsonText(j));
        return;
    }
    fmt::print("{} on {} ({}), sync {}, {}, {} iterations after {} warm-up\n", a.model, ctx.device().name, shapeText,
               syncModeName(syncMode(g)), precisionName(precision(g)), a.iters, std::max(a.warmup, 1));
    fmt::print("  wall ms   median {:8.3f}  min {:8.3f}  p90 {:8.3f}   (host copies, submit, wait)\n", w.median, w.min,
               w.p90);
    if (!gpu.empty()) {
        Stats s = statsOf(gpu);
        fmt::print("  GPU ms    median {:8.3f}  min {:8.3f}  p90 {:8.3f}   (timestamps around the dispatches)\n", s.median,
                   s.min, s.p90);
    } else {
        fmt::print("  GPU ms    n/a (the queue has no timestamp support)\n");
    }
    if (a.profile) printProfile(profileDispatches(ctx, model, inputs, g, a.iters), a.top, syncMode(g));
}

}  // namespace

void addBenchCommand(CLI::App& app, GlobalOptions& g) {
    auto* cmd = app.add_subcommand("bench", "Measure latency per inference: median, min and p90 of wall and GPU time");
    auto a = std::make_shared<BenchArgs>();
    cmd->add_option("model", a->model, "ONNX model file")->required()->check(nonEmpty());
    cmd->add_option("--iters", a->iters, "Timed iterations, 1 to 1000000")
        ->capture_default_str()
        ->check(intInRange(1, kMaxIterations));
    cmd->add_option("--warmup", a->warmup,
                    "Untimed iterations first, 0 to 1000000 (at least 1 runs: it compiles the plan)")
        ->capture_default_str()
        ->check(intInRange(0, kMaxIterations));
    cmd->add_option("-i,--input", a->inputs, "Input as NAME=FILE, as for run (default: uniform [0,1) values)");
    cmd->add_option("--shape", a->shapes, "Input shape NAME=1x3x224x224 for dynamic inputs (not with -i)");
    cmd->add_flag("--json", a->json, "Print JSON");
    auto* profile = cmd->add_flag("--profile", a->profile,
                  "Then time every dispatch (as many runs again, in a session with a timestamp after each dispatch): "
                  "totals per op and the slowest dispatches");
    cmd->add_option("--top", a->top, "With --profile: how many of the slowest dispatches to list (0 or more)")
        ->capture_default_str()
        ->check(intInRange(0, std::numeric_limits<int>::max()))
        ->needs(profile);
    cmd->callback([a, &g] { benchCommand(*a, g); });
}

}  // namespace vkinfer::cli
