// vkinfer_demo: a small renderer that upscales its frames 2x with vkinfer, in each of the
// integration patterns of docs/INTEGRATION.md (--pattern), and with inference on an
// asynchronous compute queue (--pattern async). See usageText() in options.cpp for the
// options and pattern.h for how each pattern runs a frame.
//
//   vkinfer_demo --pattern interleaved --frames 3 --size 960x540 --out frames/
#include <vkinfer/image_io.h>
#include <vkinfer/vkinfer.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "frame_check.h"
#include "frame_loop.h"
#include "options.h"
#include "pattern.h"
#include "vk_util.h"

#ifndef VKINFER_DEMO_DATA_DIR
#define VKINFER_DEMO_DATA_DIR "data"
#endif

namespace demo {
namespace {

namespace fs = std::filesystem;

// --model, or data/upscaler_x2 (the trained model) if present, else data/espcn_x2 (random
// weights: the picture looks odd), looked up under ./data and then the source tree's data/.
std::string resolveModel(const std::string& given) {
    if (!given.empty()) return fs::is_directory(given) ? (fs::path(given) / "model.onnx").string() : given;
    const std::string roots[] = {"data", VKINFER_DEMO_DATA_DIR};
    for (const char* name : {"upscaler_x2", "espcn_x2"})
        for (const auto& root : roots) {
            fs::path p = fs::path(root) / name / "model.onnx";
            if (fs::exists(p)) {
                if (std::string(name) != "upscaler_x2")
                    std::fprintf(stderr,
                                 "note: data/upscaler_x2/model.onnx not found; using %s (random weights: the "
                                 "upscale looks odd)\n",
                                 p.string().c_str());
                return p.string();
            }
        }
    throw DemoError(
        "no model found (looked for data/upscaler_x2/model.onnx and data/espcn_x2/model.onnx under ./data and " +
        std::string(VKINFER_DEMO_DATA_DIR) + "); pass --model PATH");
}

// The demo needs a 2x RGB upscaler: one float32 input [N,3,H,W], one float32 output.
void requireUpscalerInterface(const vkinfer::Model& model, const std::string& path, uint32_t W, uint32_t H) {
    if (model.inputs().size() != 1 || model.outputs().size() != 1)
        throw DemoError("'" + path + "' has " + std::to_string(model.inputs().size()) + " inputs and " +
                        std::to_string(model.outputs().size()) + " outputs; the demo needs one of each");
    const vkinfer::TensorDesc& in = model.inputs()[0];
    const vkinfer::TensorDesc& out = model.outputs()[0];
    if (in.dtype != vkinfer::DataType::Float32 || out.dtype != vkinfer::DataType::Float32)
        throw DemoError("'" + path + "': input '" + in.name + "' and output '" + out.name + "' must be float32");
    const auto& s = in.shape;
    auto fits = [&](size_t i, int64_t v) { return s[i] < 0 || s[i] == v; };
    if (in.rankKnown && (s.size() != 4 || !fits(0, 1) || !fits(1, 3)))
        throw DemoError("'" + path + "': input '" + in.name + "' must be [N, 3, H, W] (RGB)");
    if (in.rankKnown && (!fits(2, H) || !fits(3, W)))
        throw DemoError("'" + path + "' takes " + std::to_string(s[3]) + "x" + std::to_string(s[2]) +
                        " frames only: pass --size " + std::to_string(s[3]) + "x" + std::to_string(s[2]));
}

std::string modelCaption(const std::string& path) {
    std::string folder = fs::path(path).parent_path().filename().string();
    return "vkinfer " + (folder.empty() ? fs::path(path).stem().string() : folder);
}

void injectFault(FrameOutput& f, Fault fault) {
    const uint32_t CW = f.layout.width(), panel = f.layout.panelWidth();
    if (fault == Fault::Black) {
        for (size_t i = 0; i < f.composite.size(); i += 4) f.composite[i] = f.composite[i + 1] = f.composite[i + 2] = 0;
    } else if (fault == Fault::Offset) {
        for (uint32_t y = 0; y < f.layout.height(); ++y)
            for (uint32_t x = panel - 1; x > 0; --x)
                for (int c = 0; c < 4; ++c)
                    f.composite[4 * (size_t(y) * CW + x) + c] = f.composite[4 * (size_t(y) * CW + x - 1) + c];
    }
}

vkinfer::Image toRgb(const FrameOutput& f) {
    vkinfer::Image img;
    img.width = f.layout.width();
    img.height = f.layout.height();
    img.channels = 3;
    img.pixels.resize(size_t(img.width) * img.height * 3);
    for (size_t i = 0, n = size_t(img.width) * img.height; i < n; ++i)
        for (int c = 0; c < 3; ++c) img.pixels[3 * i + c] = f.composite[4 * i + c];
    return img;
}

nlohmann::json timesJson(const FrameTimes& t) {
    if (!t.known) return {{"total_ms", t.totalMs}, {"cpu_ms", t.cpuMs}, {"timestamps", false}};
    return {{"render_ms", t.renderMs}, {"transfer_ms", t.transferMs}, {"sync_ms", t.syncMs},
            {"inference_ms", t.inferenceMs}, {"total_ms", t.totalMs}, {"cpu_ms", t.cpuMs},
            {"overlapped", t.overlapped}};
}

int run(const Options& opt) {
    const bool validate = opt.validate || vkinfer::validationRequestedByEnvironment();
    const std::string modelPath = resolveModel(opt.model);
    auto model = vkinfer::Model::load(modelPath);
    check(model.status(), "loading the model");
    requireUpscalerInterface(*model, modelPath, opt.width, opt.height);
    if (!opt.outDir.empty()) {
        std::error_code ec;
        fs::create_directories(opt.outDir, ec);
        if (ec || !fs::is_directory(opt.outDir))
            throw DemoError("--out '" + opt.outDir + "': cannot create the folder" +
                            (ec ? " (" + ec.message() + ")" : ""));
    }

    std::shared_ptr<MessageLog> hostLog;
    std::vector<std::string> engineMessages;
    bool checksPassed = true;
    std::vector<FrameTimes> times;
    nlohmann::json report;
    {
        VulkanHost host(validate, opt.device);
        hostLog = host.sharedLog();
        PatternConfig config;
        config.kind = opt.pattern;
        config.width = opt.width;
        config.height = opt.height;
        config.model = &*model;
        config.modelCaption = modelCaption(modelPath);
        config.validate = validate;
        config.keepScene = opt.check;
        config.precision = opt.precision;
        config.sceneCost = opt.sceneCost;
        config.sharing = opt.sharing;
        const CompositeLayout layout = CompositeLayout::make(opt.width, opt.height, "", "");
        if (layout.width() > host.limits.maxImageDimension2D)
            throw DemoError("the composite frame would be " + std::to_string(layout.width()) + " pixels wide; '" +
                            host.deviceName + "' allows " + std::to_string(host.limits.maxImageDimension2D));

        std::unique_ptr<Pattern> pattern = makePattern(host, config);
        std::unique_ptr<FrameChecker> checker;
        if (opt.check) checker = std::make_unique<FrameChecker>(*model, host.deviceUuid, validate, opt.precision);
        std::printf("device: %s%s\n", host.deviceName.c_str(),
                    validate ? " (validation with synchronization validation)" : "");
        std::printf("model: %s (%s)\n", modelPath.c_str(), vkinfer::precisionName(opt.precision));
        std::printf("%s\n", pattern->describe().c_str());
        std::printf("frame %ux%u -> model %ux%u; composite %ux%u; %u frames; scene cost %u\n", opt.width, opt.height,
                    2 * opt.width, 2 * opt.height, layout.width(), layout.height(), opt.frames, opt.sceneCost);
        std::fflush(stdout);

        // One frame first, not counted: drivers compile pipelines at first use (lavapipe
        // does so at the first draw and dispatch), which would dominate the first frame.
        auto warmup = [](double ms) { std::printf("warm-up frame (not counted): %.3f ms\n", ms); };
        auto onFrame = [&](uint32_t k, FrameOutput& f) {
            std::printf("frame %04u: %s\n", k, formatTimes(f.times).c_str());
            injectFault(f, opt.fault);
            if (!opt.outDir.empty()) {
                char name[32];
                std::snprintf(name, sizeof(name), "frame_%04u.png", k);
                const std::string path = (fs::path(opt.outDir) / name).string();
                vkinfer::Image rgb = toRgb(f);
                check(vkinfer::saveImage(path, rgb), "writing " + path);
                if (opt.check) {
                    auto back = vkinfer::loadImage(path);
                    check(back.status(), "reading back " + path);
                    if (back->width != rgb.width || back->height != rgb.height || back->pixels != rgb.pixels) {
                        std::printf("check frame %04u: FAILED: %s does not read back as the frame written\n", k,
                                    path.c_str());
                        checksPassed = false;
                    }
                }
            }
            if (checker) {
                CheckResult r = checker->check(f.scene, f.composite, f.layout);
                std::printf("check frame %04u: %s%s\n", k, r.pass ? "ok: " : "", r.summary.c_str());
                checksPassed = checksPassed && r.pass;
            }
            std::fflush(stdout);
        };
        times = runFrames(*pattern, opt.frames, warmup, onFrame).times;

        FrameTimes median = medianTimes(times);
        std::printf("median of %u frames: %s\n", opt.frames, formatTimes(median).c_str());
        report = {{"pattern", Pattern::name(opt.pattern)},
                  {"path", pattern->describe()},
                  {"precision", vkinfer::precisionName(opt.precision)},
                  {"scene_cost", opt.sceneCost},
                  {"sharing", opt.sharing == Sharing::Concurrent ? "concurrent" : "exclusive"},
                  {"device", host.deviceName},
                  {"model", modelPath},
                  {"width", opt.width},
                  {"height", opt.height},
                  {"validation", validate},
                  {"median", timesJson(median)}};
        for (const FrameTimes& t : times) report["frames"].push_back(timesJson(t));
        engineMessages = pattern->engineMessages();
        if (checker)
            for (auto& m : checker->engineMessages()) engineMessages.push_back(std::move(m));
        pattern.reset();  // sessions and contexts before the renderer's device
        checker.reset();
    }
    // After the device and instance are gone: the layer reports leaks at destruction.
    std::vector<std::string> messages = hostLog->messages();
    for (const auto& m : engineMessages) std::fprintf(stderr, "validation (vkinfer context): %s\n", m.c_str());
    const size_t messageCount = messages.size() + engineMessages.size();
    if (validate) std::printf("validation: %zu messages\n", messageCount);
    if (!opt.json.empty()) {
        report["validation_messages"] = messageCount;
        if (opt.check) report["check_passed"] = checksPassed;
        std::ofstream f(opt.json);
        f << report.dump(1) << "\n";
        if (!f) throw DemoError("--json '" + opt.json + "': cannot write the file");
    }
    if (!opt.outDir.empty()) std::printf("frames written to %s\n", opt.outDir.c_str());
    if (opt.check) std::printf("check: %s\n", checksPassed ? "every frame passed" : "FAILED");
    return messageCount == 0 && checksPassed ? 0 : 1;
}

}  // namespace
}  // namespace demo

int main(int argc, char** argv) {
    demo::ParseResult parsed = demo::parseOptions(argc, argv);
    if (!parsed.error.empty()) {
        std::fprintf(stderr, "vkinfer_demo: error: %s\n(vkinfer_demo --help lists the options)\n",
                     parsed.error.c_str());
        return 2;
    }
    if (parsed.options.help) {
        std::fputs(demo::usageText(), stdout);
        return 0;
    }
    try {
        return demo::run(parsed.options);
    } catch (const std::exception& e) {
        std::fflush(stdout);
        std::fprintf(stderr, "vkinfer_demo: error: %s\n", e.what());
        return 1;
    }
}
