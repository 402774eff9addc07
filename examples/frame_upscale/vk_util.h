// Small Vulkan helpers of the demo: checked calls that throw, barriers, and errors.
#pragma once

#include <vulkan/vulkan.h>

#include <stdexcept>
#include <string>

namespace demo {

// A failure the demo reports as `vkinfer_demo: error: <message>` and exit status 1.
struct DemoError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

const char* vkResultName(VkResult r);

[[noreturn]] void throwVk(const char* call, VkResult r);

#define DEMO_VK(call)                                               \
    do {                                                            \
        VkResult demo_r_ = (call);                                  \
        if (demo_r_ != VK_SUCCESS) ::demo::throwVk(#call, demo_r_); \
    } while (0)

// One image layout transition / memory dependency on the color aspect of mip 0, layer 0.
void imageBarrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to,
                  VkPipelineStageFlags srcStages, VkAccessFlags srcAccess, VkPipelineStageFlags dstStages,
                  VkAccessFlags dstAccess);
void bufferBarrier(VkCommandBuffer cmd, VkBuffer buffer, VkPipelineStageFlags srcStages, VkAccessFlags srcAccess,
                   VkPipelineStageFlags dstStages, VkAccessFlags dstAccess);

}  // namespace demo
