#include "runtime/prepared_plan.h"

#include <chrono>
#include <cstring>

#include "vk/check.h"

namespace vkinfer::rt {

using plan::AllocKind;

namespace {

constexpr VkBufferUsageFlags kStorage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
constexpr VkBufferUsageFlags kTransfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
                   VkAccessFlags dstAccess) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = srcAccess;
    mb.dstAccessMask = dstAccess;
    vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

}  // namespace

PreparedPlan::PreparedPlan(detail::ContextImpl& ctx, plan::CompiledPlan plan, bool timestamps)
    : ctx_(ctx), plan_(std::move(plan)), timestamps_(timestamps && ctx.device->timestampValidBits() > 0) {
    const vk::Device& dev = *ctx_.device;
    for (const auto& a : plan_.allocations) {
        switch (a.kind) {
            case AllocKind::Weights:
                buffers_.emplace_back(dev, a.size, kStorage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::DeviceLocal,
                                      "weights");
                break;
            case AllocKind::Arena:
                buffers_.emplace_back(dev, a.size, kStorage, vk::MemoryUse::DeviceLocal, "the intermediate arena");
                break;
            case AllocKind::Input:
                buffers_.emplace_back(dev, a.size, kStorage | kTransfer, vk::MemoryUse::DeviceLocal, a.name.c_str());
                inputStaging_.emplace_back(dev, a.size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryUse::Upload,
                                           a.name.c_str());
                break;
            case AllocKind::Output:
                buffers_.emplace_back(dev, a.size, kStorage | kTransfer, vk::MemoryUse::DeviceLocal, a.name.c_str());
                outputStaging_.emplace_back(dev, a.size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback,
                                            a.name.c_str());
                break;
        }
    }
    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.queueFamilyIndex = dev.queueFamily();
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    VK_CHECK(vkCreateCommandPool(dev.handle(), &pi, nullptr, &commandPool_));
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(dev.handle(), &fi, nullptr, &fence_));
    if (timestamps_) {
        VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = 2;
        VK_CHECK(vkCreateQueryPool(dev.handle(), &qi, nullptr, &queryPool_));
    }
    for (const auto& d : plan_.dispatches) pipelines_.push_back(ctx_.pipelines->get(d));
    createDescriptors();
    uploadWeights();
    recordRun();
}

PreparedPlan::~PreparedPlan() {
    VkDevice dev = ctx_.device->handle();
    vkDeviceWaitIdle(dev);
    if (queryPool_) vkDestroyQueryPool(dev, queryPool_, nullptr);
    if (fence_) vkDestroyFence(dev, fence_, nullptr);
    if (commandPool_) vkDestroyCommandPool(dev, commandPool_, nullptr);
    if (descriptorPool_) vkDestroyDescriptorPool(dev, descriptorPool_, nullptr);
}

void PreparedPlan::createDescriptors() {
    VkDevice dev = ctx_.device->handle();
    uint32_t total = 0;
    for (const auto& d : plan_.dispatches) total += static_cast<uint32_t>(d.bindings.size());
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max(total, 1u)};
    VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = std::max<uint32_t>(static_cast<uint32_t>(plan_.dispatches.size()), 1u);
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &size;
    VK_CHECK(vkCreateDescriptorPool(dev, &pi, nullptr, &descriptorPool_));

    const uint64_t align = ctx_.info.minStorageBufferOffsetAlignment;
    sets_.resize(plan_.dispatches.size());
    for (size_t i = 0; i < plan_.dispatches.size(); ++i) {
        VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        ai.descriptorPool = descriptorPool_;
        ai.descriptorSetCount = 1;
        ai.pSetLayouts = &pipelines_[i].setLayout;
        VK_CHECK(vkAllocateDescriptorSets(dev, &ai, &sets_[i]));

        const auto& cmd = plan_.commands[i];
        const auto& d = plan_.dispatches[i];
        std::vector<VkDescriptorBufferInfo> infos(d.bindings.size());
        std::vector<VkWriteDescriptorSet> writes(d.bindings.size());
        size_t ri = 0, wi = 0;
        for (size_t b = 0; b < d.bindings.size(); ++b) {
            const plan::Range& r = d.bindings[b].access == ops::Access::Read ? cmd.reads[ri++] : cmd.writes[wi++];
            if (align && r.begin % static_cast<int64_t>(align) != 0)
                fail(ErrorCode::Internal, "tensor '{}' is bound at offset {}, not a multiple of the device's {} bytes",
                     plan_.graph.values[r.tag].name, r.begin, align);
            VkDeviceSize range = static_cast<VkDeviceSize>((r.end - r.begin + 3) / 4 * 4);
            VkDeviceSize bufSize = buffers_[r.alloc].size();
            if (r.begin + static_cast<int64_t>(range) > static_cast<int64_t>(bufSize)) range = bufSize - r.begin;
            if (range > ctx_.info.maxStorageBufferRange)
                fail(ErrorCode::Unsupported, "tensor '{}' needs {} bytes in one binding; device '{}' allows {}",
                     plan_.graph.values[r.tag].name, range, ctx_.info.name, ctx_.info.maxStorageBufferRange);
            infos[b] = {buffers_[r.alloc].handle(), static_cast<VkDeviceSize>(r.begin), std::max<VkDeviceSize>(range, 4)};
            writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writes[b].dstSet = sets_[i];
            writes[b].dstBinding = static_cast<uint32_t>(b);
            writes[b].descriptorCount = 1;
            writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes[b].pBufferInfo = &infos[b];
        }
        vkUpdateDescriptorSets(dev, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
    }
}

void PreparedPlan::submitAndWait(VkCommandBuffer cmd) {
    VkDevice dev = ctx_.device->handle();
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    {
        std::lock_guard<std::mutex> lock(ctx_.device->queueMutex());
        VK_CHECK(vkQueueSubmit(ctx_.device->queue(), 1, &si, fence_));
    }
    VK_CHECK(vkWaitForFences(dev, 1, &fence_, VK_TRUE, UINT64_MAX));
    VK_CHECK(vkResetFences(dev, 1, &fence_));
}

void PreparedPlan::uploadWeights() {
    const auto& weights = plan_.allocations[plan::kWeightsAlloc];
    if (weights.size == 0) return;
    vk::Buffer staging(*ctx_.device, weights.size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryUse::Upload,
                       "weight staging");
    auto* dst = static_cast<std::byte*>(staging.mapped());
    std::memset(dst, 0, weights.size);
    for (int v : plan_.weightValues) {
        const Tensor& t = *plan_.graph.values[v].constant;
        std::memcpy(dst + plan_.location[v].offset, t.data(), t.byteSize());
    }
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = commandPool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    VK_CHECK(vkAllocateCommandBuffers(ctx_.device->handle(), &ai, &cmd));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
    VkBufferCopy copy{0, 0, static_cast<VkDeviceSize>(weights.size)};
    vkCmdCopyBuffer(cmd, staging.handle(), buffers_[plan::kWeightsAlloc].handle(), 1, &copy);
    VK_CHECK(vkEndCommandBuffer(cmd));
    submitAndWait(cmd);
    vkFreeCommandBuffers(ctx_.device->handle(), commandPool_, 1, &cmd);
}

void PreparedPlan::recordDispatches(VkCommandBuffer cmd) const {
    for (size_t i = 0; i < plan_.dispatches.size(); ++i) {
        const auto& d = plan_.dispatches[i];
        const auto& b = plan_.barriers[i];
        if (b.present) {
            if (plan_.sync == SyncMode::Conservative || b.needsMemoryDependency()) {
                memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
            } else {  // WAR only: an execution dependency
                vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                                     nullptr, 0, nullptr, 0, nullptr);
            }
        }
        const vk::Pipeline& p = pipelines_[i];
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &sets_[i], 0, nullptr);
        if (!d.push.empty())
            vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(d.push.size()),
                               d.push.data());
        vkCmdDispatch(cmd, d.groups[0], d.groups[1], d.groups[2]);
    }
}

void PreparedPlan::recordRun() {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = commandPool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VK_CHECK(vkAllocateCommandBuffers(ctx_.device->handle(), &ai, &runCommands_));
    VkCommandBuffer cmd = runCommands_;
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
    if (timestamps_) vkCmdResetQueryPool(cmd, queryPool_, 0, 2);

    // The previous replay (or the weight upload) may still be reading or writing any buffer
    // as far as this command buffer knows: order everything before against everything here.
    memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                      VK_ACCESS_TRANSFER_WRITE_BIT);
    for (size_t i = 0; i < plan_.graph.inputs.size(); ++i) {
        int alloc = plan_.inputAlloc(static_cast<int>(i));
        VkBufferCopy copy{0, 0, static_cast<VkDeviceSize>(plan_.allocations[alloc].size)};
        if (copy.size) vkCmdCopyBuffer(cmd, inputStaging_[i].handle(), buffers_[alloc].handle(), 1, &copy);
    }
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_READ_BIT);
    if (timestamps_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, queryPool_, 0);
    recordDispatches(cmd);
    if (timestamps_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, queryPool_, 1);
    memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_TRANSFER_READ_BIT);
    for (size_t k = 0; k < plan_.graph.outputs.size(); ++k) {
        int alloc = plan_.outputAlloc(static_cast<int>(k));
        VkBufferCopy copy{0, 0, static_cast<VkDeviceSize>(plan_.allocations[alloc].size)};
        if (copy.size) vkCmdCopyBuffer(cmd, buffers_[alloc].handle(), outputStaging_[k].handle(), 1, &copy);
    }
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_HOST_READ_BIT);
    VK_CHECK(vkEndCommandBuffer(cmd));
}

std::vector<NamedTensor> PreparedPlan::run(const std::vector<const Tensor*>& inputs, RunStats* stats) {
    auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < inputs.size(); ++i) std::memcpy(inputStaging_[i].mapped(), inputs[i]->data(), inputs[i]->byteSize());
    double uploadMs = msSince(t0);

    submitAndWait(runCommands_);

    auto t1 = std::chrono::steady_clock::now();
    std::vector<NamedTensor> outputs;
    for (size_t k = 0; k < plan_.graph.outputs.size(); ++k) {
        const auto& v = plan_.graph.values[plan_.graph.outputs[k]];
        Tensor t(v.dtype, v.shape);
        std::memcpy(t.data(), outputStaging_[k].mapped(), t.byteSize());
        outputs.push_back({plan_.outputNames[k], std::move(t)});
    }
    if (stats) {
        stats->uploadMs = uploadMs;
        stats->downloadMs = msSince(t1);
        stats->gpuMs = -1;
        if (timestamps_) {
            uint64_t ts[2] = {0, 0};
            if (vkGetQueryPoolResults(ctx_.device->handle(), queryPool_, 0, 2, sizeof(ts), ts, sizeof(uint64_t),
                                      VK_QUERY_RESULT_64_BIT) == VK_SUCCESS) {
                uint32_t bits = ctx_.device->timestampValidBits();
                uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
                stats->gpuMs = static_cast<double>((ts[1] - ts[0]) & mask) * ctx_.info.timestampPeriodNs * 1e-6;
            }
        }
    }
    return outputs;
}

}  // namespace vkinfer::rt
