#include "runtime/weight_upload.h"

#include <cstddef>
#include <cstring>
#include <mutex>

#include "runtime/plan_recording.h"
#include "vk/check.h"
#include "vk/fault_injection.h"

namespace vkinfer::rt {

namespace {

constexpr VkBufferUsageFlags kStorage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;

void recordCopyToWeights(VkCommandBuffer cmd, VkBuffer from, VkBuffer to, VkDeviceSize size) {
    if (size == 0) return;
    VkBufferCopy copy{0, 0, size};
    vkCmdCopyBuffer(cmd, from, to, 1, &copy);
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_READ_BIT);
}

}  // namespace

void PlanWeights::allocate(const vk::Device& dev, VkDeviceSize size) {
    size_ = size;
    buffer_ = vk::Buffer(dev, size, kStorage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::DeviceLocal, "weights",
                         vk::MemoryKind::Weights);
}

void PlanWeights::upload(const vk::Device& dev, const vk::DeviceQueue& queue, const plan::CompiledPlan& plan,
                         VkCommandPool pool, uint32_t frameSlots) {
    if (size_ > 0) {
        staging_ = vk::Buffer(dev, size_, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryUse::Upload, "weight staging",
                              vk::MemoryKind::Staging);
        auto* dst = static_cast<std::byte*>(staging_.mapped());
        std::memset(dst, 0, size_);
        for (int v : plan.weightValues) {
            const Tensor& t = *plan.graph.values[v].constant;
            std::memcpy(dst + plan.location[v].offset, t.data(), t.byteSize());
        }
    }
    if (size_ == 0) {
        uploaded_ = true;  // nothing to upload
    } else if (queue.handle) {  // upload now and free the staging
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = pool;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        VkCommandBuffer cmd;
        VK_CHECK(vkAllocateCommandBuffers(dev.handle(), &ai, &cmd));
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
        recordCopyToWeights(cmd, staging_.handle(), buffer_.handle(), size_);
        VK_CHECK(vkEndCommandBuffer(cmd));
        submitOnce(dev, queue, cmd);  // on failure the command buffer goes with the pool
        uploaded_ = true;
        vkFreeCommandBuffers(dev.handle(), pool, 1, &cmd);
        staging_ = vk::Buffer();
    } else {
        markers_ = vk::Buffer(dev, 4 * static_cast<VkDeviceSize>(frameSlots), VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                              vk::MemoryUse::Readback, "weight upload markers", vk::MemoryKind::Staging);
        std::memset(markers_.mapped(), 0, 4 * frameSlots);
    }
}

void PlanWeights::submitOnce(const vk::Device& device, const vk::DeviceQueue& queue, VkCommandBuffer cmd) {
    VkDevice dev = device.handle();
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    VK_CHECK(vkCreateFence(dev, &fi, nullptr, &fence));
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    VkResult r = vk::injectedResult("vkQueueSubmit");
    if (r == VK_SUCCESS) {
        std::lock_guard<std::mutex> lock(*queue.lock);
        r = vkQueueSubmit(queue.submitHandle("uploading weights"), 1, &si, fence);
    }
    if (r == VK_SUCCESS) r = vk::injectedResult("vkWaitForFences");
    if (r == VK_SUCCESS) r = vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX);
    vkDestroyFence(dev, fence, nullptr);
    VK_CHECK_RESULT(r, "vkQueueSubmit/vkWaitForFences (weight upload)");
}

void PlanWeights::recordUpload(VkCommandBuffer cmd, FrameSlot& s) {
    if (uploaded_) return;
    const VkDeviceSize marker = 4 * static_cast<VkDeviceSize>(s.index);
    if (s.uploadRecorded) {
        // The host guarantees the slot's previous work finished: the word is final.
        const volatile uint32_t* word =
            reinterpret_cast<const volatile uint32_t*>(static_cast<const std::byte*>(markers_.mapped()) + marker);
        if (*word != 0) {
            uploaded_ = true;
            return;
        }
    }
    recordCopyToWeights(cmd, staging_.handle(), buffer_.handle(), size_);
    vkCmdFillBuffer(cmd, markers_.handle(), marker, 4, 1);
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_HOST_READ_BIT);
    s.uploadRecorded = true;
}

}  // namespace vkinfer::rt
