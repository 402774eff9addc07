// vkinfer upscale: an image through an image-to-image model (the project's own x2 upscaler
// by default), in tiles that keep the device within its limits and leave no seams.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>

#include "common.h"
#include "output_files.h"
#include "upscale_image.h"

namespace vkinfer::cli {

namespace fs = std::filesystem;

namespace {

struct UpscaleArgs {
    std::string input, output, model;
    int tile = -1;     // -1: chosen; 0: the whole image at once
    int overlap = -1;  // -1: measured
    PixelOptions pixels;
    int quality = 95;
};

constexpr const char* kDefaultModel = "upscaler_x2/model.onnx";

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string executableFolder() {
    std::error_code ec;
    fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string() : exe.parent_path().string();
}

// The default model: $VKINFER_DATA_DIR alone when set; else the installed tree's
// share/vkinfer beside the executable's bin/, else the source tree's data/ (a build tree).
std::string findDefaultModel() {
    std::vector<std::string> tried;
    auto look = [&](const fs::path& dir, const char* why) {
        const std::string path = (dir / kDefaultModel).string();
        tried.push_back(fmt::format("{} ({})", path, why));
        std::error_code ec;
        return fs::is_regular_file(path, ec);
    };
    if (const char* env = std::getenv("VKINFER_DATA_DIR"); env && *env) {
        if (look(env, "VKINFER_DATA_DIR")) return (fs::path(env) / kDefaultModel).string();
    } else {
        const std::string exeDir = executableFolder();
        if (!exeDir.empty() && look(fs::path(exeDir) / VKINFER_DATADIR_FROM_BINDIR, "installed data"))
            return (fs::path(exeDir) / VKINFER_DATADIR_FROM_BINDIR / kDefaultModel).lexically_normal().string();
        if (look(VKINFER_SOURCE_DATA_DIR, "source tree")) return (fs::path(VKINFER_SOURCE_DATA_DIR) / kDefaultModel).string();
    }
    std::string list;
    for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
    throw CliError(fmt::format("the default upscaling model was not found (looked for {}): give one with --model, or "
                               "set VKINFER_DATA_DIR to the folder holding {}",
                               list, kDefaultModel));
}

void upscaleCommand(const UpscaleArgs& a, const GlobalOptions& g) {
    const auto t0 = std::chrono::steady_clock::now();
    checkImageOutput(a.output, "output '" + a.output + "'");
    checkNotAnInput(a.output, {a.input}, "output '" + a.output + "'");
    UpscaleSettings settings;
    settings.tile = a.tile;
    settings.overlap = a.overlap;
    settings.pixels = parsePixelMapping(a.pixels);
    const Image original = orDie(loadImage(a.input));
    const std::string modelPath = a.model.empty() ? findDefaultModel() : a.model;
    Model model = orDie(Model::load(modelPath));
    Context ctx = makeContext(g);
    UpscaleResult r = upscaleImage(original, model, modelPath, ctx, sessionOptions(g), settings);
    std::string note = replacedNote(a.output) + r.note;
    Image out = forFormat(std::move(r.image), a.output, &note);
    orDie(saveImage(a.output, out, a.quality));

    fmt::print("upscaled {} ({}) to {} ({}), x{} by {}{}\n", a.input, imageText(original), a.output, imageText(out),
               r.scale, modelPath, note);
    fmt::print("tiles    {} of {}x{} input pixels ({}), overlap {} px ({}), {} plan{}\n", r.tiles, r.tileWidth,
               r.tileHeight, r.tileWhy, r.tiled ? r.overlap : 0, r.tiled ? r.overlapWhy : "none needed", r.plans,
               r.plans == 1 ? "" : "s");
    fmt::print("time     {:.0f} ms in all: tiles {:.0f} ms{}; on {}, {}\n", msSince(t0), r.tilesMs,
               r.probeMs > 0 ? fmt::format(", measuring the receptive field {:.0f} ms", r.probeMs) : "",
               ctx.device().name, precisionName(precision(g)));
}

}  // namespace

void addUpscaleCommand(CLI::App& app, GlobalOptions& g) {
    auto* cmd = app.add_subcommand(
        "upscale", "Upscale an image (PNG or JPEG) with the project's trained x2 model, or any image-to-image model, in "
                   "tiles that fit the device and leave no seams");
    auto a = std::make_shared<UpscaleArgs>();
    cmd->add_option("input", a->input, "Image to upscale (.png or .jpg; alpha is resized alongside)")
        ->required()
        ->check(nonEmpty());
    cmd->add_option("output", a->output, "Image to write (.png, or .jpg/.jpeg without alpha)")->required()->check(nonEmpty());
    cmd->add_option("--model", a->model,
                    "Image-to-image ONNX model: one input [N, C, H, W] (C 1, 3 or 4), one output [N, C', sH, sW] "
                    "(default: upscaler_x2/model.onnx from VKINFER_DATA_DIR, the installed share/vkinfer, or the "
                    "source tree's data/)")
        ->check(nonEmpty());
    cmd->add_option("--tile", a->tile,
                    "Tile edge in input pixels; 0: the whole image at once (default: the whole image if it fits the "
                    "device, else the largest square tile that does)")
        ->check(intInRange(0, 1 << 20));
    cmd->add_option("--overlap", a->overlap,
                    "Context pixels around each tile's kept part (default: the model's receptive field, measured, "
                    "plus 1)")
        ->check(intInRange(0, 1 << 16));
    auto* meanOption = cmd->add_option("--mean", a->pixels.mean,
                    "Per-channel mean: tensor = (pixel/255 - mean) * scale, and back for the output (R,G,B or one "
                    "value; default 0)");
    auto* scaleOption = cmd->add_option("--scale", a->pixels.scale, "Per-channel scale, as for --mean (default 1)");
    cmd->add_option("--quality", a->quality, "JPEG quality of the output, 1 to 100")
        ->capture_default_str()
        ->check(intInRange(1, 100));
    cmd->callback([a, &g, meanOption, scaleOption] {
        a->pixels.meanGiven = meanOption->count() > 0;
        a->pixels.scaleGiven = scaleOption->count() > 0;
        upscaleCommand(*a, g);
    });
}

}  // namespace vkinfer::cli
