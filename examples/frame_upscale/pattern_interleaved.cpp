// Interleaved: the upscaler records into the renderer's own command buffer, on the
// renderer's device (wrapHostDevice). One command buffer and one submission per frame:
//
//   scene pass -> [copy of the frame for --check] -> recordInference (the frame image is
//   sampled by vkinfer's pre-processing; the model's output is written by its
//   post-processing into a storage image) -> composite pass (samples both) -> copy out
//
// Synchronization is all in the command buffer: vkinfer records the barriers between the
// states the renderer declares (ImageInput/ImageOutput before/after) and its own compute
// work. Two frames are in flight, each with its own images, vkinfer frame slot
// (RecordIO::frame) and fence; a slot is recorded again only after its fence.
#include "pattern.h"
#include "vk_util.h"

namespace demo {

namespace {

// Timestamps of a frame slot: 0 start, 1 after the scene pass (and the --check copy), 2..5
// vkinfer's (before pre-processing, before inference, after inference, after
// post-processing), 6 after the composite pass and the copy out.
enum Stamp : uint32_t { kStart = 0, kScene = 1, kEngine = 2, kDone = 6 };

class Interleaved : public Pattern {
public:
    Interleaved(VulkanHost& host, const PatternConfig& config) : Pattern(host, config, false) {
        openHostSession(vkinfer::SessionQueue::Context);
        const uint32_t W = config.width, H = config.height;
        for (uint32_t i = 0; i < slotCount(); ++i) {
            upscaled_[i] = host.createImage(2 * W, 2 * H, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT);
            slots_[i].compositeSet = compositePass_.createSet(slots_[i].scene.view, upscaled_[i].view, VK_NULL_HANDLE);
        }
    }

    ~Interleaved() override {
        vkDeviceWaitIdle(host_.device);  // the recorded work must finish before the images go
        for (GpuImage& img : upscaled_) host_.destroy(img);
    }

    std::string describe() const override {
        return "interleaved: one command buffer per frame on the renderer's device (scene pass, recordInference "
               "with ImageInput/ImageOutput, composite pass), " +
               std::to_string(slotCount()) + " frames in flight with per-frame fences";
    }

protected:
    void submitFront(uint32_t frame, uint32_t slot) override {
        Slot& s = slots_[slot];
        VkCommandBuffer cmd = s.cmd;
        begin(cmd);
        timer_.reset(cmd, slot);
        timer_.stamp(cmd, slot, kStart, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
        scenePass_.record(cmd, s.scene, frame);

        // How the renderer left the frame, and how it uses it next (the composite samples it).
        vkinfer::ImageInput in;
        in.image = s.scene.host();
        in.before = {VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                     VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT};
        if (config_.keepScene) {
            recordSceneReadback(cmd, s);
            in.before = {VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, 0};
        }
        timer_.stamp(cmd, slot, kScene, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        in.after = {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                    VK_ACCESS_SHADER_READ_BIT};
        // The model takes RGB in [0, 1]: the defaults (mean 0, scale 1) of both conversions.
        vkinfer::ImageOutput out;
        out.image = upscaled_[slot].host();
        // Overwritten entirely; the previous frame of this slot sampled it in a fragment shader.
        out.before = {VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0};
        out.after = {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                     VK_ACCESS_SHADER_READ_BIT};
        vkinfer::RecordIO io;
        io.imageInputs = {{inputName_, in}};
        io.imageOutputs = {{outputName_, out}};
        io.frame = slot;
        io.timestampPool = timer_.pool();
        io.firstTimestamp = timer_.first(slot) + kEngine;
        check(vkinfer::recordInference(*hostSession_, cmd, io),
              "recording the inference of frame " + std::to_string(frame));

        recordCompositeAndReadback(cmd, s, frame);
        timer_.stamp(cmd, slot, kDone, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        DEMO_VK(vkEndCommandBuffer(cmd));
        submitOne(cmd, s.fence);
    }

    FrameOutput collectSlot(uint32_t slot) override {
        Slot& s = slots_[slot];
        waitFence(s.fence);
        FrameTimes& t = s.times;
        t = {};
        if (timer_.available()) {
            const uint32_t pre = kEngine, infer = kEngine + 1, inferred = kEngine + 2, post = kEngine + 3;
            t.renderMs = timer_.ms(slot, kStart, pre) + timer_.ms(slot, post, kDone);
            t.transferMs = timer_.ms(slot, pre, infer) + timer_.ms(slot, inferred, post);
            t.inferenceMs = timer_.ms(slot, infer, inferred);
        }
        return output(slot);
    }

private:
    std::array<GpuImage, kMaxSlots> upscaled_;
};

}  // namespace

std::unique_ptr<Pattern> makeInterleaved(VulkanHost& host, const PatternConfig& config) {
    return std::make_unique<Interleaved>(host, config);
}

}  // namespace demo
