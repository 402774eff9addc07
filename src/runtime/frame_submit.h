// Running a frame slot on the engine's own queue and reading back what it left: the
// separate-context pattern's submission (with the session's semaphore waits and timeline
// signal) and the readback that Session::wait and readOutputs share. The slot's fence is the
// only thing that says its buffers and staging are free again, so every wait is here.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "plan/compile.h"
#include "runtime/context_impl.h"
#include "runtime/frame_slot.h"
#include "runtime/plan_timestamps.h"
#include "vk/device.h"
#include "vkinfer/session.h"

namespace vkinfer::rt {

// A semaphore the next submission waits on (importWaitSemaphore).
struct ExternalWait {
    VkSemaphore semaphore;
    uint64_t value;  // 0 for binary semaphores
    // Destroyed once the submission that waits on it has finished (importWaitSemaphore);
    // false for a semaphore the session keeps (importTimelineSemaphore).
    bool retires = true;
};

// Waits for the slot's outstanding submission, if any (the host fences its own work).
void waitForSlot(VkDevice dev, FrameSlot& s);
// Before a new submission: waits for the last one and unsignals the fence.
void reuseSlot(VkDevice dev, FrameSlot& s);
// Copies `inputs` (graph input order; null for those left out) into the slot's staging and
// submits its recorded command buffer to `queue` (submitCommands); returns at once.
void submitSlot(const vk::Device& device, const vk::DeviceQueue& queue, FrameSlot& s, const plan::CompiledPlan& plan,
                const std::vector<const Tensor*>& inputs, uint64_t ticket, const std::vector<ExternalWait>& waits,
                VkSemaphore signalTimeline);
// Submits `commands` to `queue` as slot `s`'s run, with the slot's fence, waiting on `waits`
// and signaling `signalTimeline` with `ticket` when given; returns at once.
void submitCommands(const vk::Device& device, const vk::DeviceQueue& queue, FrameSlot& s, VkCommandBuffer commands,
                    uint64_t ticket, const std::vector<ExternalWait>& waits, VkSemaphore signalTimeline);

// The outputs the slot's last run or recording left in its readback staging.
std::vector<NamedTensor> readStagedOutputs(const plan::CompiledPlan& plan, const FrameSlot& s);
// Waits for the slot's submission and reads its outputs, with the download and GPU times
// into `stats` when given; fails when a kernel reported an index out of range
// (runtime/index_status.h).
std::vector<NamedTensor> collectSlot(const detail::ContextImpl& ctx, const plan::CompiledPlan& plan,
                                     const TimestampLayout& timestamps, FrameSlot& s, RunStats* stats);

}  // namespace vkinfer::rt
