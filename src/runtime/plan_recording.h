// Recording a plan's work into command buffers. The dispatches with their planned barriers
// are the one part the engine's own command buffers and the host's (recordInference) have
// in common, so both record them through recordDispatches; what surrounds them differs
// (boundary copies and barriers here, the host's declared states in interop/interleaved.cpp).
#pragma once

#include <vulkan/vulkan.h>

#include <vector>

#include "plan/compile.h"
#include "runtime/frame_slot.h"
#include "runtime/plan_timestamps.h"
#include "vk/pipelines.h"

namespace vkinfer::rt {

// Records a global memory barrier (the form every vkinfer barrier takes).
void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
                   VkAccessFlags dstAccess);

// Every dispatch with its planned barriers (no transfers, no boundary barriers), bound to
// the slot's descriptor sets; `pipelines` per dispatch. With `profileQueries`, timestamps
// before and after dispatch i into queries TimestampLayout::startQuery(i) and endQuery(i).
void recordDispatches(VkCommandBuffer cmd, const plan::CompiledPlan& plan, const std::vector<vk::Pipeline>& pipelines,
                      const FrameSlot& s, VkQueryPool profileQueries = VK_NULL_HANDLE);

// A primary command buffer from `pool` (freed with the pool).
VkCommandBuffer allocatePrimaryCommandBuffer(VkDevice dev, VkCommandPool pool);

// The slot's separate-context command buffer (allocated from `pool` on first use), recorded
// once and replayed until something it names changes: opening barrier, staging -> input
// copies, barrier, dispatches, barrier, output -> staging copies, TRANSFER_WRITE -> HOST_READ,
// with the timestamps of `timestamps` between the phases.
void recordSlotRun(VkDevice dev, VkCommandPool pool, FrameSlot& s, const plan::CompiledPlan& plan,
                   const std::vector<vk::Pipeline>& pipelines, const TimestampLayout& timestamps);

}  // namespace vkinfer::rt
