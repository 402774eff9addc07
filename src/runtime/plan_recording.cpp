#include "runtime/plan_recording.h"

#include "vk/check.h"

namespace vkinfer::rt {

void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
                   VkAccessFlags dstAccess) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = srcAccess;
    mb.dstAccessMask = dstAccess;
    vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

void recordDispatches(VkCommandBuffer cmd, const plan::CompiledPlan& plan, const std::vector<vk::Pipeline>& pipelines,
                      const FrameSlot& s, VkQueryPool profileQueries) {
    for (size_t i = 0; i < plan.dispatches.size(); ++i) {
        const auto& d = plan.dispatches[i];
        const auto& b = plan.barriers[i];
        if (b.present) {
            if (plan.sync == SyncMode::Conservative || b.needsMemoryDependency()) {
                memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
            } else {  // WAR only: an execution dependency
                vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                                     nullptr, 0, nullptr, 0, nullptr);
            }
        }
        // Profiling: when the dispatch is reached (after its barrier), and when it and every
        // dispatch before it have finished their compute work.
        if (profileQueries)
            vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, profileQueries, TimestampLayout::startQuery(i));
        const vk::Pipeline& p = pipelines[i];
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &s.sets[i], 0, nullptr);
        if (!d.push.empty())
            vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(d.push.size()),
                               d.push.data());
        vkCmdDispatch(cmd, d.groups[0], d.groups[1], d.groups[2]);
        if (profileQueries)
            vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, profileQueries, TimestampLayout::endQuery(i));
    }
}

VkCommandBuffer allocatePrimaryCommandBuffer(VkDevice dev, VkCommandPool pool) {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VK_CHECK(vkAllocateCommandBuffers(dev, &ai, &cmd));
    return cmd;
}

void recordSlotRun(VkDevice dev, VkCommandPool pool, FrameSlot& s, const plan::CompiledPlan& plan,
                   const std::vector<vk::Pipeline>& pipelines, const TimestampLayout& timestamps) {
    using Q = TimestampLayout;
    if (!s.commands) s.commands = allocatePrimaryCommandBuffer(dev, pool);
    VkCommandBuffer cmd = s.commands;
    VK_CHECK(vkResetCommandBuffer(cmd, 0));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
    const bool stamped = timestamps.enabled();
    if (stamped) vkCmdResetQueryPool(cmd, s.queries, 0, timestamps.count());

    // This slot's previous run (or another API writing shared memory) may still be reading
    // or writing its buffers as far as this command buffer knows: order everything before
    // against everything here.
    memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                      VK_ACCESS_TRANSFER_WRITE_BIT);
    if (stamped) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, s.queries, Q::kBeforeUploads);
    for (size_t i = 0; i < plan.graph.inputs.size(); ++i) {
        int alloc = plan.inputAlloc(static_cast<int>(i));
        if (s.imported[alloc]) continue;  // read in place from shared memory
        VkBufferCopy copy{0, 0, static_cast<VkDeviceSize>(plan.allocations[alloc].size)};
        if (copy.size) vkCmdCopyBuffer(cmd, s.inputStaging[i].handle(), ioBuffer(s, alloc).handle(), 1, &copy);
    }
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_READ_BIT);
    if (stamped) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, s.queries, Q::kBeforeDispatches);
    recordDispatches(cmd, plan, pipelines, s, timestamps.profile() ? s.queries : VK_NULL_HANDLE);
    if (stamped) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, s.queries, Q::kAfterDispatches);
    memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_TRANSFER_READ_BIT);
    for (size_t k = 0; k < plan.graph.outputs.size(); ++k) {
        int alloc = plan.outputAlloc(static_cast<int>(k));
        if (s.imported[alloc]) continue;  // written in place into the importer's memory
        VkBufferCopy copy{0, 0, static_cast<VkDeviceSize>(plan.allocations[alloc].size)};
        if (copy.size) vkCmdCopyBuffer(cmd, ioBuffer(s, alloc).handle(), s.outputStaging[k].handle(), 1, &copy);
    }
    if (stamped) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, s.queries, Q::kAfterReadback);
    // The host reads the readback staging and the index-status slots (kernel writes).
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_HOST_READ_BIT);
    VK_CHECK(vkEndCommandBuffer(cmd));
    s.commandsRecorded = true;
}

}  // namespace vkinfer::rt
