// A frame slot: everything one frame in flight uses apart from the plan's read-only weights
// and pipelines, so that frames in different slots never wait for each other
// (docs/ARCHITECTURE.md, "Runtime: frame slots"). Its creation, descriptor writes and
// destruction live here so that what a slot holds and how it is made are read in one place.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "plan/compile.h"
#include "runtime/context_impl.h"
#include "runtime/plan_timestamps.h"
#include "vk/device.h"
#include "vk/pipelines.h"

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
    // submitInference: the host's images and buffers recorded for this slot, re-recorded at
    // each call (allocated on first use; freed with the plan's command pool).
    VkCommandBuffer ioCommands = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;        // signaled when its last submission finished
    bool submitted = false;                // a submission is outstanding (fence not yet waited)
    uint64_t ticket = 0;                   // Ticket value of the last submission
    VkQueryPool queries = VK_NULL_HANDLE;
    // Host devices without a queue: this slot's last recording carried the weight upload,
    // not yet known to have run (see PlanWeights::recordUpload).
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

// The buffer of a non-weights allocation: imported memory where the slot has some.
const vk::Buffer& ioBuffer(const FrameSlot& s, int alloc);

// Buffers and staging per allocation, the fence, the timestamp pool and one descriptor set
// per dispatch (allocated from `pipelines`' set layouts, not yet written). On failure the
// caller destroys the partial slot with destroyFrameSlot.
void createFrameSlot(FrameSlot& s, uint32_t index, const detail::ContextImpl& ctx, const plan::CompiledPlan& plan,
                     const std::vector<vk::Pipeline>& pipelines, const TimestampLayout& timestamps, bool shareableIO);
// Points every dispatch's bindings at the slot's buffers and `weights`: at creation, and
// again after an import replaced a buffer.
void writeFrameSlotDescriptors(FrameSlot& s, const detail::ContextImpl& ctx, const plan::CompiledPlan& plan,
                               const vk::Buffer& weights);
// The slot's Vulkan objects other than buffers (those are RAII) and its command buffer
// (freed with the plan's command pool).
void destroyFrameSlot(VkDevice device, FrameSlot& s);

}  // namespace vkinfer::rt
