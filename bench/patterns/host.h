// A minimal host application for the patterns benchmark: its own instance and device (a
// graphics + compute queue, as a renderer has), images, command buffers and timestamps.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <vkinfer/interop.h>

namespace bench {

struct HostImage {
    VkImage image = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    uint32_t width = 0, height = 0;
};

class Host {
public:
    // On the physical device whose UUID is `uuid` (the engine's), so the patterns compare.
    explicit Host(const std::array<uint8_t, 16>& uuid);
    ~Host();
    Host(const Host&) = delete;
    Host& operator=(const Host&) = delete;

    vkinfer::HostDevice description(bool withQueue) const;
    HostImage createImage(uint32_t w, uint32_t h);
    // Fills `img` with a gradient and leaves it in SHADER_READ_ONLY_OPTIMAL.
    void fillImage(const HostImage& img);
    void destroy(HostImage& img);

    VkCommandBuffer begin();
    // Submits, waits for the fence, and returns.
    void submitAndWait(VkCommandBuffer cmd);
    VkQueryPool timestamps() const { return queries_; }
    // Nanoseconds between queries a and b of the pool.
    double elapsedMs(uint32_t a, uint32_t b) const;

private:
    uint32_t memoryType(uint32_t bits, VkMemoryPropertyFlags flags) const;

    VkInstance instance_ = VK_NULL_HANDLE;
    VkPhysicalDevice phys_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    uint32_t family_ = 0;
    VkQueue queue_ = VK_NULL_HANDLE;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer cmd_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    VkQueryPool queries_ = VK_NULL_HANDLE;
    double periodNs_ = 1;
    uint32_t timestampBits_ = 64;
    VkPhysicalDeviceFeatures core_{};
    VkPhysicalDeviceVulkan12Features v12_{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
};

}  // namespace bench
