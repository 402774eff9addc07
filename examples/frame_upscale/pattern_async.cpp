// Asynchronous compute: the upscaler runs on the renderer's device (wrapHostDevice) but on
// its own queue, a compute family without graphics (SessionOptions::queue =
// SessionQueue::AsyncCompute; VulkanHost picks the queue with chooseAsyncComputeQueue), so
// that the GPU infers frame k while the graphics queue renders frame k+1. Per frame:
//
//   graphics queue, command buffer A: scene pass [-> copy of the frame for --check]
//                                     [-> release of the frame to the compute family]
//                                     signals timeline `rendered` = n
//   compute queue, command buffer I:  recordInference (acquire, pre-processing, inference,
//                                     post-processing into a storage image, release back);
//                                     waits `rendered` >= n, signals `inferred` = n
//   graphics queue, command buffer B: [acquire of both images] -> composite pass -> copy out;
//                                     waits `inferred` >= n, signals the frame's fence
//
// B of frame k is submitted after A of frame k+1 (Pattern::submit), so the graphics queue
// renders the next frame instead of standing at B's wait; three frames are in flight. The
// images cross between the families either exclusively, with queue family ownership
// transfers (vkinfer records its halves in recordInference, the renderer its halves with
// recordReleaseToSession / recordAcquireFromSession), or concurrently (--sharing): shared by
// both families, no transfers. Where the device has no compute family without graphics the
// session runs on a second queue of the graphics family, or on the graphics queue itself
// (lavapipe): the same submissions and semaphores, reported as a fallback, without overlap.
#include "pattern.h"
#include "vk_util.h"

namespace demo {

namespace {

// Timestamps: A: 0 start, 1 after the scene pass (and the --check copy); I (compute queue):
// 2..5 vkinfer's (before pre-processing, before inference, after inference, after
// post-processing); B: 6 start, 7 after the composite pass and the copy out.
enum Stamp : uint32_t { kStart = 0, kScene = 1, kEngine = 2, kCompositeStart = 6, kDone = 7 };
static_assert(kDone < GpuTimer::kPerSlot, "a slot's timestamps fit in GpuTimer::kPerSlot");

// The queue families the images are shared by concurrently (--sharing concurrent across two
// families), else none (exclusive).
std::vector<uint32_t> concurrentFamilies(const VulkanHost& host, const PatternConfig& config) {
    if (config.sharing != Sharing::Concurrent || host.computeFamily == host.family) return {};
    return {host.family, host.computeFamily};
}

class Async : public Pattern {
public:
    Async(VulkanHost& host, const PatternConfig& config)
        : Pattern(host, config, false, kMaxSlots, concurrentFamilies(host, config)),
          transfers_(host.computeFamily != host.family && config.sharing == Sharing::Exclusive) {
        if (!host.requirements->features12().timelineSemaphore)
            throw DemoError("the async pattern orders its queues with timeline semaphores, which '" + host.deviceName +
                            "' does not offer");
        openHostSession(vkinfer::SessionQueue::AsyncCompute);
        if (hostSession_->queue().family != host.computeFamily)
            throw DemoError("the session runs on queue family " + std::to_string(hostSession_->queue().family) +
                            ", not the compute queue's " + std::to_string(host.computeFamily));
        const uint32_t W = config.width, H = config.height;
        for (uint32_t i = 0; i < slotCount(); ++i) {
            upscaled_[i] = host.createImage(2 * W, 2 * H, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                                            VK_FORMAT_R8G8B8A8_UNORM, concurrentFamilies(host, config));
            slots_[i].compositeSet = compositePass_.createSet(slots_[i].scene.view, upscaled_[i].view, VK_NULL_HANDLE);
            cmdI_[i] = host.allocateComputeCommandBuffer();
            cmdB_[i] = host.allocateCommandBuffer();
        }
        rendered_ = host.createSemaphore(true, false);
        inferred_ = host.createSemaphore(true, false);
        // vkinfer's timestamps go into the renderer's pool from the compute queue.
        engineStamps_ = timer_.available() && host.computeTimestamps;
    }

    ~Async() override {
        vkDeviceWaitIdle(host_.device);  // the recorded work must finish before its resources go
        for (uint32_t i = 0; i < slotCount(); ++i) {
            host_.destroy(upscaled_[i]);
            vkFreeCommandBuffers(host_.device, host_.computePool, 1, &cmdI_[i]);
            vkFreeCommandBuffers(host_.device, host_.pool, 1, &cmdB_[i]);
        }
        vkDestroySemaphore(host_.device, rendered_, nullptr);
        vkDestroySemaphore(host_.device, inferred_, nullptr);
    }

    std::string describe() const override {
        std::string s = "async: vkinfer on the renderer's device, recordInference submitted to the queue "
                        "chooseAsyncComputeQueue picked: " + host_.asyncChoice.description +
                        ". Session::queue(): " + hostSession_->queue().description;
        s += host_.computeFamily == host_.family ? ". One queue family: no ownership transfers"
             : transfers_                        ? ". Images exclusive, with queue family ownership transfers"
                                                 : ". Images shared concurrently by both queue families";
        return s + ". Timeline semaphores render -> inference -> composite; " + std::to_string(slotCount()) +
               " frames in flight, the composite of frame k submitted after the render of frame k+1";
    }

protected:
    bool hasBackHalf() const override { return true; }

    void submitFront(uint32_t frame, uint32_t slot) override {
        Slot& s = slots_[slot];
        s.times = {};
        const vkinfer::RecordIO io = frameIO(slot);

        // A: render (and release the frame to the compute family).
        VkCommandBuffer a = s.cmd;
        begin(a);
        timer_.reset(a, slot);
        timer_.stamp(a, slot, kStart, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
        scenePass_.record(a, s.scene, frame);
        if (config_.keepScene) recordSceneReadback(a, s);
        timer_.stamp(a, slot, kScene, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        check(vkinfer::recordReleaseToSession(*hostSession_, a, io), "recording the release of frame " + std::to_string(frame));
        DEMO_VK(vkEndCommandBuffer(a));
        const uint64_t value = ++submitted_;
        values_[slot] = value;
        submitWithTimeline(host_.queue, a, VK_NULL_HANDLE, 0, 0, rendered_, value, VK_NULL_HANDLE);

        // I: inference on the compute queue, after the render.
        VkCommandBuffer i = cmdI_[slot];
        begin(i);
        check(vkinfer::recordInference(*hostSession_, i, io), "recording the inference of frame " + std::to_string(frame));
        DEMO_VK(vkEndCommandBuffer(i));
        submitWithTimeline(host_.computeQueue, i, rendered_, value, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, inferred_, value,
                           VK_NULL_HANDLE);
    }

    // B: after the inference, composite and copy out.
    void submitBack(uint32_t frame, uint32_t slot) override {
        Slot& s = slots_[slot];
        VkCommandBuffer b = cmdB_[slot];
        begin(b);
        timer_.stamp(b, slot, kCompositeStart, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
        check(vkinfer::recordAcquireFromSession(*hostSession_, b, frameIO(slot)),
              "recording the acquire of frame " + std::to_string(frame));
        recordCompositeAndReadback(b, s, frame);
        timer_.stamp(b, slot, kDone, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        DEMO_VK(vkEndCommandBuffer(b));
        submitWithTimeline(host_.queue, b, inferred_, values_[slot], VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_NULL_HANDLE,
                           0, s.fence);
    }

    FrameOutput collectSlot(uint32_t slot) override {
        Slot& s = slots_[slot];
        waitFence(s.fence);  // B waited for I, which waited for A
        FrameTimes& t = s.times;
        t.overlapped = true;
        if (timer_.available()) {
            t.renderMs = timer_.ms(slot, kStart, kScene) + timer_.ms(slot, kCompositeStart, kDone);
            if (engineStamps_) {
                const uint32_t pre = kEngine, infer = kEngine + 1, inferred = kEngine + 2, post = kEngine + 3;
                t.transferMs = timer_.ms(slot, pre, infer, true) + timer_.ms(slot, inferred, post, true);
                t.inferenceMs = timer_.ms(slot, infer, inferred, true);
            }
        }
        FrameOutput out = output(slot);
        out.times.known = out.times.known && engineStamps_;
        return out;
    }

private:
    // What the frame in `slot` hands to vkinfer, and how each image is used before and after
    // on the graphics queue. Exclusive images name the graphics family, so that vkinfer and
    // the renderer record the two halves of each ownership transfer; otherwise the other
    // queue's work is ordered by the semaphores alone, and vkinfer's barriers start at the
    // top and end at the bottom of its pipe.
    vkinfer::RecordIO frameIO(uint32_t slot) const {
        const uint32_t graphics = host_.family;
        auto state = [&](VkImageLayout layout, VkPipelineStageFlags stages, VkAccessFlags access, bool before) {
            if (transfers_) return vkinfer::ImageState{layout, stages, access, graphics};
            return vkinfer::ImageState{
                layout, before ? VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT : VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0};
        };
        vkinfer::ImageInput in;
        in.image = slots_[slot].scene.host();
        in.before = config_.keepScene
                        ? state(VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, true)
                        : state(VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, true);
        // The composite samples the frame for its bicubic panel.
        in.after = state(VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                         VK_ACCESS_SHADER_READ_BIT, false);
        vkinfer::ImageOutput out;
        out.image = upscaled_[slot].host();
        // Overwritten entirely (no transfer needed); the composite samples it next.
        out.before = state(VK_IMAGE_LAYOUT_UNDEFINED, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT, 0, true);
        out.after = state(VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                          VK_ACCESS_SHADER_READ_BIT, false);
        vkinfer::RecordIO io;
        io.imageInputs = {{inputName_, in}};
        io.imageOutputs = {{outputName_, out}};
        io.frame = slot;
        if (engineStamps_) {
            io.timestampPool = timer_.pool();
            io.firstTimestamp = timer_.first(slot) + kEngine;
        }
        return io;
    }

    // One command buffer to `queue`, after `wait` reaches `waitValue` (if given), signaling
    // `signal` with `signalValue` (if given) and `fence`.
    void submitWithTimeline(VkQueue queue, VkCommandBuffer cmd, VkSemaphore wait, uint64_t waitValue,
                            VkPipelineStageFlags waitStages, VkSemaphore signal, uint64_t signalValue, VkFence fence) {
        VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
        values.waitSemaphoreValueCount = wait ? 1 : 0;
        values.pWaitSemaphoreValues = &waitValue;
        values.signalSemaphoreValueCount = signal ? 1 : 0;
        values.pSignalSemaphoreValues = &signalValue;
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.pNext = &values;
        si.waitSemaphoreCount = wait ? 1 : 0;
        si.pWaitSemaphores = &wait;
        si.pWaitDstStageMask = &waitStages;
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        si.signalSemaphoreCount = signal ? 1 : 0;
        si.pSignalSemaphores = &signal;
        DEMO_VK(vkQueueSubmit(queue, 1, &si, fence));
    }

    const bool transfers_;  // exclusive images across two families: ownership transfers
    bool engineStamps_ = false;
    std::array<GpuImage, kMaxSlots> upscaled_;
    std::array<VkCommandBuffer, kMaxSlots> cmdI_{}, cmdB_{};
    VkSemaphore rendered_ = VK_NULL_HANDLE, inferred_ = VK_NULL_HANDLE;  // timelines: the frame's number
    uint64_t submitted_ = 0;
    std::array<uint64_t, kMaxSlots> values_{};
};

}  // namespace

std::unique_ptr<Pattern> makeAsync(VulkanHost& host, const PatternConfig& config) {
    return std::make_unique<Async>(host, config);
}

}  // namespace demo
