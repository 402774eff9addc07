// The barriers interop records on the host's resources at the boundaries of inference
// (recordInference, the ownership transfers, recordCopyToLinear): one form for an image (the
// color aspect of mip 0, layer 0, the only part of an image vkinfer touches) and one for a
// buffer range, each with a queue family ownership transfer where the two families differ.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

namespace vkinfer::interop {

void recordImageBarrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                        VkPipelineStageFlags srcStages, VkAccessFlags srcAccess, VkPipelineStageFlags dstStages,
                        VkAccessFlags dstAccess, uint32_t srcFamily = VK_QUEUE_FAMILY_IGNORED,
                        uint32_t dstFamily = VK_QUEUE_FAMILY_IGNORED);

void recordBufferBarrier(VkCommandBuffer cmd, VkBuffer buffer, VkDeviceSize offset, VkDeviceSize size,
                         VkPipelineStageFlags srcStages, VkAccessFlags srcAccess, VkPipelineStageFlags dstStages,
                         VkAccessFlags dstAccess, uint32_t srcFamily = VK_QUEUE_FAMILY_IGNORED,
                         uint32_t dstFamily = VK_QUEUE_FAMILY_IGNORED);

// The stages a host's state names, or `fallback` (TOP_OF_PIPE before, BOTTOM_OF_PIPE after:
// "nothing before" / "nothing after" are still valid scopes) where it names none.
inline VkPipelineStageFlags stagesOr(VkPipelineStageFlags stages, VkPipelineStageFlags fallback) {
    return stages ? stages : fallback;
}

}  // namespace vkinfer::interop
