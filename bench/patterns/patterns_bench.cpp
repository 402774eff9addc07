// Time per frame of the three integration patterns for one model and frame size, split into
// transfer, synchronization and inference (docs/BENCHMARKS.md):
//
//   separate context  Session::run on a CPU tensor. transfer = host copies into and out of
//                     staging + the GPU copies staging <-> tensors; inference = GPU time of
//                     the dispatches; synchronization = the rest of the wall time (submit,
//                     fence wait, command buffer overhead).
//   shared resources  input and output live in memory imported from an exporter (here the
//                     engine's own exportable buffers, imported by a second session), so no
//                     copy is made: submit({}) + wait. Same split.
//   interleaved       recordInference into the host's command buffer with an RGBA8 image in
//                     and out. transfer = the pre- and post-processing kernels; inference as
//                     above; synchronization = the rest of the wall time (recording, the
//                     barriers and layout transitions, the host's submit and fence wait).
//
//   vkinfer_patterns MODEL [WIDTH HEIGHT [ITERATIONS]]      (default 960 540 20)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <vkinfer/interop.h>
#include <vkinfer/vkinfer.h>

#include "host.h"

namespace {

struct Split {
    double transfer = 0, sync = 0, inference = 0, wall = 0;
};

template <class T>
T orExit(vkinfer::Result<T>&& r, const char* what) {
    if (!r.ok()) {
        std::fprintf(stderr, "%s: %s\n", what, r.status().toString().c_str());
        std::exit(1);
    }
    return std::move(r).value();
}
void orExit(const vkinfer::Status& s, const char* what) {
    if (!s.ok()) {
        std::fprintf(stderr, "%s: %s\n", what, s.toString().c_str());
        std::exit(1);
    }
}

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

Split median(std::vector<Split> v) {
    auto pick = [&](double Split::*field) {
        std::vector<double> x;
        for (const auto& s : v) x.push_back(s.*field);
        std::sort(x.begin(), x.end());
        return x[x.size() / 2];
    };
    return {pick(&Split::transfer), pick(&Split::sync), pick(&Split::inference), pick(&Split::wall)};
}

void print(const char* pattern, const Split& s) {
    std::printf("| %-17s | %9.3f | %9.3f | %9.3f | %9.3f |\n", pattern, s.transfer, s.sync, s.inference, s.wall);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s MODEL.onnx [WIDTH HEIGHT [ITERATIONS]]\n", argv[0]);
        return 2;
    }
    const uint32_t W = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[2])) : 960;
    const uint32_t H = argc > 3 ? static_cast<uint32_t>(std::atoi(argv[3])) : 540;
    const int iters = argc > 4 ? std::atoi(argv[4]) : 20;
    auto model = orExit(vkinfer::Model::load(argv[1]), "loading the model");
    const std::string in = model.inputs().at(0).name, out = model.outputs().at(0).name;
    const vkinfer::InputShapes shapes{{in, {1, 3, int64_t(H), int64_t(W)}}};
    vkinfer::Tensor frame(vkinfer::DataType::Float32, shapes[0].second);
    for (int64_t i = 0; i < frame.elementCount(); ++i) frame.as<float>()[i] = float(i % 251) / 251.0f;

    auto engine = orExit(vkinfer::Context::create(), "creating the engine context");
    std::printf("%s, input %ux%u, %s, median of %d frames (ms)\n\n", argv[1], W, H, engine.device().name.c_str(), iters);
    std::printf("| pattern           |  transfer | sync      | inference |     total |\n");
    std::printf("|---|---|---|---|---|\n");

    {  // Separate context.
        auto s = orExit(vkinfer::Session::create(engine, model), "session");
        orExit(s.run({{in, frame}}).status(), "warm-up");
        std::vector<Split> v;
        for (int i = 0; i < iters; ++i) {
            vkinfer::RunStats st;
            orExit(s.run({{in, frame}}, &st).status(), "run");
            double transfer = st.uploadMs + st.downloadMs + st.transferGpuMs;
            v.push_back({transfer, st.wallMs - transfer - st.gpuMs, st.gpuMs, st.wallMs});
        }
        print("separate context", median(v));
    }
    {  // Shared resources: the engine's exportable buffers imported by a second session.
        vkinfer::SessionOptions so;
        so.shareableIO = true;
        auto exporter = orExit(vkinfer::Session::create(engine, model, so), "exporting session");
        orExit(exporter.prepare(shapes), "prepare");
        auto s = orExit(vkinfer::Session::create(engine, model), "importing session");
        orExit(s.prepare(shapes), "prepare");
        for (const std::string& name : {in, out}) {
            auto m = orExit(vkinfer::exportTensorMemory(exporter, name), "export");
            vkinfer::ImportedMemory im{m.fd, m.type, m.allocationSize, m.offset, m.dedicated,
                                       static_cast<int32_t>(m.memoryTypeIndex)};
            orExit(vkinfer::importTensorMemory(s, name, 0, im), "import");
        }
        orExit(s.run({}).status(), "warm-up");
        std::vector<Split> v;
        for (int i = 0; i < iters; ++i) {
            vkinfer::RunStats st;
            auto t0 = std::chrono::steady_clock::now();
            auto ticket = orExit(s.submit({}), "submit");
            orExit(s.wait(ticket, &st).status(), "wait");
            double wall = msSince(t0), transfer = st.uploadMs + st.downloadMs + std::max(st.transferGpuMs, 0.0);
            v.push_back({transfer, wall - transfer - st.gpuMs, st.gpuMs, wall});
        }
        print("shared resources", median(v));
    }
    {  // Interleaved: the host's device, images and command buffer.
        bench::Host host(engine.device().deviceUuid);
        auto ctx = orExit(vkinfer::wrapHostDevice(host.description(true)), "wrapHostDevice");
        auto s = orExit(vkinfer::Session::create(ctx, model), "session");
        bench::HostImage src = host.createImage(W, H), dst = host.createImage(2 * W, 2 * H);
        host.fillImage(src);
        vkinfer::RecordIO io;
        vkinfer::ImageInput ii;
        ii.image = {src.image, src.view, VK_FORMAT_R8G8B8A8_UNORM, W, H};
        ii.before = ii.after = {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                                VK_ACCESS_SHADER_READ_BIT};
        vkinfer::ImageOutput oo;
        oo.image = {dst.image, dst.view, VK_FORMAT_R8G8B8A8_UNORM, 2 * W, 2 * H};
        oo.after = {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                    VK_ACCESS_SHADER_READ_BIT};
        io.imageInputs = {{in, ii}};
        io.imageOutputs = {{out, oo}};
        io.timestampPool = host.timestamps();
        std::vector<Split> v;
        for (int i = -1; i < iters; ++i) {  // i = -1: warm-up (plans, pipelines, weights)
            auto t0 = std::chrono::steady_clock::now();
            VkCommandBuffer cmd = host.begin();
            vkCmdResetQueryPool(cmd, host.timestamps(), 0, 4);
            orExit(vkinfer::recordInference(s, cmd, io), "recordInference");
            host.submitAndWait(cmd);
            double wall = msSince(t0);
            double transfer = host.elapsedMs(0, 1) + host.elapsedMs(2, 3), inference = host.elapsedMs(1, 2);
            if (i >= 0) v.push_back({transfer, wall - transfer - inference, inference, wall});
            oo.before = oo.after;  // the image is where the last frame left it
            io.imageOutputs = {{out, oo}};
        }
        print("interleaved", median(v));
        host.destroy(src);
        host.destroy(dst);
    }
    return 0;
}
