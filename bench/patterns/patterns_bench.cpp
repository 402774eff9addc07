// Time per frame of the integration patterns side by side, in one process on one device: the
// demo renderer's frame (examples/frame_upscale: a scene pass, the model's 2x upscale, a
// composite pass) in each pattern, for any 2x upscaler with an [N, 3, H, W] float input
// (docs/BENCHMARKS.md). Per run, medians over the frames after one warm-up frame:
//
//   render     the renderer's GPU work: scene and composite passes (and the copy out with --check)
//   transfer   moving the frame between the renderer's images and the model's tensors
//   inference  the model's dispatches (GPU timestamps)
//   handoff    the frame's period beyond the GPU work: the synchronization between renderer and
//              inference (host waits, semaphore waits, recording and submission that no GPU
//              work hides). For the async pattern, whose render runs beside the inference, the
//              period beyond max(render, transfer + inference)
//   frame      the period: from one frame's completion to the next's, with the pattern's
//              frames in flight
//   cpu        the host's time submitting the frame (recording, submissions, and the waits of
//              patterns that wait on the host), which frames in flight hide from the period
//
// It runs every combination of the lists given (--sharing only matters to async, --order only
// to shared and async). The old form `vkinfer_patterns MODEL W H FRAMES` still works.
#include <vkinfer/vkinfer.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "frame_check.h"
#include "frame_loop.h"
#include "option_values.h"
#include "pattern.h"
#include "vk_util.h"
#include "vulkan_host.h"

namespace {

using namespace demo;

const char* kUsage =
    "Usage: vkinfer_patterns MODEL [OPTIONS]      (or: vkinfer_patterns MODEL WIDTH HEIGHT FRAMES)\n"
    "Runs the demo renderer's frame in each integration pattern with MODEL (a 2x upscaler, input [N,3,H,W]\n"
    "float32) and prints the medians of render, transfer, inference, handoff, frame time and the host's submit\n"
    "time (ms) per run.\n"
    "Lists are comma-separated; every combination runs.\n"
    "\n"
    "  --pattern LIST    separate, shared, interleaved, async (default: all four)\n"
    "  --size WxH        the rendered frame (default 960x540)\n"
    "  --frames N        frames per run after one warm-up frame (default 50)\n"
    "  --precision LIST  fp32, fp16 (default fp32)\n"
    "  --scene-cost LIST extra shading rounds per pixel of the scene pass (default 0)\n"
    "  --sharing LIST    async: exclusive (ownership transfers), concurrent (default exclusive)\n"
    "  --order LIST      shared and async: pipelined (a frame's composite after the next frame's render),\n"
    "                    serial (default pipelined)\n"
    "  --device N        Vulkan device index\n"
    "  --validate        validation layer with synchronization validation; any message fails (exit 1)\n"
    "  --check           check every frame as vkinfer_demo --check does (model panel against Session::run)\n"
    "  --json FILE       write every run's medians as JSON\n"
    "  -h, --help        print this help\n";

struct Options {
    std::string model;
    std::vector<PatternKind> patterns{PatternKind::Separate, PatternKind::Shared, PatternKind::Interleaved,
                                      PatternKind::Async};
    uint32_t width = 960, height = 540, frames = 50;
    std::vector<vkinfer::Precision> precisions{vkinfer::Precision::Float32};
    std::vector<uint32_t> sceneCosts{0};
    std::vector<Sharing> sharings{Sharing::Exclusive};
    std::vector<bool> pipelined{true};
    int device = -1;
    bool validate = false, check = false, help = false;
    std::string json;
};

// Splits "a,b,c" and parses each with `one`; the first error wins.
template <class T, class Parse>
std::string list(const std::string& option, const std::string& value, std::vector<T>* out, Parse one) {
    out->clear();
    size_t start = 0;
    while (true) {
        size_t comma = value.find(',', start);
        T v{};
        std::string error = one(option, value.substr(start, comma - start), &v);
        if (!error.empty()) return error;
        out->push_back(v);
        if (comma == std::string::npos) return "";
        start = comma + 1;
    }
}

std::string parse(int argc, char** argv, Options& o) {
    static const std::map<std::string, bool> known = {
        {"--pattern", true},    {"--size", true},  {"--frames", true},   {"--precision", true}, {"--scene-cost", true},
        {"--sharing", true},    {"--order", true}, {"--device", true},   {"--json", true},      {"--validate", false},
        {"--check", false},     {"--help", false}, {"-h", false}};
    std::vector<std::string> positional;
    std::string error = option::walk(
        argc, argv, known,
        [&](const std::string& arg, const std::string& value) -> std::string {
            if (arg == "--help" || arg == "-h") o.help = true;
            else if (arg == "--validate") o.validate = true;
            else if (arg == "--check") o.check = true;
            else if (arg == "--pattern") return list(arg, value, &o.patterns, option::pattern);
            else if (arg == "--size") return option::size(arg, value, &o.width, &o.height);
            else if (arg == "--frames") return option::frames(arg, value, &o.frames);
            else if (arg == "--precision") return list(arg, value, &o.precisions, option::precision);
            else if (arg == "--scene-cost") return list(arg, value, &o.sceneCosts, option::sceneCost);
            else if (arg == "--sharing") return list(arg, value, &o.sharings, option::sharing);
            else if (arg == "--device") return option::device(arg, value, &o.device);
            else if (arg == "--order")
                return list(arg, value, &o.pipelined, [](const std::string& opt, const std::string& v, bool* p) {
                    if (v != "pipelined" && v != "serial") return opt + " '" + v + "': expected pipelined or serial";
                    *p = v == "pipelined";
                    return std::string();
                });
            else if (value.empty()) return "option " + arg + " needs a non-empty value";
            else o.json = value;
            return "";
        },
        [&](const std::string& arg) {
            positional.push_back(arg);
            return std::string();
        });
    if (!error.empty() || o.help) return error;
    if (positional.empty()) return "the model is missing (vkinfer_patterns MODEL [OPTIONS])";
    o.model = positional[0];
    if (positional.size() == 4) {  // the old form: MODEL WIDTH HEIGHT FRAMES
        if (!(error = option::size("WIDTH HEIGHT", positional[1] + "x" + positional[2], &o.width, &o.height)).empty())
            return error;
        return option::frames("FRAMES", positional[3], &o.frames);
    }
    if (positional.size() != 1) return "unexpected argument '" + positional[1] + "'";
    return "";
}

struct Run {
    PatternConfig config;
    uint32_t inFlight = 0;
    FrameTimes median;
    bool checked = true;
    size_t engineMessages = 0;  // validation messages of vkinfer's own contexts
    std::string path;
};

// One pattern for `frames` frames; the model panel of each frame checked with `checker`.
// Nothing where the serial order was asked of a pattern that cannot pipeline here (one frame
// in flight: the run would repeat the pipelined one).
std::optional<Run> runOne(VulkanHost& host, const PatternConfig& config, uint32_t frames, FrameChecker* checker) {
    Run r;
    r.config = config;
    std::unique_ptr<Pattern> pattern = makePattern(host, config);
    r.inFlight = pattern->framesInFlight();
    if (!config.pipelined && r.inFlight == 1) return std::nullopt;
    r.path = pattern->describe();
    std::vector<FrameTimes> times = runFrames(*pattern, frames, [](double) {}, [&](uint32_t k, FrameOutput& f) {
        if (!checker) return;
        CheckResult c = checker->check(f.scene, f.composite, f.layout);
        if (!c.pass) std::printf("check frame %04u: %s\n", k, c.summary.c_str());
        r.checked = r.checked && c.pass;
    }).times;
    r.median = medianTimes(times);
    for (auto& m : pattern->engineMessages()) {
        std::fprintf(stderr, "validation (vkinfer context): %s\n", m.c_str());
        ++r.engineMessages;
    }
    return r;
}

void printRow(const Run& r) {
    const PatternConfig& c = r.config;
    std::string variant = Pattern::name(c.kind);
    if (c.kind == PatternKind::Async) variant += c.sharing == Sharing::Concurrent ? " concurrent" : " exclusive";
    if ((c.kind == PatternKind::Async || c.kind == PatternKind::Shared) && r.inFlight > 1 && !c.pipelined)
        variant += " serial";
    const FrameTimes& t = r.median;
    std::printf("| %-23s | %s | %5u | %u | %8.3f | %8.3f | %9.3f | %8.3f | %8.3f | %7.3f |\n", variant.c_str(),
                vkinfer::precisionName(c.precision), c.sceneCost, r.inFlight, t.renderMs, t.transferMs, t.inferenceMs,
                t.syncMs, t.totalMs, t.cpuMs);
    std::fflush(stdout);
}

nlohmann::json runJson(const Run& r) {
    const FrameTimes& t = r.median;
    return {{"pattern", Pattern::name(r.config.kind)},
            {"precision", vkinfer::precisionName(r.config.precision)},
            {"scene_cost", r.config.sceneCost},
            {"sharing", r.config.sharing == Sharing::Concurrent ? "concurrent" : "exclusive"},
            {"pipelined", r.config.pipelined},
            {"frames_in_flight", r.inFlight},
            {"path", r.path},
            {"render_ms", t.renderMs},
            {"transfer_ms", t.transferMs},
            {"inference_ms", t.inferenceMs},
            {"handoff_ms", t.syncMs},
            {"frame_ms", t.totalMs},
            {"cpu_ms", t.cpuMs},
            {"overlapped", t.overlapped},
            {"timestamps", t.known},
            {"check_passed", r.checked}};
}

int run(const Options& o) {
    auto model = vkinfer::Model::load(o.model);
    check(model.status(), "loading " + o.model);
    std::shared_ptr<MessageLog> log;
    std::vector<Run> runs;
    bool checked = true;
    size_t engineMessages = 0;
    {
        const bool validate = o.validate || vkinfer::validationRequestedByEnvironment();
        VulkanHost host(validate, o.device);
        log = host.sharedLog();
        std::printf("%s, %ux%u -> %ux%u, %s, median of %u frames after one warm-up (ms)%s\n", o.model.c_str(),
                    o.width, o.height, 2 * o.width, 2 * o.height, host.deviceName.c_str(), o.frames,
                    validate ? ", under validation" : "");
        std::printf("async compute queue: %s\n\n", host.asyncChoice.description.c_str());
        std::printf("| pattern                 | prec | scene | in flight | render | transfer | inference | handoff "
                    "| frame | cpu |\n|---|---|---|---|---|---|---|---|---|---|\n");
        for (vkinfer::Precision precision : o.precisions) {
            std::unique_ptr<FrameChecker> checker;
            if (o.check) checker = std::make_unique<FrameChecker>(*model, host.deviceUuid, validate, precision);
            for (uint32_t cost : o.sceneCosts)
                for (PatternKind kind : o.patterns)
                    for (size_t s = 0; s < (kind == PatternKind::Async ? o.sharings.size() : 1); ++s)
                        for (size_t p = 0; p < (kind == PatternKind::Async || kind == PatternKind::Shared
                                                    ? o.pipelined.size()
                                                    : 1);
                             ++p) {
                            PatternConfig c;
                            c.kind = kind;
                            c.width = o.width;
                            c.height = o.height;
                            c.model = &*model;
                            c.modelCaption = "vkinfer";
                            c.precision = precision;
                            c.validate = validate;
                            c.keepScene = o.check;
                            c.readback = o.check;
                            c.sceneCost = cost;
                            c.sharing = o.sharings[s];
                            c.pipelined = o.pipelined[p];
                            std::optional<Run> r = runOne(host, c, o.frames, checker.get());
                            if (!r) continue;
                            runs.push_back(std::move(*r));
                            printRow(runs.back());
                            checked = checked && runs.back().checked;
                            engineMessages += runs.back().engineMessages;
                        }
            if (checker)
                for (auto& m : checker->engineMessages()) {
                    std::fprintf(stderr, "validation (vkinfer context): %s\n", m.c_str());
                    ++engineMessages;
                }
        }
        std::printf("\n");
        std::set<std::string> printed;  // each path the runs took, once
        for (const Run& r : runs)
            if (printed.insert(r.path).second) std::printf("%s\n", r.path.c_str());
    }
    const size_t messages = log->messages().size() + engineMessages;
    if (o.validate) std::printf("validation: %zu messages\n", messages);
    if (o.check) std::printf("check: %s\n", checked ? "every frame passed" : "FAILED");
    if (!o.json.empty()) {
        nlohmann::json j = {{"model", o.model}, {"width", o.width}, {"height", o.height}, {"frames", o.frames}};
        for (const Run& r : runs) j["runs"].push_back(runJson(r));
        std::ofstream f(o.json);
        f << j.dump(1) << "\n";
        if (!f) throw DemoError("--json '" + o.json + "': cannot write the file");
    }
    return messages == 0 && checked ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    std::string error = parse(argc, argv, o);
    if (!error.empty()) {
        std::fprintf(stderr, "vkinfer_patterns: error: %s\n(vkinfer_patterns --help lists the options)\n", error.c_str());
        return 2;
    }
    if (o.help) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    try {
        return run(o);
    } catch (const std::exception& e) {
        std::fflush(stdout);
        std::fprintf(stderr, "vkinfer_patterns: error: %s\n", e.what());
        return 1;
    }
}
