// vkinfer run: one inference on given inputs, with an output summary and timing.
#include <algorithm>
#include <fmt/format.h>

#include <algorithm>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <algorithm>
#include <chrono>
#include <algorithm>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <algorithm>
#include <map>
#include <algorithm>
#include <set>

#include "common.h"
#include "image_model.h"
#include "inputs.h"
#include "output_files.h"
#include "progress.h"

namespace vkinfer::cli {

namespace fs = std::filesystem;

namespace {

struct RunArgs {
    std::string model;
    std::vector<std::string> inputs;
    std::string outDir;
    bool random = false;
    std::vector<std::string> shapes;
    std::vector<std::string> images;      // --image [NAME=]FILE
    std::vector<std::string> saveImages;  // --save-image [NAME=]FILE
    PixelOptions pixels;
};

// "NAME=FILE" or "FILE" (for the only input or output, `names`).
std::pair<std::string, std::string> namedFile(const std::string& spec, const char* option, const char* what,
                                              const std::vector<TensorDesc>& names) {
    std::string list;
    for (const auto& d : names) list += (list.empty() ? "'" : ", '") + d.name + "'";
    size_t eq = spec.find('=');
    std::string name = eq == std::string::npos ? "" : spec.substr(0, eq);
    std::string file = eq == std::string::npos ? spec : spec.substr(eq + 1);
    if (eq != std::string::npos && (name.empty() || file.empty()))
        throw CliError(fmt::format("{} '{}': expected NAME=FILE", option, spec), 2);
    if (name.empty()) {
        if (names.size() != 1)
            throw CliError(fmt::format("{} '{}': the model has {} {}s ({}); write {} NAME=FILE", option, spec,
                                       names.size(), what, list, option),
                           2);
        return {names[0].name, file};
    }
    for (const auto& d : names)
        if (d.name == name) return {name, file};
    throw CliError(fmt::format("{} '{}': the model has no {} '{}' (its {}s: {})", option, spec, what, name, what, list), 2);
}

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// The -i files (NAME=FILE or FILE), for the check that no output overwrites one.
std::vector<std::string> inputFiles(const std::vector<std::string>& specs) {
    std::vector<std::string> files;
    for (const auto& spec : specs) files.push_back(spec.substr(spec.find('=') == std::string::npos ? 0 : spec.find('=') + 1));
    return files;
}

// DIR/<output>.npy for each output; two names that clean up to one file name get _2, _3, ...
std::vector<std::string> npyPaths(const std::string& dir, const std::vector<TensorDesc>& outputs) {
    std::set<std::string> used;
    std::vector<std::string> paths;
    for (const auto& out : outputs) {
        std::string base = safeFileName(out.name), file = base;
        for (int k = 2; !used.insert(file).second; ++k) file = base + "_" + std::to_string(k);
        paths.push_back((fs::path(dir) / (file + ".npy")).string());
    }
    return paths;
}

void runCommand(const RunArgs& a, const GlobalOptions& g) {
    if (a.random && (!a.inputs.empty() || !a.images.empty()))
        throw CliError("--random and -i or --image exclude each other: give every input from a file, or none", 2);
    if (!a.random && !a.shapes.empty())
        throw CliError("--shape applies only to --random (inputs from -i files have the files' shapes)", 2);
    if (a.images.empty() && a.saveImages.empty() && (a.pixels.meanGiven || a.pixels.scaleGiven))
        throw CliError("--mean and --scale apply to --image and --save-image", 2);
    const PixelArgs pixels = parsePixelMapping(a.pixels);
    const PixelMapping& mapping = pixels.mapping;
    // Every file this run writes is checked before the model runs, and a folder it creates for
    // them is removed again if it fails before writing (OutputFolder).
    OutputFolder folder(a.outDir);
    Model model = orDie(Model::load(a.model));
    std::vector<std::string> readFiles = inputFiles(a.inputs);
    for (const auto& spec : a.images) readFiles.push_back(inputFiles({spec})[0]);
    std::vector<std::pair<std::string, std::string>> saves;  // (output, file)
    for (const auto& spec : a.saveImages) {
        auto [name, file] = namedFile(spec, "--save-image", "output", model.outputs());
        checkImageOutput(file, "--save-image '" + spec + "'");
        checkNotAnInput(file, readFiles, "--save-image '" + spec + "'");
        saves.emplace_back(name, file);
    }
    const std::vector<std::string> npys = a.outDir.empty() ? std::vector<std::string>{} : npyPaths(a.outDir, model.outputs());
    for (const auto& path : npys) {
        std::error_code ec;
        if (fs::is_directory(path, ec)) throw CliError(fmt::format("-o '{}': '{}' is a folder", a.outDir, path), 2);
        checkNotAnInput(path, readFiles, "-o '" + a.outDir + "'");
    }
    std::vector<NamedTensor> inputs;
    std::map<std::string, std::string> fromImages;  // input -> the --image that feeds it
    for (const auto& spec : a.images) {
        auto [name, file] = namedFile(spec, "--image", "input", model.inputs());
        if (auto [it, fresh] = fromImages.emplace(name, "--image '" + spec + "'"); !fresh)
            throw CliError(fmt::format("input '{}' is given twice: {} and --image '{}'", name, it->second, spec), 2);
        const TensorDesc* desc = nullptr;
        for (const auto& d : model.inputs())
            if (d.name == name) desc = &d;
        Image image = orDie(loadImage(file));
        const uint32_t channels = imageInputChannels(*desc, image.channels);
        imageInputShape(*desc, image, channels);
        checkPixelChannels(pixels, channels, "input '" + name + "'");
        inputs.push_back({name, orDie(imageToTensor(image, channels, mapping))});
    }
    if (a.random) {
        inputs = syntheticInputs(model, resolveShapesWithDefaults(model, a.model, parseShapes(a.shapes, model)));
    } else if (a.inputs.empty() && a.images.empty() &&
               std::any_of(model.inputs().begin(), model.inputs().end(), [](const auto& d) { return !d.hasDefault; })) {
        std::string list;
        for (const auto& d : model.inputs())
            if (!d.hasDefault)
                list += fmt::format("{}{} ({} {})", list.empty() ? "" : ", ", d.name, dataTypeName(d.dtype),
                                    shapeToString(d.shape));
        throw CliError(fmt::format("no inputs given; the model takes {}: give each with -i NAME=FILE (.npy or .pb), "
                                   "or use --random (or --image NAME=FILE for an image input)",
                                   list),
                       2);
    } else {
        for (auto& t : loadInputs(a.inputs, model, fromImages)) inputs.push_back(std::move(t));
    }

    Context ctx = makeContext(g);
    Session session = orDie(Session::create(ctx, model, sessionOptions(g)));
    InputShapes shapes;
    for (const auto& in : inputs) shapes.emplace_back(in.name, in.tensor.shape());
    auto t0 = std::chrono::steady_clock::now();
    {
        progress::SlowNotice notice("run: planning the model, creating pipelines, uploading weights");
        orDie(session.prepare(shapes));
    }
    double prepareMs = msSince(t0);
    RunStats stats;
    auto outputs = orDie(session.run(inputs, &stats));

    fmt::print("model   {} (opset {}, {}) on {}\n", a.model, model.opset(),
               counted(static_cast<int64_t>(model.nodeCount()), "node"), ctx.device().name);
    for (const auto& in : inputs) fmt::print("input   {}: {}\n", in.name, summarize(in.tensor));
    for (const auto& out : outputs) fmt::print("output  {}: {}\n", out.name, summarize(out.tensor));
    fmt::print("time    prepare {:.1f} ms (plan, pipelines, weight upload); inference {:.2f} ms wall, {} GPU; sync {}, {}{}\n",
               prepareMs, stats.wallMs, stats.gpuMs >= 0 ? fmt::format("{:.2f} ms", stats.gpuMs) : "n/a",
               syncModeName(syncMode(g)), precisionName(precision(g)), ctx.validationEnabled() ? ", validation on (no messages)" : "");
    const MemoryStats mem = ctx.memoryStats();
    fmt::print("memory  device peak {}: weights {}, arena {}, inputs/outputs {}, staging {} (peak of each)\n",
               bytesText(mem.peakTotal), bytesText(mem.peak.weights), bytesText(mem.peak.arena), bytesText(mem.peak.io),
               bytesText(mem.peak.staging));

    // The .npy files first, then the images (docs/CLI.md).
    for (size_t k = 0; k < npys.size() && k < outputs.size(); ++k) {
        const std::string note = replacedNote(npys[k]);
        orDie(saveNpy(npys[k], outputs[k].tensor));
        fmt::print("wrote   {}{}\n", npys[k], note);
    }
    for (const auto& [name, file] : saves) {
        for (const auto& out : outputs) {
            if (out.name != name) continue;
            const auto& shape = out.tensor.shape();
            if (shape.size() >= 3) checkPixelChannels(pixels, static_cast<uint32_t>(shape[shape.size() - 3]), "output '" + name + "'");
            auto image = tensorToImage(out.tensor, mapping);
            if (!image.ok()) throw CliError(fmt::format("--save-image: output '{}': {}", name, image.status().message()));
            std::string note = replacedNote(file);
            const Image stored = forFormat(std::move(*image), file, &note);
            orDie(saveImage(file, stored));
            fmt::print("wrote   {} ({} from output '{}'){}\n", file, imageText(stored), name, note);
        }
    }
    folder.keep();
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
    cmd->add_option("--image", a->images,
                    "Image input as NAME=FILE (.png or .jpg; FILE alone for a single-input model): a [1, C, H, W] "
                    "float32 tensor, RGB(A) in [0, 1] before --mean/--scale; H and W from the image");
    cmd->add_option("--save-image", a->saveImages,
                    "Write an output of 1, 3 or 4 channels as an image: NAME=FILE.png/.jpg (FILE alone for a "
                    "single-output model); values mapped back through --mean/--scale, clamped and rounded");
    auto* meanOption = cmd->add_option("--mean", a->pixels.mean,
                    "Per-channel mean for --image/--save-image: tensor = (pixel/255 - mean) * scale (R,G,B or one "
                    "value; default 0)");
    auto* scaleOption =
        cmd->add_option("--scale", a->pixels.scale, "Per-channel scale for --image/--save-image (R,G,B or one value; default 1)");
    cmd->add_flag("--random", a->random,
                  "Use uniform [0,1) inputs instead of files (shapes from --shape, the model, or test_data_set_0 beside "
                  "it); not with -i or --image");
    cmd->add_option("--shape", a->shapes,
                    "Input shape NAME=1x3x224x224 for --random with dynamic dimensions (only with --random: files have "
                    "their own shapes)");
    cmd->callback([a, &g, meanOption, scaleOption] {
        a->pixels.meanGiven = meanOption->count() > 0;
        a->pixels.scaleGiven = scaleOption->count() > 0;
        runCommand(*a, g);
    });
}

}  // namespace vkinfer::cli
