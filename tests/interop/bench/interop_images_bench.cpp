// Shared images at a renderer's size (default 1920x1080): what each tiling costs.
//   draw_linear_ms     the renderer's full-screen pass into a LINEAR shared image (-1 where
//                      linear images are no color attachment, as on NVIDIA: draw_linear_refused)
//   draw_optimal_ms    the same pass into an OPTIMAL image
//   copy_to_linear_ms  recordCopyToLinear: that optimal image into the linear shared one
//   from_linear / from_optimal: recordInference on a second VkDevice reading the linear or the
//                      optimal image shared by opaque fd: pre-processing, inference, output
// GPU times from timestamp queries, medians over --frames frames (after 3 warm-up frames),
// printed and written as JSON (--json). scripts/interop_images_bench.sh runs it on the H200.
// No validation by default (--validate turns it on, for a check of the recording).
#include <vkinfer/interop.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "interop/support/host_vulkan.h"

namespace {

using namespace vkinfer;
using hostvk::HostVulkan;

static const uint32_t kFullscreenVert[] =
#include "fullscreen.vert.inc"
    ;
static const uint32_t kPatternFrag[] =
#include "pattern.frag.inc"
    ;

template <class T>
T must(Result<T> r, const char* what) {
    if (!r.ok()) throw std::runtime_error(std::string(what) + ": " + r.status().toString());
    return std::move(r).value();
}
void must(const Status& s, const char* what) {
    if (!s.ok()) throw std::runtime_error(std::string(what) + ": " + s.toString());
}

double median(std::vector<double> v) {
    if (v.empty()) return -1;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// A timestamp pool on one device, read after the submission's fence.
struct Timestamps {
    VkDevice device;
    VkQueryPool pool = VK_NULL_HANDLE;
    double periodNs = 1;
    Timestamps(const HostVulkan& host, uint32_t count) : device(host.device) {
        VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = count;
        if (vkCreateQueryPool(device, &qi, nullptr, &pool) != VK_SUCCESS) throw std::runtime_error("vkCreateQueryPool");
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(host.physical, &p);
        periodNs = p.limits.timestampPeriod;
    }
    ~Timestamps() { vkDestroyQueryPool(device, pool, nullptr); }
    std::vector<uint64_t> read(uint32_t count) const {
        std::vector<uint64_t> t(count);
        vkGetQueryPoolResults(device, pool, 0, count, count * sizeof(uint64_t), t.data(), sizeof(uint64_t),
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
        return t;
    }
    double ms(uint64_t a, uint64_t b) const { return double(b - a) * periodNs * 1e-6; }
};

}  // namespace

int main(int argc, char** argv) {
    std::string modelPath = VKINFER_DATA_DIR "/espcn_x2/model.onnx", json;
    uint32_t W = 1920, H = 1080;
    int frames = 50;
    bool validate = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto next = [&]() -> std::string {
            if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
            return argv[++i];
        };
        if (a == "--model") modelPath = next();
        else if (a == "--size") {
            std::string s = next();
            if (std::sscanf(s.c_str(), "%ux%u", &W, &H) != 2) throw std::runtime_error("--size WxH");
        } else if (a == "--frames") frames = std::stoi(next());
        else if (a == "--json") json = next();
        else if (a == "--validate") validate = true;
        else {
            std::fprintf(stderr, "usage: %s [--model M.onnx] [--size WxH] [--frames N] [--json out.json] [--validate]\n",
                         argv[0]);
            return 2;
        }
    }
    try {
        hostvk::HostOptions ho;
        ho.validate = validate;
        HostVulkan renderer(ho);
        HostVulkan engine(ho);
        Context rctx = must(wrapHostDevice(renderer.hostDevice()), "wrapHostDevice (renderer)");
        Context ectx = must(wrapHostDevice(engine.hostDevice()), "wrapHostDevice (engine)");
        Model model = must(Model::load(modelPath), "Model::load");
        SessionOptions so;
        Session session = must(Session::create(ectx, model, so), "Session::create");

        constexpr VkFormat kFormat = VK_FORMAT_R8G8B8A8_UNORM;
        constexpr VkImageUsageFlags kUse =
            VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
        SharedImageDesc linearDesc{kFormat, W, H, VK_IMAGE_TILING_LINEAR, kUse, MemoryHandleType::OpaqueFd};
        SharedImageDesc optimalDesc{kFormat, W, H, VK_IMAGE_TILING_OPTIMAL, kUse | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                    MemoryHandleType::OpaqueFd};
        // Where linear images are no color attachment (NVIDIA), the linear route has only the
        // optimal draw and the copy; draw_linear_ms is then -1 and the refusal is reported.
        std::string linearDrawRefused;
        if (auto s = queryImageSharing(rctx, linearDesc); !s.exportable) {
            linearDrawRefused = s.refusal;
            linearDesc.usage &= ~VkImageUsageFlags(VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT);
        }
        for (const auto& d : {linearDesc, optimalDesc}) {
            auto s = queryImageSharing(rctx, d);
            if (!s.exportable) throw std::runtime_error("cannot share: " + s.refusal);
        }
        auto share = [&](const SharedImageDesc& d, SharedImage* onEngine) {
            SharedImage mine = must(createSharedImage(rctx, d), "createSharedImage");
            ExportedMemory m = must(exportImageMemory(mine), "exportImageMemory");
            *onEngine = must(importSharedImage(ectx, d, {m.fd, m.type, m.allocationSize, 0, true,
                                                         int32_t(m.memoryTypeIndex)}),
                             "importSharedImage");
            return mine;
        };
        SharedImage linearE, optimalE;
        SharedImage linearR = share(linearDesc, &linearE);
        SharedImage optimalR = share(optimalDesc, &optimalE);

        // The model's output image on the engine's device: its scale from a small probe run.
        const std::string inputName = model.inputs()[0].name;
        int64_t scale = 1;
        {
            Tensor probe(DataType::Float32, {1, 3, 8, 8});
            std::memset(probe.data(), 0, probe.byteSize());
            auto r = must(session.run({{inputName, probe}}), "probe run");
            scale = r[0].tensor.shape()[3] / 8;
        }
        hostvk::Image output = engine.createImage(VK_FORMAT_R8G8B8A8_UNORM, uint32_t(W * scale), uint32_t(H * scale),
                                                  VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);

        hostvk::FullscreenPass pass(renderer, kFormat, kFullscreenVert, sizeof(kFullscreenVert), kPatternFrag,
                                    sizeof(kPatternFrag), hostvk::FullscreenPass::Binding::None);
        Timestamps rts(renderer, 6), ets(engine, 4);
        std::vector<double> drawLinear, drawOptimal, copy;
        std::vector<double> pre[2], infer[2], post[2];
        for (int f = 0; f < frames + 3; ++f) {
            const float push[4] = {float(W), float(H), 0.01f * f, 0};
            for (int route = 0; route < 2; ++route) {  // 0: linear, 1: optimal
                // The renderer: draw (and for the linear route also the optimal draw and the
                // copy, timed apart), then release the image the session reads.
                VkCommandBuffer cmd = renderer.begin();
                vkCmdResetQueryPool(cmd, rts.pool, 0, 6);
                vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, rts.pool, 0);
                const bool drawIntoLinear = route == 0 && linearDrawRefused.empty();
                if (route == 1 || drawIntoLinear) pass.record(cmd, hostvk::imageOf(route == 0 ? linearR : optimalR), push);
                vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, rts.pool, 1);
                VkImageLayout sessionBefore = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
                if (route == 0) {
                    // The optimal route's draw, then its copy into the linear image.
                    pass.record(cmd, hostvk::imageOf(optimalR), push);
                    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, rts.pool, 2);
                    LinearCopy c;
                    c.source = optimalR.image();
                    c.sourceBefore = hostvk::FullscreenPass::attachmentState();
                    c.sourceAfter = {VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, 0};
                    c.linear = linearR.image();
                    if (drawIntoLinear) c.linearBefore = hostvk::FullscreenPass::attachmentState();  // the draw above
                    c.linearAfter = {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0,
                                     VK_QUEUE_FAMILY_EXTERNAL};
                    must(recordCopyToLinear(cmd, renderer.family, c), "recordCopyToLinear");
                    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, rts.pool, 3);
                    sessionBefore = VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL;
                } else {
                    hostvk::imageBarrier(cmd, optimalR.image().image, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                                         VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, renderer.family,
                                         VK_QUEUE_FAMILY_EXTERNAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                         VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0);
                }
                renderer.submitAndWait(cmd);  // the host wait stands for the semaphore here
                auto rt = rts.read(route == 0 ? 4 : 2);
                if (f >= 3) {
                    if (route == 0) {
                        if (drawIntoLinear) drawLinear.push_back(rts.ms(rt[0], rt[1]));
                        copy.push_back(rts.ms(rt[2], rt[3]));
                    } else {
                        drawOptimal.push_back(rts.ms(rt[0], rt[1]));
                    }
                }
                // The session reads it (acquiring it from VK_QUEUE_FAMILY_EXTERNAL) and keeps it:
                // the next frame's render pass discards its contents (UNDEFINED), so nothing
                // is released back here.
                RecordIO io;
                ImageInput in;
                in.image = (route == 0 ? linearE : optimalE).image();
                in.before = {sessionBefore, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_QUEUE_FAMILY_EXTERNAL};
                in.after = {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0,
                            VK_QUEUE_FAMILY_EXTERNAL};
                io.imageInputs.push_back({inputName, in});
                ImageOutput out;
                out.image = output.host();
                out.before = {VK_IMAGE_LAYOUT_UNDEFINED};
                out.after = {VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0};
                io.imageOutputs.push_back({model.outputs()[0].name, out});
                io.timestampPool = ets.pool;
                VkCommandBuffer ecmd = engine.begin();
                vkCmdResetQueryPool(ecmd, ets.pool, 0, 4);
                must(recordInference(session, ecmd, io), "recordInference");
                engine.submitAndWait(ecmd);
                auto et = ets.read(4);
                if (f >= 3) {
                    pre[route].push_back(ets.ms(et[0], et[1]));
                    infer[route].push_back(ets.ms(et[1], et[2]));
                    post[route].push_back(ets.ms(et[2], et[3]));
                }
                // The renderer takes the image back before drawing into it again.
                VkCommandBuffer back = renderer.begin();
                hostvk::imageBarrier(back, (route == 0 ? linearR : optimalR).image().image,
                                     VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                     VK_QUEUE_FAMILY_EXTERNAL, renderer.family, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                                     VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0);
                renderer.submitAndWait(back);
            }
        }
        std::string out = "{\n";
        out += "  \"device\": \"" + ectx.device().name + "\",\n";
        out += "  \"size\": \"" + std::to_string(W) + "x" + std::to_string(H) + "\",\n";
        out += "  \"frames\": " + std::to_string(frames) + ",\n";
        auto field = [&](const char* k, double v, bool last = false) {
            char b[128];
            std::snprintf(b, sizeof b, "  \"%s\": %.4f%s\n", k, v, last ? "" : ",");
            out += b;
        };
        std::string why;
        for (char ch : linearDrawRefused) why += ch == '"' || ch == '\\' ? '\'' : ch;
        if (!why.empty()) out += "  \"draw_linear_refused\": \"" + why + "\",\n";
        field("draw_linear_ms", median(drawLinear));
        field("draw_optimal_ms", median(drawOptimal));
        field("copy_to_linear_ms", median(copy));
        field("from_linear_pre_ms", median(pre[0]));
        field("from_linear_inference_ms", median(infer[0]));
        field("from_linear_post_ms", median(post[0]));
        field("from_optimal_pre_ms", median(pre[1]));
        field("from_optimal_inference_ms", median(infer[1]));
        field("from_optimal_post_ms", median(post[1]), true);
        out += "}\n";
        std::fputs(out.c_str(), stdout);
        if (!json.empty()) std::ofstream(json) << out;
        auto messages = renderer.log().take();
        auto more = engine.log().take();
        messages.insert(messages.end(), more.begin(), more.end());
        for (const auto& m : messages) std::fprintf(stderr, "validation: %s\n", m.c_str());
        return messages.empty() ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "interop_images_bench: %s\n", e.what());
        return 1;
    }
}
