// vkinfer bench: latency per inference over many runs.
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "bench_profile.h"
#include "common.h"
#include "inputs.h"
#include "progress.h"
#include "trace.h"

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
    std::string trace;
};

// Fails before the benchmark when the trace cannot be written.
void checkTraceFile(const std::string& path) {
    if (std::filesystem::is_directory(path)) throw CliError(fmt::format("--trace '{}' is a folder, not a file", path), 2);
    std::ofstream f(path, std::ios::app);
    if (!f) throw CliError(fmt::format("--trace '{}': cannot write the file: {}", path, std::strerror(errno)));
}

// One profiled run (after a warm-up) in a session of its own, written as a Chrome trace.
size_t writeTrace(const std::string& path, const Context& ctx, const Model& model, const std::vector<NamedTensor>& inputs,
                  const GlobalOptions& g) {
    SessionOptions o = sessionOptions(g);
    o.profile = true;
    Session session = orDie(Session::create(ctx, model, o));
    orDie(session.run(inputs));
    RunStats stats;
    orDie(session.run(inputs, &stats));
    InputShapes shapes;
    for (const auto& in : inputs) shapes.emplace_back(in.name, in.tensor.shape());
    nlohmann::json plan = nlohmann::json::parse(orDie(session.planJson(shapes)));
    plan["model"] = model.label();
    nlohmann::json trace = chromeTrace(plan, stats, ctx.device().name);
    std::ofstream f(path, std::ios::trunc);
    f << jsonText(trace, -1) << "\n";
    if (!f) throw CliError(fmt::format("--trace '{}': cannot write the file: {}", path, std::strerror(errno)));
    return stats.dispatchStartMs.size();
}

void benchCommand(const BenchArgs& a, const GlobalOptions& g) {
    if (!a.inputs.empty() && !a.shapes.empty())
        throw CliError("--shape applies only to generated inputs (inputs from -i files have the files' shapes)", 2);
    if (!a.trace.empty()) checkTraceFile(a.trace);
    Model model = orDie(Model::load(a.model));
    std::vector<NamedTensor> inputs =
        a.inputs.empty() ? syntheticInputs(model, resolveShapesWithDefaults(model, a.model, parseShapes(a.shapes, model)))
                         : loadInputs(a.inputs, model);
    Context ctx = makeContext(g);
    Session session = orDie(Session::create(ctx, model, sessionOptions(g)));
    // The header first, so that a long benchmark shows what it is measuring while it runs.
    if (!a.json) {
        fmt::print("{} on {} ({}), sync {}, {}, {} iterations after {} warm-up\n", a.model, ctx.device().name, inputsText(inputs),
                   syncModeName(syncMode(g)), precisionName(precision(g)), a.iters, std::max(a.warmup, 1));
        std::fflush(stdout);
    }
    auto lastShown = std::chrono::steady_clock::now() - std::chrono::seconds(1);
    auto show = [&](int done, int total) {  // on a terminal only, at most ten times a second
        auto now = std::chrono::steady_clock::now();
        if (now - lastShown < std::chrono::milliseconds(100)) return;
        lastShown = now;
        progress::update(fmt::format("bench: {} of {} runs", done, total), false);
    };
    nlohmann::json j = benchJson(session, ctx, a.model, inputs, {a.iters, a.warmup}, show);
    progress::clear();
    if (a.json) {
        if (a.profile) j["profile"] = profileJson(profileDispatches(ctx, model, inputs, sessionOptions(g), a.iters));
        if (!a.trace.empty()) {
            writeTrace(a.trace, ctx, model, inputs, g);
            j["trace"] = a.trace;
        }
        fmt::print("{}\n", jsonText(j));
        return;
    }
    const auto& w = j["wall_ms"];
    fmt::print("  wall ms   median {:8.3f}  min {:8.3f}  p90 {:8.3f}   (host copies, submit, wait)\n",
               w["median"].get<double>(), w["min"].get<double>(), w["p90"].get<double>());
    if (j.contains("gpu_ms")) {
        const auto& s = j["gpu_ms"];
        fmt::print("  GPU ms    median {:8.3f}  min {:8.3f}  p90 {:8.3f}   (timestamps around the dispatches)\n",
                   s["median"].get<double>(), s["min"].get<double>(), s["p90"].get<double>());
    } else {
        fmt::print("  GPU ms    n/a (the queue has no timestamp support)\n");
    }
    if (a.profile) printProfile(profileDispatches(ctx, model, inputs, sessionOptions(g), a.iters), a.top, syncMode(g));
    if (!a.trace.empty()) {
        size_t n = writeTrace(a.trace, ctx, model, inputs, g);
        fmt::print("  trace     {} dispatches of one run written to {} (open in ui.perfetto.dev or chrome://tracing)\n",
                   n, a.trace);
    }
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
    cmd->add_option("--trace", a->trace,
                    "Then write a Chrome/Perfetto trace of one profiled run to FILE.json: every dispatch a slice on "
                    "the GPU timeline, named by its ONNX nodes, barriers as instants (format in docs/CLI.md)")
        ->check(nonEmpty());
    cmd->callback([a, &g] { benchCommand(*a, g); });
}

}  // namespace vkinfer::cli
