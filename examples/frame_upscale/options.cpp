#include "options.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>

namespace demo {

namespace {

constexpr uint32_t kMaxFrames = 1000000;
constexpr uint32_t kMinSide = 8, kMaxSide = 4096;

// A decimal number in [lo, hi], all of `text`.
std::optional<uint64_t> parseNumber(const std::string& text, uint64_t lo, uint64_t hi) {
    if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
    uint64_t v = std::strtoull(text.c_str(), nullptr, 10);
    if (v < lo || v > hi) return std::nullopt;
    return v;
}

}  // namespace

const char* usageText() {
    return "Usage: vkinfer_demo [OPTIONS]\n"
           "Renders an animated scene with a graphics pipeline, upscales each frame 2x with vkinfer, composites the\n"
           "model's upscale beside a bicubic one with captions, writes PNG frames and prints where each frame's time\n"
           "went (render, transfer, sync, inference).\n"
           "\n"
           "Options:\n"
           "  --pattern NAME    interleaved (default): vkinfer records into the renderer's command buffer;\n"
           "                    shared: vkinfer on its own context, tensors in shared memory (fds), semaphores as\n"
           "                    fds where the device allows, host waits where not; separate: CPU copies\n"
           "  --frames N        frames to render, 1 to 1000000 (default 3)\n"
           "  --size WxH        the rendered frame, each side 8 to 4096 (default 960x540); frames written are\n"
           "                    (4W + gap) x 2H\n"
           "  --out DIR         write DIR/frame_0000.png, ... (created if missing; default: write nothing)\n"
           "  --model PATH      the ONNX model, or a folder with model.onnx: a 2x upscaler with input [N,3,H,W]\n"
           "                    float32 RGB in [0,1] (default: data/upscaler_x2/model.onnx if present, else\n"
           "                    data/espcn_x2/model.onnx)\n"
           "  --device N        Vulkan device index (default: first discrete GPU, else integrated, else first)\n"
           "  --validate        Khronos validation layer with synchronization validation on every instance; any\n"
           "                    message fails the run (also: VKINFER_VALIDATE=1)\n"
           "  --check           check every frame: content, the model panel equal to Session::run's output, the\n"
           "                    bicubic panel equal to a CPU bicubic, PNGs read back equal; exit 1 if one fails\n"
           "  --json FILE       write per-frame timings and their medians as JSON\n"
           "  --inject-fault F  for testing --check: damage each frame before it is checked and written\n"
           "                    (black: all zero; offset: the model's panel shifted by one pixel)\n"
           "  -h, --help        print this help\n"
           "\n"
           "Exit status: 0 success, 1 failure (Vulkan or vkinfer error, validation message, failed check),\n"
           "2 usage error.\n";
}

ParseResult parseOptions(int argc, char** argv) {
    ParseResult r;
    Options& o = r.options;
    auto fail = [&](std::string message) {
        r.error = std::move(message);
        return r;
    };
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i], value;
        bool inlineValue = false;
        if (arg.rfind("--", 0) == 0) {
            size_t eq = arg.find('=');
            if (eq != std::string::npos) {
                value = arg.substr(eq + 1);
                arg = arg.substr(0, eq);
                inlineValue = true;
            }
        }
        static const std::map<std::string, bool> known = {
            // name -> takes a value
            {"--pattern", true},   {"--frames", true}, {"--size", true},  {"--out", true},
            {"--model", true},     {"--device", true}, {"--json", true},  {"--inject-fault", true},
            {"--validate", false}, {"--check", false}, {"--help", false}, {"-h", false}};
        auto it = known.find(arg);
        if (it == known.end())
            return fail(arg.rfind("-", 0) == 0 ? "unknown option '" + arg + "'"
                                               : "unexpected argument '" + arg + "' (options start with --)");
        if (!it->second) {
            if (inlineValue) return fail("option " + arg + " takes no value");
        } else if (!inlineValue) {
            if (i + 1 >= argc) return fail("option " + arg + " needs a value");
            value = argv[++i];
        }
        if (arg == "--help" || arg == "-h") {
            o.help = true;
        } else if (arg == "--validate") {
            o.validate = true;
        } else if (arg == "--check") {
            o.check = true;
        } else if (arg == "--pattern") {
            if (value == "interleaved")
                o.pattern = PatternKind::Interleaved;
            else if (value == "shared")
                o.pattern = PatternKind::Shared;
            else if (value == "separate")
                o.pattern = PatternKind::Separate;
            else
                return fail("--pattern '" + value + "': expected interleaved, shared or separate");
        } else if (arg == "--frames") {
            auto n = parseNumber(value, 1, kMaxFrames);
            if (!n)
                return fail("--frames '" + value + "': expected a whole number from 1 to " +
                            std::to_string(kMaxFrames));
            o.frames = static_cast<uint32_t>(*n);
        } else if (arg == "--size") {
            size_t x = value.find('x');
            auto w = x == std::string::npos ? std::nullopt : parseNumber(value.substr(0, x), kMinSide, kMaxSide);
            auto h = x == std::string::npos ? std::nullopt : parseNumber(value.substr(x + 1), kMinSide, kMaxSide);
            if (!w || !h)
                return fail("--size '" + value + "': expected WxH with each side a whole number from " +
                            std::to_string(kMinSide) + " to " + std::to_string(kMaxSide) + ", e.g. 960x540");
            o.width = static_cast<uint32_t>(*w);
            o.height = static_cast<uint32_t>(*h);
        } else if (arg == "--device") {
            auto n = parseNumber(value, 0, 1023);
            if (!n) return fail("--device '" + value + "': expected a device index (0, 1, ...)");
            o.device = static_cast<int>(*n);
        } else if (arg == "--inject-fault") {
            if (value == "black")
                o.fault = Fault::Black;
            else if (value == "offset")
                o.fault = Fault::Offset;
            else
                return fail("--inject-fault '" + value + "': expected black or offset");
        } else {
            if (value.empty()) return fail("option " + arg + " needs a non-empty value");
            (arg == "--out" ? o.outDir : arg == "--model" ? o.model : o.json) = value;
        }
    }
    return r;
}

}  // namespace demo
