#include "runtime/frame_slot.h"

#include <algorithm>
#include <cstring>

#include "vk/check.h"

namespace vkinfer::rt {

using plan::AllocKind;

namespace {

constexpr VkBufferUsageFlags kStorage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
constexpr VkBufferUsageFlags kTransfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

}  // namespace

const vk::Buffer& ioBuffer(const FrameSlot& s, int alloc) {
    return s.imported[alloc] ? s.imported[alloc] : s.owned[alloc];
}

void createFrameSlot(FrameSlot& s, uint32_t index, const detail::ContextImpl& ctx, const plan::CompiledPlan& plan,
                     const std::vector<vk::Pipeline>& pipelines, const TimestampLayout& timestamps, bool shareableIO) {
    const vk::Device& dev = *ctx.device;
    VkExternalMemoryHandleTypeFlags exportTypes = 0;
    if (shareableIO) {
        dev.require(dev.enabled().externalMemoryFd, "VK_KHR_external_memory_fd", "SessionOptions::shareableIO");
        exportTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
        if (dev.enabled().dmaBuf && ctx.info.dmaBuf) exportTypes |= VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
    }
    s.index = index;
    s.outputStaged.assign(plan.graph.outputs.size(), 0);
    s.stagingHoldsInput.assign(plan.graph.inputs.size(), 0);
    s.owned.resize(plan.allocations.size());
    s.imported.resize(plan.allocations.size());
    for (size_t a = 0; a < plan.allocations.size(); ++a) {
        const auto& al = plan.allocations[a];
        std::string what = fmt::format("{} (frame {})", al.name, index);
        switch (al.kind) {
            case AllocKind::Weights: break;
            case AllocKind::Arena:
                s.owned[a] = vk::Buffer(dev, al.size, kStorage, vk::MemoryUse::DeviceLocal, what.c_str(),
                                        vk::MemoryKind::Arena);
                break;
            case AllocKind::Input:
                s.owned[a] = vk::Buffer(dev, al.size, kStorage | kTransfer, vk::MemoryUse::DeviceLocal, what.c_str(),
                                        vk::MemoryKind::InputOutput, exportTypes);
                s.inputStaging.emplace_back(dev, al.size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryUse::Upload,
                                            ("staging of " + what).c_str(), vk::MemoryKind::Staging);
                break;
            case AllocKind::Output:
                s.owned[a] = vk::Buffer(dev, al.size, kStorage | kTransfer, vk::MemoryUse::DeviceLocal, what.c_str(),
                                        vk::MemoryKind::InputOutput, exportTypes);
                s.outputStaging.emplace_back(dev, al.size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback,
                                             ("staging of " + what).c_str(), vk::MemoryKind::Staging);
                break;
            case AllocKind::Status:  // written by kernels only on a bad index, read by the host
                s.owned[a] = vk::Buffer(dev, al.size, kStorage, vk::MemoryUse::Readback, what.c_str(),
                                        vk::MemoryKind::Staging);
                std::memset(s.owned[a].mapped(), 0, static_cast<size_t>(al.size));
                break;
        }
    }
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(dev.handle(), &fi, nullptr, &s.fence));
    if (timestamps.enabled()) {
        VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = timestamps.count();
        VK_CHECK(vkCreateQueryPool(dev.handle(), &qi, nullptr, &s.queries));
    }

    uint32_t total = 0;
    for (const auto& d : plan.dispatches) total += static_cast<uint32_t>(d.bindings.size());
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max(total, 1u)};
    VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = std::max<uint32_t>(static_cast<uint32_t>(plan.dispatches.size()), 1u);
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &size;
    VK_CHECK(vkCreateDescriptorPool(dev.handle(), &pi, nullptr, &s.descriptorPool));
    s.sets.resize(plan.dispatches.size());
    for (size_t i = 0; i < plan.dispatches.size(); ++i) {
        VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        ai.descriptorPool = s.descriptorPool;
        ai.descriptorSetCount = 1;
        ai.pSetLayouts = &pipelines[i].setLayout;
        VK_CHECK(vkAllocateDescriptorSets(dev.handle(), &ai, &s.sets[i]));
    }
}

void writeFrameSlotDescriptors(FrameSlot& s, const detail::ContextImpl& ctx, const plan::CompiledPlan& plan,
                               const vk::Buffer& weights) {
    VkDevice dev = ctx.device->handle();
    const uint64_t align = ctx.info.minStorageBufferOffsetAlignment;
    for (size_t i = 0; i < plan.dispatches.size(); ++i) {
        const auto& cmd = plan.commands[i];
        const auto& d = plan.dispatches[i];
        std::vector<VkDescriptorBufferInfo> infos(d.bindings.size());
        std::vector<VkWriteDescriptorSet> writes(d.bindings.size());
        size_t ri = 0, wi = 0;
        for (size_t b = 0; b < d.bindings.size(); ++b) {
            const plan::Range& r = d.bindings[b].access == ops::Access::Read ? cmd.reads[ri++] : cmd.writes[wi++];
            if (align && r.begin % static_cast<int64_t>(align) != 0)
                fail(ErrorCode::Internal, "tensor '{}' is bound at offset {}, not a multiple of the device's {} bytes",
                     plan.graph.values[r.tag].name, r.begin, align);
            const vk::Buffer& buf = r.alloc == plan::kWeightsAlloc ? weights : ioBuffer(s, r.alloc);
            VkDeviceSize bufSize = buf.size();
            VkDeviceSize range = static_cast<VkDeviceSize>((r.end - r.begin + 3) / 4 * 4);
            if (r.begin + static_cast<int64_t>(range) > static_cast<int64_t>(bufSize)) range = bufSize - r.begin;
            if (range > ctx.info.maxStorageBufferRange)
                fail(ErrorCode::Unsupported, "tensor '{}' needs {} bytes in one binding; device '{}' allows {}",
                     plan.graph.values[r.tag].name, range, ctx.info.name, ctx.info.maxStorageBufferRange);
            infos[b] = {buf.handle(), static_cast<VkDeviceSize>(r.begin), std::max<VkDeviceSize>(range, 4)};
            writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writes[b].dstSet = s.sets[i];
            writes[b].dstBinding = static_cast<uint32_t>(b);
            writes[b].descriptorCount = 1;
            writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes[b].pBufferInfo = &infos[b];
        }
        vkUpdateDescriptorSets(dev, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
    }
}

void destroyFrameSlot(VkDevice device, FrameSlot& s) {
    if (s.queries) vkDestroyQueryPool(device, s.queries, nullptr);
    if (s.fence) vkDestroyFence(device, s.fence, nullptr);
    if (s.descriptorPool) vkDestroyDescriptorPool(device, s.descriptorPool, nullptr);
    if (s.bridgePool) vkDestroyDescriptorPool(device, s.bridgePool, nullptr);
    s.queries = VK_NULL_HANDLE;
    s.fence = VK_NULL_HANDLE;
    s.descriptorPool = s.bridgePool = VK_NULL_HANDLE;
}

}  // namespace vkinfer::rt
