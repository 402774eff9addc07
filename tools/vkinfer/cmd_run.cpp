// vkinfer run: one inference on given inputs, with an output summary and timing.
#include <fmt/format.h>

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "common.h"
#include "inputs.h"

namespace vkinfer::cli {

namespace fs = std::filesystem;

namespace {

struct RunArgs {
    std::string model;
    std::vector<std::string> inputs;
    std::string outDir;
    bool random = false;
    std::vector<std::string> shapes;
};

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Creates `dir` if needed and checks that files can be created in it: before the model is
// loaded, so that a bad -o does not cost a whole inference first.
void prepareOutputDir(const std::string& dir) {
    std::error_code ec;
    if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
        throw CliError(fmt::format("-o '{}' exists and is not a folder", dir), 2);
    fs::create_directories(dir, ec);
    if (ec) throw CliError(fmt::format("-o '{}': cannot create the folder: {}", dir, ec.message()));
    std::string probe = (fs::path(dir) / ".vkinfer-write-test-XXXXXX").string();
    int fd = mkstemp(probe.data());
    if (fd < 0) throw CliError(fmt::format("-o '{}': cannot create files in the folder: {}", dir, std::strerror(errno)));
    close(fd);
    unlink(probe.c_str());
}

void runCommand(const RunArgs& a, const GlobalOptions& g) {
    if (a.random && !a.inputs.empty())
        throw CliError("--random and -i exclude each other: give every input from a file, or none", 2);
    if (!a.random && !a.shapes.empty())
        throw CliError("--shape applies only to --random (inputs from -i files have the files' shapes)", 2);
    if (!a.outDir.empty()) prepareOutputDir(a.outDir);
    Model model = orDie(Model::load(a.model));
    std::vector<NamedTensor> inputs;
    if (a.random) {
        inputs = syntheticInputs(model, resolveShapesWithDefaults(model, a.model, parseShapes(a.shapes, model)));
    } else if (a.inputs.empty() && !model.inputs().empty()) {
        std::string list;
        for (const auto& d : model.inputs())
            list += fmt::format("\n  {} {} {}", d.name, dataTypeName(d.dtype), shapeToString(d.shape));
        throw CliError(fmt::format("no inputs given; the model takes:{}\ngive each with -i NAME=FILE (.npy or .pb), or "
                                   "use --random",
                                   list),
                       2);
    } else {
        inputs = loadInputs(a.inputs, model);
    }

    Context ctx = makeContext(g);
    Session session = orDie(Session::create(ctx, model, sessionOptions(g)));
    InputShapes shapes;
    for (const auto& in : inputs) shapes.emplace_back(in.name, in.tensor.shape());
    auto t0 = std::chrono::steady_clock::now();
    orDie(session.prepare(shapes));
    double prepareMs = msSince(t0);
    RunStats stats;
    auto outputs = orDie(session.run(inputs, &stats));

    fmt::print("model   {} (opset {}, {} nodes) on {}\n", a.model, model.opset(), model.nodeCount(), ctx.device().name);
    for (const auto& in : inputs) fmt::print("input   {}: {}\n", in.name, summarize(in.tensor));
    for (const auto& out : outputs) fmt::print("output  {}: {}\n", out.name, summarize(out.tensor));
    fmt::print("time    prepare {:.1f} ms (plan, pipelines, weight upload); inference {:.2f} ms wall, {} GPU; sync {}, {}{}\n",
               prepareMs, stats.wallMs, stats.gpuMs >= 0 ? fmt::format("{:.2f} ms", stats.gpuMs) : "n/a",
               syncModeName(syncMode(g)), precisionName(precision(g)), ctx.validationEnabled() ? ", validation on (no messages)" : "");

    if (!a.outDir.empty()) {
        std::set<std::string> used;
        for (const auto& out : outputs) {
            // Two names that clean up to the same file name get _2, _3, ... (never overwrite).
            std::string base = safeFileName(out.name), file = base;
            for (int k = 2; !used.insert(file).second; ++k) file = base + "_" + std::to_string(k);
            std::string path = (fs::path(a.outDir) / (file + ".npy")).string();
            orDie(saveNpy(path, out.tensor));
            fmt::print("wrote   {}\n", path);
        }
    }
}

}  // namespace

void addRunCommand(CLI::App& app, GlobalOptions& g) {
    auto* cmd = app.add_subcommand("run", "Run a model once on inputs from files and summarize the outputs");
    auto a = std::make_shared<RunArgs>();
    cmd->add_option("model", a->model, "ONNX model file")->required()->check(nonEmpty());
    cmd->add_option("-i,--input", a->inputs,
                    "Input as NAME=FILE (.npy or ONNX TensorProto .pb); FILE alone for a single-input model, or for a "
                    ".pb whose tensor name is one of the model's inputs");
    cmd->add_option("-o,--output-dir", a->outDir,
                    "Write each output to DIR/<output name>.npy (DIR is created, and checked before the model is loaded)")
        ->check(nonEmpty());
    cmd->add_flag("--random", a->random,
                  "Use uniform [0,1) inputs instead of files (shapes from --shape, the model, or test_data_set_0 beside "
                  "it); not with -i");
    cmd->add_option("--shape", a->shapes,
                    "Input shape NAME=1x3x224x224 for --random with dynamic dimensions (only with --random: files have "
                    "their own shapes)");
    cmd->callback([a, &g] { runCommand(*a, g); });
}

}  // namespace vkinfer::cli
