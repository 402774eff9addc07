// A compiled plan with its GPU resources: the owner that ties the pieces together, so that
// callers deal with one object per input shape. Shared by all frames: the weights
// (runtime/weight_upload.h) and pipelines. Per frame slot (runtime/frame_slot.h;
// SessionOptions::framesInFlight of them, created on first use): the arena, the input and
// output buffers, staging, descriptor sets, the recorded command buffer, a fence and
// timestamps, so that a frame never waits for another (no resource is shared). Recording is
// in runtime/plan_recording.h, submission and readback in runtime/frame_submit.h, the
// timestamp queries in runtime/plan_timestamps.h.
#pragma once

#include <vulkan/vulkan.h>

#include <functional>
#include <memory>
#include <vector>

#include "plan/compile.h"
#include "runtime/context_impl.h"
#include "runtime/frame_slot.h"
#include "runtime/frame_submit.h"
#include "runtime/plan_recording.h"
#include "runtime/plan_timestamps.h"
#include "runtime/weight_upload.h"
#include "vk/device.h"
#include "vk/pipelines.h"
#include "vkinfer/session.h"

namespace vkinfer::rt {

class PreparedPlan {
public:
    // Runs on `queue` (the session's: SessionOptions::queue): its command pool is of that
    // family, the weights are uploaded and the separate-context runs submitted on it.
    PreparedPlan(detail::ContextImpl& ctx, plan::CompiledPlan plan, const SessionOptions& options,
                 const vk::DeviceQueue& queue);
    ~PreparedPlan();
    PreparedPlan(const PreparedPlan&) = delete;
    PreparedPlan& operator=(const PreparedPlan&) = delete;

    const plan::CompiledPlan& plan() const { return plan_; }
    // Referred to from outside the session (recorded into a host command buffer, memory
    // exported or imported): never evicted from the session's plan cache.
    bool pinned = false;
    detail::ContextImpl& context() const { return ctx_; }
    const vk::DeviceQueue& queue() const { return queue_; }

    // Frame slot `i` (< framesInFlight), created on first use.
    FrameSlot& slot(uint32_t i);
    // The buffer allocation `alloc` of the plan lives in for slot `s` (weights included).
    VkBuffer buffer(const FrameSlot& s, int alloc) const;

    // Queueless host devices: the weight upload, recorded into `cmd` until known to have
    // run (PlanWeights::recordUpload).
    void recordWeightUpload(VkCommandBuffer cmd, FrameSlot& s) { weights_.recordUpload(cmd, s); }
    // The dispatches with their planned barriers (rt::recordDispatches), for the host's
    // command buffer.
    void recordDispatches(VkCommandBuffer cmd, const FrameSlot& s, VkQueryPool profileQueries = VK_NULL_HANDLE) const {
        rt::recordDispatches(cmd, plan_, pipelines_, s, profileQueries);
    }

    // Separate-context execution of one slot: copies `inputs` (graph input order) into its
    // staging, submits its command buffer (recorded on first use; waiting on `waits`,
    // signaling `signalTimeline` with `ticket` when given), and returns at once.
    using ExternalWait = rt::ExternalWait;
    void submit(FrameSlot& s, const std::vector<const Tensor*>& inputs, uint64_t ticket,
                const std::vector<ExternalWait>& waits, VkSemaphore signalTimeline);
    // submitInference: waits for the slot's last submission, then `record`s into the slot's
    // own second command buffer (reset, begun for one submission) and submits it like submit.
    // `record` gets the slot's timestamp pool, reset, when the session takes timestamps (the
    // four phase queries of TimestampLayout at 0..3), and it again as `profileQueries` when it
    // profiles; null otherwise. Nothing is submitted when `record` throws.
    using SlotRecorder = std::function<void(VkCommandBuffer, VkQueryPool timestamps, VkQueryPool profileQueries)>;
    void submitRecording(FrameSlot& s, const SlotRecorder& record, uint64_t ticket,
                         const std::vector<ExternalWait>& waits, VkSemaphore signalTimeline);
    // Waits for the slot's submission and reads its outputs (and GPU time into stats).
    std::vector<NamedTensor> collect(FrameSlot& s, RunStats* stats) {
        return collectSlot(ctx_, plan_, timestamps_, s, stats);
    }
    void waitIdle(FrameSlot& s) { waitForSlot(ctx_.device->handle(), s); }

    // The slot's readback staging (interleaved mode: after the host's fence).
    std::vector<NamedTensor> readStagedOutputs(const FrameSlot& s) const { return rt::readStagedOutputs(plan_, s); }
    // Rewrites the slot's descriptor sets (after an import replaced one of its buffers).
    void refreshSlot(FrameSlot& s);

private:
    void release();

    detail::ContextImpl& ctx_;
    const vk::DeviceQueue& queue_;  // owned by the device, which outlives the plan
    plan::CompiledPlan plan_;
    SessionOptions options_;
    TimestampLayout timestamps_;
    // Destroyed in reverse order: the weights outlive the pool and the slots that bind them.
    PlanWeights weights_;
    std::vector<vk::Pipeline> pipelines_;  // per dispatch
    VkCommandPool commandPool_ = VK_NULL_HANDLE;
    std::vector<std::unique_ptr<FrameSlot>> slots_;
};

}  // namespace vkinfer::rt
