// Separate context: the upscaler has its own vkinfer Context (on the same GPU, matched by
// UUID, so the patterns compare) and sees only CPU tensors. Each frame:
//
//   renderer, command buffer A: scene pass -> copy of the frame into host memory (fence wait)
//   CPU:     RGBA8 pixels -> float tensor [1, 3, H, W]
//   vkinfer: Session::run (its own staging copies, submission and wait)
//   CPU:     the output tensor into a staging buffer of the renderer
//   renderer, command buffer B: copy into a device-local buffer -> composite pass -> copy out
//
// Everything is ordered by the host: it waits for A before reading the frame, and
// Session::run returns once the output is in host memory.
#include <chrono>
#include <cstring>

#include "pattern.h"
#include "vk_util.h"

namespace demo {

namespace {

// Timestamps: A: 0 start, 1 after the scene pass, 2 after the copy to host memory; B: 3
// start, 4 after the upload, 5 after the composite pass and the copy out.
enum Stamp : uint32_t { kStart = 0, kScene = 1, kCopied = 2, kUploadStart = 3, kUploaded = 4, kDone = 5 };

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

class Separate : public Pattern {
public:
    Separate(VulkanHost& host, const PatternConfig& config) : Pattern(host, config, true) {
        vkinfer::ContextOptions co;
        co.deviceUuid = host.deviceUuid;
        co.validate = config.validate;
        auto context = vkinfer::Context::create(co);
        check(context.status(), "creating the upscaler's context");
        context_ = std::make_unique<vkinfer::Context>(std::move(context).value());
        vkinfer::SessionOptions options;
        options.precision = config.precision;
        auto session = vkinfer::Session::create(*context_, *config.model, options);
        check(session.status(), "creating the session");
        session_ = std::make_unique<vkinfer::Session>(std::move(session).value());
        const uint32_t W = config.width, H = config.height;
        requireUpscaleOutput(*session_, inputName_, W, H);
        check(session_->prepare({{inputName_, {1, 3, H, W}}}), "preparing the session");
        const VkDeviceSize outputBytes = VkDeviceSize(12) * W * H * sizeof(float);
        for (uint32_t i = 0; i < slotCount(); ++i) {
            staging_[i] = host.createBuffer(outputBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
            upscaled_[i] = host.createBuffer(
                outputBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT, false);
            slots_[i].compositeSet =
                compositePass_.createSet(slots_[i].scene.view, VK_NULL_HANDLE, upscaled_[i].buffer);
            cmdB_[i] = host.allocateCommandBuffer();
            fenceA_[i] = host.createFence(false);
        }
    }

    ~Separate() override {
        vkDeviceWaitIdle(host_.device);
        session_.reset();
        context_.reset();
        for (uint32_t i = 0; i < slotCount(); ++i) {
            host_.destroy(staging_[i]);
            host_.destroy(upscaled_[i]);
            vkFreeCommandBuffers(host_.device, host_.pool, 1, &cmdB_[i]);
            vkDestroyFence(host_.device, fenceA_[i], nullptr);
        }
    }

    std::string describe() const override {
        return "separate: the upscaler on its own context on '" + context_->device().name +
               "'; the frame read back to the CPU, Session::run on CPU tensors, the result uploaded for the composite "
               "(host waits order everything; one frame at a time)";
    }

    uint32_t framesInFlight() const override { return 1; }  // submit() waits for the GPU twice

protected:
    void submitFront(uint32_t frame, uint32_t slot) override {
        Slot& s = slots_[slot];
        const uint32_t W = config_.width, H = config_.height;
        s.times = {};

        // A: render and read the frame back.
        VkCommandBuffer a = s.cmd;
        begin(a);
        timer_.reset(a, slot);
        timer_.stamp(a, slot, kStart, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
        scenePass_.record(a, s.scene, frame);
        timer_.stamp(a, slot, kScene, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        recordSceneReadback(a, s);
        // The composite (in B) samples the frame for its bicubic panel.
        imageBarrier(a, s.scene.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                     VK_PIPELINE_STAGE_TRANSFER_BIT, 0, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                     VK_ACCESS_SHADER_READ_BIT);
        timer_.stamp(a, slot, kCopied, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        DEMO_VK(vkEndCommandBuffer(a));
        submitAndWait(a, fenceA_[slot]);

        // CPU: pixels to the model's input tensor.
        auto t0 = std::chrono::steady_clock::now();
        vkinfer::Tensor input(vkinfer::DataType::Float32, {1, 3, H, W});
        const auto* px = static_cast<const uint8_t*>(s.sceneReadback.mapped);
        float* t = input.as<float>();
        const size_t plane = size_t(W) * H;
        for (size_t i = 0; i < plane; ++i)
            for (int c = 0; c < 3; ++c) t[c * plane + i] = px[4 * i + c] / 255.0f;
        s.times.transferMs += msSince(t0);

        vkinfer::RunStats stats;
        auto out = session_->run({{inputName_, input}}, &stats);
        check(out.status(), "running the model on frame " + std::to_string(frame));
        s.times.inferenceMs = stats.gpuMs >= 0 ? stats.gpuMs : 0;
        // Inside run(): host copies into and out of staging, and the GPU copies.
        s.times.transferMs += stats.uploadMs + stats.downloadMs + (stats.transferGpuMs > 0 ? stats.transferGpuMs : 0);

        // CPU: the result into the renderer's staging buffer.
        t0 = std::chrono::steady_clock::now();
        const vkinfer::Tensor& result = out->at(0).tensor;
        if (result.byteSize() != staging_[slot].size) throw DemoError("the model's output has an unexpected size");
        std::memcpy(staging_[slot].mapped, result.data(), result.byteSize());
        s.times.transferMs += msSince(t0);

        // B: upload, composite, copy out.
        VkCommandBuffer b = cmdB_[slot];
        begin(b);
        timer_.stamp(b, slot, kUploadStart, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
        // The previous frame of this slot read the buffer in the composite's fragment shader.
        bufferBarrier(b, upscaled_[slot].buffer, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0,
                      VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
        VkBufferCopy copy{0, 0, staging_[slot].size};
        vkCmdCopyBuffer(b, staging_[slot].buffer, upscaled_[slot].buffer, 1, &copy);
        bufferBarrier(b, upscaled_[slot].buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT);
        timer_.stamp(b, slot, kUploaded, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        recordCompositeAndReadback(b, s, frame);
        timer_.stamp(b, slot, kDone, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        DEMO_VK(vkEndCommandBuffer(b));
        submitOne(b, s.fence);
    }

    FrameOutput collectSlot(uint32_t slot) override {
        Slot& s = slots_[slot];
        waitFence(s.fence);
        if (timer_.available()) {
            s.times.renderMs = timer_.ms(slot, kStart, kScene) + timer_.ms(slot, kUploaded, kDone);
            s.times.transferMs += timer_.ms(slot, kScene, kCopied) + timer_.ms(slot, kUploadStart, kUploaded);
        }
        return output(slot);
    }

public:
    std::vector<std::string> engineMessages() override { return context_->takeValidationMessages(); }

private:
    std::unique_ptr<vkinfer::Context> context_;
    std::unique_ptr<vkinfer::Session> session_;
    std::array<GpuBuffer, kMaxSlots> staging_, upscaled_;
    std::array<VkCommandBuffer, kMaxSlots> cmdB_{};
    std::array<VkFence, kMaxSlots> fenceA_{};
};

}  // namespace

std::unique_ptr<Pattern> makeSeparate(VulkanHost& host, const PatternConfig& config) {
    return std::make_unique<Separate>(host, config);
}

}  // namespace demo
