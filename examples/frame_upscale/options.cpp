#include "options.h"

#include <map>

#include "option_values.h"

namespace demo {

const char* usageText() {
    return "Usage: vkinfer_demo [OPTIONS]\n"
           "Renders an animated scene with a graphics pipeline, upscales each frame 2x with vkinfer, composites the\n"
           "model's upscale beside a bicubic one with captions, writes PNG frames and prints where each frame's time\n"
           "went (render, transfer, sync, inference).\n"
           "\n"
           "Options:\n"
           "  --pattern NAME    interleaved (default): vkinfer records into the renderer's command buffer;\n"
           "                    shared: vkinfer on its own context, tensors in shared memory (fds), semaphores as\n"
           "                    fds where the device allows, host waits where not; separate: CPU copies;\n"
           "                    async: the renderer's device, inference on a compute queue beside the graphics\n"
           "                    queue (a fallback queue where the device has no compute-only family: printed)\n"
           "  --precision P     fp32 (default) or fp16: float16 storage of the model's weights and activations\n"
           "  --scene-cost N    N more rounds of shading work per pixel in the scene pass, 0 to 100000\n"
           "                    (default 0): a heavier render, e.g. as long as the inference\n"
           "  --sharing MODE    async: how the images cross between the queue families: exclusive (default;\n"
           "                    queue family ownership transfers) or concurrent (VK_SHARING_MODE_CONCURRENT)\n"
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
    static const std::map<std::string, bool> known = {
        // name -> takes a value
        {"--pattern", true},   {"--frames", true},     {"--size", true},    {"--out", true},
        {"--model", true},     {"--device", true},     {"--json", true},    {"--inject-fault", true},
        {"--precision", true}, {"--scene-cost", true}, {"--sharing", true}, {"--validate", false},
        {"--check", false},    {"--help", false},      {"-h", false}};
    r.error = option::walk(argc, argv, known, [&](const std::string& arg, const std::string& value) -> std::string {
        if (arg == "--help" || arg == "-h") {
            o.help = true;
        } else if (arg == "--validate") {
            o.validate = true;
        } else if (arg == "--check") {
            o.check = true;
        } else if (arg == "--pattern") {
            return option::pattern(arg, value, &o.pattern);
        } else if (arg == "--precision") {
            return option::precision(arg, value, &o.precision);
        } else if (arg == "--scene-cost") {
            return option::sceneCost(arg, value, &o.sceneCost);
        } else if (arg == "--sharing") {
            return option::sharing(arg, value, &o.sharing);
        } else if (arg == "--frames") {
            return option::frames(arg, value, &o.frames);
        } else if (arg == "--size") {
            return option::size(arg, value, &o.width, &o.height);
        } else if (arg == "--device") {
            return option::device(arg, value, &o.device);
        } else if (arg == "--inject-fault") {
            if (value == "black")
                o.fault = Fault::Black;
            else if (value == "offset")
                o.fault = Fault::Offset;
            else
                return "--inject-fault '" + value + "': expected black or offset";
        } else {
            if (value.empty()) return "option " + arg + " needs a non-empty value";
            (arg == "--out" ? o.outDir : arg == "--model" ? o.model : o.json) = value;
        }
        return "";
    });
    return r;
}

}  // namespace demo
