// The Vulkan device each process of the cross-process example creates for itself: an instance
// (with the Khronos validation layer and synchronization validation when asked), a device on
// the physical device with a given UUID (both processes must use the same one to share
// memory), one graphics + compute queue, vkinfer's features and extensions plus those for
// sharing by fd (external memory, external semaphores, timeline semaphores). Failures throw
// std::runtime_error.
#pragma once

#include <vkinfer/interop.h>
#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace vkinfer::crossprocess {

class VulkanDevice {
public:
    // uuid: the physical device to use; nullptr for the first with a graphics + compute queue.
    VulkanDevice(const char* applicationName, bool validate, const uint8_t* uuid);
    ~VulkanDevice();
    VulkanDevice(const VulkanDevice&) = delete;
    VulkanDevice& operator=(const VulkanDevice&) = delete;

    // What wrapHostDevice needs: the handles and what was enabled.
    HostDevice hostDevice() const;
    // Whether VK_KHR_external_semaphore_fd and timeline semaphores were enabled.
    bool timelineSemaphoresShareable() const { return semaphoreFd_ && timeline_; }

    VkCommandBuffer allocateCommandBuffer();
    VkFence createFence();  // unsignaled; destroyed with the device object
    // Submits `cmd`, waiting for `waitSemaphore` >= waitValue (timeline; none when null) at all
    // commands and signaling `signalSemaphore` = signalValue (none when null), then `fence`.
    void submit(VkCommandBuffer cmd, VkFence fence, VkSemaphore waitSemaphore = VK_NULL_HANDLE, uint64_t waitValue = 0,
                VkSemaphore signalSemaphore = VK_NULL_HANDLE, uint64_t signalValue = 0);
    // Waits for the fence (30 s at most, then throws) and resets it.
    void waitAndReset(VkFence fence);

    // timeline_fd.h's calls on this device, the semaphores destroyed with it.
    // A timeline semaphore at 0, exportable as an opaque fd; and the fd (owned by the caller).
    VkSemaphore createExportableTimeline();
    int exportSemaphore(VkSemaphore semaphore);
    // A timeline semaphore whose payload is the one behind `fd` (imported permanently: on
    // success the fd belongs to Vulkan; on failure this throws and the fd is still the caller's).
    VkSemaphore importTimeline(int fd);

    // A host-visible, coherent buffer for reading images back, mapped.
    struct HostBuffer {
        VkBuffer buffer = VK_NULL_HANDLE;
        VkDeviceMemory memory = VK_NULL_HANDLE;
        void* mapped = nullptr;
    };
    HostBuffer createReadbackBuffer(VkDeviceSize bytes);

    // Validation messages reported on this process's instance so far (printed as they come).
    static int validationMessages();

    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    uint32_t family = 0;
    VkQueue queue = VK_NULL_HANDLE;
    std::string name;
    std::array<uint8_t, 16> uuid{};

private:
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    std::unique_ptr<DeviceRequirements> requirements_;
    std::vector<std::string> extensions_;
    std::vector<const char*> extensionNames_;
    bool semaphoreFd_ = false, timeline_ = false;
    std::vector<VkFence> fences_;
    std::vector<VkSemaphore> semaphores_;
    std::vector<HostBuffer> buffers_;
};

}  // namespace vkinfer::crossprocess
