// The logical device, its compute queue, and buffers with their memory.
#pragma once

#include <vulkan/vulkan.h>

#include <mutex>

#include "vkinfer/context.h"

namespace vkinfer::vk {

class Device {
public:
    // Creates a device with one compute queue and the features vkinfer uses where present
    // (16-bit storage, fp16/int8 arithmetic, timeline semaphores, external memory and
    // semaphore fds).
    Device(VkPhysicalDevice phys, const DeviceInfo& info);
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    VkDevice handle() const { return device_; }
    VkPhysicalDevice physical() const { return phys_; }
    VkQueue queue() const { return queue_; }
    uint32_t queueFamily() const { return queueFamily_; }
    const DeviceInfo& info() const { return info_; }
    const VkPhysicalDeviceMemoryProperties& memoryProperties() const { return memProps_; }
    std::mutex& queueMutex() { return queueMutex_; }
    uint32_t timestampValidBits() const { return timestampBits_; }

    // A memory type index among `typeBits` with all `required` flags, preferring ones that
    // also have `preferred`. Throws if none.
    uint32_t findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred = 0) const;

private:
    VkPhysicalDevice phys_;
    DeviceInfo info_;
    VkDevice device_ = VK_NULL_HANDLE;
    VkQueue queue_ = VK_NULL_HANDLE;
    uint32_t queueFamily_ = 0;
    uint32_t timestampBits_ = 0;
    VkPhysicalDeviceMemoryProperties memProps_{};
    std::mutex queueMutex_;
};

enum class MemoryUse {
    DeviceLocal,  // GPU-only tensors
    Upload,       // host writes, GPU reads (staging in)
    Readback,     // GPU writes, host reads (staging out)
};

// A VkBuffer with its own VkDeviceMemory (vkinfer allocates a handful per plan, so a
// sub-allocator would buy nothing). Host-visible kinds stay mapped.
class Buffer {
public:
    Buffer() = default;
    Buffer(const Device& device, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUse use, const char* what);
    ~Buffer();
    Buffer(Buffer&& o) noexcept;
    Buffer& operator=(Buffer&& o) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    VkBuffer handle() const { return buffer_; }
    VkDeviceSize size() const { return size_; }
    void* mapped() const { return mapped_; }
    explicit operator bool() const { return buffer_ != VK_NULL_HANDLE; }

private:
    void release();
    VkDevice device_ = VK_NULL_HANDLE;
    VkBuffer buffer_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkDeviceSize size_ = 0;
    void* mapped_ = nullptr;
};

}  // namespace vkinfer::vk
