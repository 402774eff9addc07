// A compiled plan with its GPU resources. Shared by all frames: the weights and pipelines.
// Per frame slot (SessionOptions::framesInFlight of them, created on first use): the arena,
// the input and output buffers, staging, descriptor sets, the recorded command buffer, a
// fence and timestamps, so that a frame never waits for another (no resource is shared).
#pragma once

#include <vulkan/vulkan.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plan/compile.h"
#include "runtime/context_impl.h"
#include "vk/device.h"
#include "vk/pipelines.h"
#include "vkinfer/session.h"

namespace vkinfer::rt {

struct FrameSlot {
    uint32_t index = 0;                    // below SessionOptions::framesInFlight
    std::vector<vk::Buffer> owned;         // per allocation (weights stay in the plan)
    std::vector<vk::Buffer> imported;      // per allocation: replaces `owned` when imported
    std::vector<vk::Buffer> inputStaging;  // per graph input
    std::vector<vk::Buffer> outputStaging; // per graph output
    VkDescriptorPool descriptorPool = VK_NULL_HANDLE;
    std::vector<VkDescriptorSet> sets;     // per dispatch
    VkCommandBuffer commands = VK_NULL_HANDLE;  // the separate-context run, recorded once
    bool commandsRecorded = false;
    VkFence fence = VK_NULL_HANDLE;        // signaled when its last submission finished
    bool submitted = false;                // a submission is outstanding (fence not yet waited)
    uint64_t ticket = 0;                   // Ticket value of the last submission
    VkQueryPool queries = VK_NULL_HANDLE;
    // Host devices without a queue: this slot's last recording carried the weight upload,
    // not yet known to have run (see PreparedPlan::recordWeightUpload).
    bool uploadRecorded = false;
    // Per graph input: the input staging holds data from Session::stageInput that every
    // recording of this slot copies in, until replaced (a discarded recording loses nothing).
    std::vector<char> stagingHoldsInput;
    // Per graph output: the last run or recording left it in the readback staging.
    std::vector<char> outputStaged;
    // Image bridging (recordInference): descriptor sets for the pre/post-processing
    // kernels, rewritten on each recording (the host guarantees the slot is idle then).
    VkDescriptorPool bridgePool = VK_NULL_HANDLE;
    std::map<std::string, VkDescriptorSet> bridgeSets;
};

class PreparedPlan {
public:
    PreparedPlan(detail::ContextImpl& ctx, plan::CompiledPlan plan, const SessionOptions& options);
    ~PreparedPlan();
    PreparedPlan(const PreparedPlan&) = delete;
    PreparedPlan& operator=(const PreparedPlan&) = delete;

    const plan::CompiledPlan& plan() const { return plan_; }
    // Referred to from outside the session (recorded into a host command buffer, memory
    // exported or imported): never evicted from the session's plan cache.
    bool pinned = false;
    detail::ContextImpl& context() const { return ctx_; }

    // Frame slot `i` (< framesInFlight), created on first use.
    FrameSlot& slot(uint32_t i);
    VkBuffer buffer(const FrameSlot& s, int alloc) const;
    const vk::Buffer& ioBuffer(const FrameSlot& s, int alloc) const;

    // Weights reach the GPU once: submitted and waited on the engine's queue; or, on a host
    // device without a queue, recorded into the host's command buffers until one of them is
    // known to have run. Each recorded upload ends by writing a marker word of its slot
    // (host-visible); when the slot is recorded again (the host guarantees its previous work
    // finished), a set marker proves the upload ran, and a clear one that the host discarded
    // or never submitted that recording, so this one carries the upload again. Copies in
    // several slots are identical and ordered by the barrier that opens each recording.
    void recordWeightUpload(VkCommandBuffer cmd, FrameSlot& s);
    bool weightsUploaded() const { return weightsUploaded_; }

    // Every dispatch with its planned barriers (no transfers, no boundary barriers): the
    // part shared by the engine's own command buffers and the host's. With `profileQueries`,
    // timestamps before and after dispatch i into queries startQuery(i) and endQuery(i).
    void recordDispatches(VkCommandBuffer cmd, const FrameSlot& s, VkQueryPool profileQueries = VK_NULL_HANDLE) const;

    // Separate-context execution of one slot: copies `inputs` (graph input order) into its
    // staging, submits its command buffer (waiting on `waitSemaphores`, signaling
    // `signalTimeline` with `ticket` when given), and returns at once.
    struct ExternalWait {
        VkSemaphore semaphore;
        uint64_t value;  // 0 for binary semaphores
    };
    void submit(FrameSlot& s, const std::vector<const Tensor*>& inputs, uint64_t ticket,
                const std::vector<ExternalWait>& waits, VkSemaphore signalTimeline);
    // Waits for the slot's submission and reads its outputs (and GPU time into stats).
    std::vector<NamedTensor> collect(FrameSlot& s, RunStats* stats);
    void waitIdle(FrameSlot& s);

    // The slot's readback staging (interleaved mode: after the host's fence).
    std::vector<NamedTensor> readStagedOutputs(const FrameSlot& s) const;
    // Rewrites the slot's descriptor sets (after an import replaced one of its buffers).
    void refreshSlot(FrameSlot& s);

private:
    void createSlotResources(FrameSlot& s, uint32_t index);
    void destroySlot(FrameSlot& s);  // its Vulkan objects (buffers are RAII)
    void release();
    void writeDescriptors(FrameSlot& s);
    void recordSlotRun(FrameSlot& s);
    void submitOnce(VkCommandBuffer cmd);

    detail::ContextImpl& ctx_;
    plan::CompiledPlan plan_;
    SessionOptions options_;
    bool timestamps_;
    bool profile_;  // a timestamp after every dispatch (SessionOptions::profile)
    // Queries of a slot's pool: before uploads, before dispatches, after dispatches, after
    // readback; then one per dispatch when profiling.
    static constexpr uint32_t kFirstDispatchQuery = 4;
    static uint32_t startQuery(size_t i) { return kFirstDispatchQuery + 2 * static_cast<uint32_t>(i); }
    static uint32_t endQuery(size_t i) { return startQuery(i) + 1; }
    uint32_t queryCount() const;
    vk::Buffer weights_;
    vk::Buffer weightStaging_;  // kept until recorded uploads are surely done (plan destruction)
    bool weightsUploaded_ = false;  // by the engine's own queue, or a recording known to have run
    vk::Buffer uploadMarkers_;      // one word per frame slot, host-visible (queueless host devices)
    std::vector<vk::Pipeline> pipelines_;  // per dispatch
    VkCommandPool commandPool_ = VK_NULL_HANDLE;
    std::vector<std::unique_ptr<FrameSlot>> slots_;
};

// Records a global memory barrier (the form every vkinfer barrier takes).
void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
                   VkAccessFlags dstAccess);

}  // namespace vkinfer::rt
