// Shared resources: the upscaler runs on its own vkinfer Context (its own VkDevice and
// queue) on the renderer's GPU, matched by device UUID. The tensors live in memory the
// renderer allocated and exported as opaque fds, which vkinfer imported
// (importTensorMemory) for each frame slot: nothing is copied between the two.
//
//   renderer, command buffer A: scene pass -> compute pass writing the frame as a float
//                               tensor [1, 3, H, W] into the shared input memory
//   vkinfer, Session::submit:   the model reads the input memory and writes the output memory
//   renderer, command buffer B: composite pass reading the shared output memory -> copy out
//
// Ordering between the two devices, chosen at run time (queryInteropCapabilities and the
// renderer's own semaphore capabilities), printed by describe():
//   A -> vkinfer: a semaphore the renderer exports: a timeline where both sides can, imported
//                 once (importTimelineSemaphore) and waited at each frame's value
//                 (waitTimelineValue); else a binary one per frame (importWaitSemaphore); else the
//                 renderer waits on A's fence before Session::submit.
//   vkinfer -> B: vkinfer's timeline semaphore (exportTimelineSemaphore), imported by the
//                 renderer and waited on by B at the ticket's value; else Session::wait on
//                 the host before B is submitted (lavapipe: no semaphore fds).
// With semaphores both ways three frames are in flight and B of frame k is submitted after A
// of frame k+1 (PatternConfig::pipelined), so that the renderer's queue does not stand
// waiting for inference while it could render the next frame; with host waits, one frame at
// a time.
#include <unistd.h>

#include "pattern.h"
#include "tensor_pass.h"
#include "vk_util.h"

namespace demo {

namespace {

// Timestamps: A: 0 start, 1 after the scene pass (and the --check copy), 2 after the
// conversion; B: 3 start, 4 after the composite pass and the copy out.
enum Stamp : uint32_t { kStart = 0, kScene = 1, kConverted = 2, kCompositeStart = 3, kDone = 4 };

enum class ToEngine { TimelineSemaphore, BinarySemaphore, HostWait };
enum class ToHost { TimelineSemaphore, HostWait };

class Shared : public Pattern {
public:
    Shared(VulkanHost& host, const PatternConfig& config)
        : Pattern(host, config, true, kMaxSlots), tensorPass_(host, kMaxSlots) {
        if (!host.canExportBufferMemory())
            throw DemoError(
                "the shared pattern needs buffer memory exportable as opaque fds (VK_KHR_external_memory_fd), "
                "which '" +
                host.deviceName + "' does not offer; use --pattern interleaved or separate");
        vkinfer::ContextOptions co;
        co.deviceUuid = host.deviceUuid;  // the renderer's GPU
        co.validate = config.validate;
        auto context = vkinfer::Context::create(co);
        check(context.status(), "creating the upscaler's context");
        context_ = std::make_unique<vkinfer::Context>(std::move(context).value());
        caps_ = vkinfer::queryInteropCapabilities(*context_);
        if (!caps_.importMemoryOpaqueFd)
            throw DemoError("'" + context_->device().name +
                            "' cannot import buffer memory as opaque fds (shared pattern)");

        vkinfer::SessionOptions options;
        options.framesInFlight = slotCount();  // submission k runs in slot k % slots: the memory imported for it
        options.precision = config.precision;
        auto session = vkinfer::Session::create(*context_, *config.model, options);
        check(session.status(), "creating the session");
        session_ = std::make_unique<vkinfer::Session>(std::move(session).value());
        const uint32_t W = config.width, H = config.height;
        requireUpscaleOutput(*session_, inputName_, W, H);
        check(session_->prepare({{inputName_, {1, 3, H, W}}}), "preparing the session");

        const VkBufferUsageFlags usage =  // as vkinfer's own IO buffers: an import names an identical buffer
            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        for (uint32_t i = 0; i < slotCount(); ++i) {
            input_[i] = host.createBuffer(VkDeviceSize(3) * W * H * sizeof(float), usage, false, true);
            output_[i] = host.createBuffer(VkDeviceSize(12) * W * H * sizeof(float), usage, false, true);
            share(inputName_, i, input_[i]);
            share(outputName_, i, output_[i]);
            slots_[i].compositeSet = compositePass_.createSet(slots_[i].scene.view, VK_NULL_HANDLE, output_[i].buffer);
            tensorSets_[i] = tensorPass_.createSet(slots_[i].scene.view, input_[i].buffer);
            cmdB_[i] = host.allocateCommandBuffer();
            fenceA_[i] = host.createFence(false);
        }

        // Renderer -> vkinfer.
        if (host.canExportSemaphore(true) && caps_.importTimelineSemaphoreFd) {
            toEngine_ = ToEngine::TimelineSemaphore;
            rendered_ = host.createSemaphore(true, true);
            // Imported once; each frame only names the value to wait for.
            int fd = host.exportSemaphoreFd(rendered_);
            auto imported = vkinfer::importTimelineSemaphore(*session_, fd);
            if (!imported.ok()) close(fd);  // a failed import leaves the fd with us
            check(imported.status(), "importing the render timeline into the upscaler's session");
            renderedInSession_ = *imported;
        } else if (host.canExportSemaphore(false) && caps_.importBinarySemaphoreFd) {
            toEngine_ = ToEngine::BinarySemaphore;
            for (auto& s : renderedBinary_) s = host.createSemaphore(false, true);
        }
        // vkinfer -> renderer.
        if (caps_.exportTimelineSemaphoreFd && host.canImportSemaphore(true)) {
            auto fd = vkinfer::exportTimelineSemaphore(*session_);
            check(fd.status(), "exporting vkinfer's timeline semaphore");
            engineTimeline_ = host.importTimelineSemaphore(*fd);  // the fd is the renderer's Vulkan's now
            toHost_ = ToHost::TimelineSemaphore;
        }
    }

    ~Shared() override {
        vkDeviceWaitIdle(host_.device);
        for (uint32_t i = 0; i < slotCount(); ++i)
            if (pending_[i]) (void)session_->wait(tickets_[i]);
        session_.reset();  // frees vkinfer's imports of the renderer's memory
        context_.reset();
        for (uint32_t i = 0; i < slotCount(); ++i) {
            host_.destroy(input_[i]);
            host_.destroy(output_[i]);
            vkFreeCommandBuffers(host_.device, host_.pool, 1, &cmdB_[i]);
            vkDestroyFence(host_.device, fenceA_[i], nullptr);
            if (renderedBinary_[i]) vkDestroySemaphore(host_.device, renderedBinary_[i], nullptr);
        }
        if (rendered_) vkDestroySemaphore(host_.device, rendered_, nullptr);
        if (engineTimeline_) vkDestroySemaphore(host_.device, engineTimeline_, nullptr);
    }

    std::string describe() const override {
        std::string s = "shared: the upscaler on its own context on '" + context_->device().name +
                        "'; input and output tensors in the renderer's memory, exported as opaque fds and imported by "
                        "vkinfer (per frame slot); renderer -> vkinfer: ";
        s += toEngine_ == ToEngine::TimelineSemaphore
                 ? "the renderer's timeline semaphore as an fd, imported once (importTimelineSemaphore, "
                   "waitTimelineValue)"
             : toEngine_ == ToEngine::BinarySemaphore ? "a binary semaphore as an fd (importWaitSemaphore)"
                                                      : "the host waits on the render fence (no semaphore fds)";
        s += "; vkinfer -> renderer: ";
        s += toHost_ == ToHost::TimelineSemaphore ? "vkinfer's timeline semaphore as an fd (exportTimelineSemaphore)"
                                                  : "Session::wait on the host (timeline semaphore export unsupported)";
        s += framesInFlight() > 1 ? "; " + std::to_string(framesInFlight()) + " frames in flight"
                                  : "; one frame at a time (the host waits)";
        return s;
    }

    uint32_t framesInFlight() const override {
        return toEngine_ == ToEngine::HostWait || toHost_ == ToHost::HostWait ? 1 : slotCount();
    }

    std::vector<std::string> engineMessages() override { return context_->takeValidationMessages(); }

protected:
    bool hasBackHalf() const override { return true; }

    void submitFront(uint32_t frame, uint32_t slot) override {
        Slot& s = slots_[slot];
        const uint32_t W = config_.width, H = config_.height;

        // A: render, then write the frame as the model's input into the shared memory.
        VkCommandBuffer a = s.cmd;
        begin(a);
        timer_.reset(a, slot);
        timer_.stamp(a, slot, kStart, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
        scenePass_.record(a, s.scene, frame);
        VkImageLayout layout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
        VkPipelineStageFlags stage = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
        VkAccessFlags access = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
        if (config_.keepScene) {
            recordSceneReadback(a, s);
            layout = VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL;
            stage = VK_PIPELINE_STAGE_TRANSFER_BIT;
            access = 0;
        }
        timer_.stamp(a, slot, kScene, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        imageBarrier(a, s.scene.image, layout, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, stage, access,
                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                     VK_ACCESS_SHADER_READ_BIT);
        // This slot's previous conversion wrote the same memory (on this device).
        bufferBarrier(a, input_[slot].buffer, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT);
        tensorPass_.record(a, W, H, tensorSets_[slot]);
        timer_.stamp(a, slot, kConverted, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        DEMO_VK(vkEndCommandBuffer(a));

        // Submit A; its end signals vkinfer (a semaphore signal makes every write before it
        // available), or the host waits for it.
        const uint64_t renderedValue = ++renderedCount_;  // timeline values only grow (the warm-up frame counts)
        VkTimelineSemaphoreSubmitInfo timeline{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
        timeline.signalSemaphoreValueCount = 1;
        timeline.pSignalSemaphoreValues = &renderedValue;
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &a;
        VkSemaphore signal = toEngine_ == ToEngine::TimelineSemaphore ? rendered_ : renderedBinary_[slot];
        if (toEngine_ != ToEngine::HostWait) {
            si.signalSemaphoreCount = 1;
            si.pSignalSemaphores = &signal;
            if (toEngine_ == ToEngine::TimelineSemaphore) si.pNext = &timeline;
        }
        DEMO_VK(vkQueueSubmit(host_.queue, 1, &si, fenceA_[slot]));
        if (toEngine_ == ToEngine::HostWait) {
            waitFence(fenceA_[slot]);
        } else if (toEngine_ == ToEngine::TimelineSemaphore) {
            check(vkinfer::waitTimelineValue(*session_, renderedInSession_, renderedValue),
                  "making the upscaler's next submission wait for the render");
        } else {
            int fd = host_.exportSemaphoreFd(signal);
            vkinfer::Status imported = vkinfer::importWaitSemaphore(*session_, fd, false);
            if (!imported.ok()) close(fd);  // a failed import leaves the fd with us
            check(imported, "importing the render semaphore into the upscaler's next submission");
        }

        // vkinfer: every input is imported, so nothing is given (outputs stay in place too).
        auto ticket = session_->submit({});
        check(ticket.status(), "submitting the inference of frame " + std::to_string(frame));
        if (ticket->frame != slot)
            throw DemoError("vkinfer used frame slot " + std::to_string(ticket->frame) + " for frame " +
                            std::to_string(frame) + ", not its imported memory's");
        tickets_[slot] = *ticket;
        pending_[slot] = true;
        s.times = {};
        if (toHost_ == ToHost::HostWait) collectTicket(slot);
    }

    // B: composite from the shared output, copy out.
    void submitBack(uint32_t frame, uint32_t slot) override {
        Slot& s = slots_[slot];
        VkCommandBuffer b = cmdB_[slot];
        begin(b);
        timer_.stamp(b, slot, kCompositeStart, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
        recordCompositeAndReadback(b, s, frame);
        timer_.stamp(b, slot, kDone, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        DEMO_VK(vkEndCommandBuffer(b));
        VkSubmitInfo sb{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        sb.commandBufferCount = 1;
        sb.pCommandBuffers = &b;
        const uint64_t waitValue = tickets_[slot].value;
        const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT;
        VkTimelineSemaphoreSubmitInfo waitInfo{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
        waitInfo.waitSemaphoreValueCount = 1;
        waitInfo.pWaitSemaphoreValues = &waitValue;
        if (toHost_ == ToHost::TimelineSemaphore) {
            sb.pNext = &waitInfo;
            sb.waitSemaphoreCount = 1;
            sb.pWaitSemaphores = &engineTimeline_;
            sb.pWaitDstStageMask = &waitStage;
        }
        DEMO_VK(vkQueueSubmit(host_.queue, 1, &sb, s.fence));
    }

    FrameOutput collectSlot(uint32_t slot) override {
        Slot& s = slots_[slot];
        waitFence(s.fence);
        if (toEngine_ != ToEngine::HostWait) waitFence(fenceA_[slot]);  // finished before B (B waited on vkinfer)
        if (pending_[slot]) collectTicket(slot);
        if (timer_.available()) {
            s.times.renderMs = timer_.ms(slot, kStart, kScene) + timer_.ms(slot, kCompositeStart, kDone);
            s.times.transferMs = timer_.ms(slot, kScene, kConverted);
        }
        return output(slot);
    }

private:
    // vkinfer imports a dedicated allocation of an identical buffer, with the renderer's memory type.
    void share(const std::string& tensor, uint32_t slot, const GpuBuffer& buffer) {
        vkinfer::ImportedMemory m;
        m.fd = host_.exportMemoryFd(buffer);
        m.type = vkinfer::MemoryHandleType::OpaqueFd;
        m.allocationSize = buffer.allocationSize;
        m.offset = 0;
        m.dedicated = true;
        m.memoryTypeIndex = static_cast<int32_t>(buffer.memoryTypeIndex);
        vkinfer::Status s = vkinfer::importTensorMemory(*session_, tensor, slot, m);
        if (!s.ok()) close(m.fd);  // still ours after a failed import
        check(s, "importing the renderer's memory as '" + tensor + "' of frame slot " + std::to_string(slot));
    }

    // Session::wait for the slot's ticket: RunStats::gpuMs is the inference time.
    void collectTicket(uint32_t slot) {
        vkinfer::RunStats stats;
        auto out = session_->wait(tickets_[slot], &stats);
        pending_[slot] = false;
        check(out.status(), "waiting for the inference");
        slots_[slot].times.inferenceMs = stats.gpuMs >= 0 ? stats.gpuMs : 0;
    }

    TensorPass tensorPass_;
    std::unique_ptr<vkinfer::Context> context_;
    std::unique_ptr<vkinfer::Session> session_;
    vkinfer::InteropCapabilities caps_;
    ToEngine toEngine_ = ToEngine::HostWait;
    ToHost toHost_ = ToHost::HostWait;
    VkSemaphore rendered_ = VK_NULL_HANDLE;  // timeline: reaches renderedCount_ once that A finished
    vkinfer::ImportedTimeline renderedInSession_;  // rendered_ as the session imported it
    uint64_t renderedCount_ = 0;
    std::array<VkSemaphore, kMaxSlots> renderedBinary_{};
    VkSemaphore engineTimeline_ = VK_NULL_HANDLE;  // vkinfer's timeline, imported
    std::array<GpuBuffer, kMaxSlots> input_, output_;
    std::array<VkDescriptorSet, kMaxSlots> tensorSets_{};
    std::array<VkCommandBuffer, kMaxSlots> cmdB_{};
    std::array<VkFence, kMaxSlots> fenceA_{};
    std::array<vkinfer::Ticket, kMaxSlots> tickets_{};
    std::array<bool, kMaxSlots> pending_{};
};

}  // namespace

std::unique_ptr<Pattern> makeShared(VulkanHost& host, const PatternConfig& config) {
    return std::make_unique<Shared>(host, config);
}

}  // namespace demo
