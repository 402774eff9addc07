// The renderer's own Vulkan setup: a Vulkan 1.2 instance (with the Khronos validation layer
// and synchronization validation when asked), a device created from what vkinfer asks for
// (queryDeviceRequirements) plus what the renderer needs, a graphics + compute queue and a
// queue for asynchronous compute (chooseAsyncComputeQueue: a compute family without
// graphics where the device has one, else a second queue, else the same queue), and the
// images, buffers and command buffers the passes use. No window: everything renders
// offscreen.
#pragma once

#include <vkinfer/interop.h>
#include <vulkan/vulkan.h>

#include <array>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace demo {

struct GpuImage {
    VkImage image = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
    uint32_t width = 0, height = 0;
    vkinfer::HostImage host() const { return {image, view, format, width, height}; }
};

struct GpuBuffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;            // of the buffer
    VkDeviceSize allocationSize = 0;  // of its (dedicated) memory
    uint32_t memoryTypeIndex = 0;
    void* mapped = nullptr;  // host-visible buffers stay mapped
};

// Validation messages of the host's instance (printed as they come, counted, kept).
class MessageLog {
public:
    void add(std::string message);
    std::vector<std::string> messages() const;

private:
    mutable std::mutex mutex_;
    std::vector<std::string> messages_;
};

class VulkanHost {
public:
    // `deviceIndex` -1: the first discrete GPU with a graphics + compute queue family, else
    // the first integrated one, else the first such device.
    VulkanHost(bool validate, int deviceIndex);
    ~VulkanHost();  // waits for the device, destroys what it created
    VulkanHost(const VulkanHost&) = delete;
    VulkanHost& operator=(const VulkanHost&) = delete;

    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    uint32_t family = 0;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    // Asynchronous compute (the async pattern): the queue vkinfer's session runs on, and a
    // pool of its family for the command buffers recordInference records into.
    vkinfer::AsyncQueueChoice asyncChoice;
    uint32_t computeFamily = 0;
    VkQueue computeQueue = VK_NULL_HANDLE;
    VkCommandPool computePool = VK_NULL_HANDLE;
    std::string deviceName;
    std::array<uint8_t, 16> deviceUuid{};
    VkPhysicalDeviceLimits limits{};
    bool timestamps = false;     // the queue family writes timestamps
    uint64_t timestampMask = 0;  // valid bits of a timestamp
    bool computeTimestamps = false;     // the same for the compute family
    uint64_t computeTimestampMask = 0;
    bool validation = false;
    // Semaphores as opaque fds (enabled where the device offers VK_KHR_external_semaphore_fd).
    bool semaphoreFd = false;
    bool memoryFd = false;

    // What the device was created with (vkinfer's requirements, the renderer's additions).
    std::unique_ptr<vkinfer::DeviceRequirements> requirements;
    std::vector<std::string> extensions;

    MessageLog& log() { return *log_; }
    std::shared_ptr<MessageLog> sharedLog() const { return log_; }

    // What wrapHostDevice needs: the handles and what was enabled (the compute queue too).
    vkinfer::HostDevice hostDevice() const;

    // `sharedFamilies`: created VK_SHARING_MODE_CONCURRENT over these queue families (two or
    // more distinct ones), else exclusive.
    GpuImage createImage(uint32_t width, uint32_t height, VkImageUsageFlags usage,
                         VkFormat format = VK_FORMAT_R8G8B8A8_UNORM, const std::vector<uint32_t>& sharedFamilies = {});
    // A buffer with its own memory: host-visible and mapped, or device-local; `exportable`
    // allocates it as a dedicated allocation exportable as an opaque fd.
    GpuBuffer createBuffer(VkDeviceSize size, VkBufferUsageFlags usage, bool hostVisible, bool exportable = false);
    void destroy(GpuImage& image);
    void destroy(GpuBuffer& buffer);
    // Storage/transfer buffers whose memory can be exported as opaque fds.
    bool canExportBufferMemory() const;
    // An opaque fd of the buffer's memory (owned by the caller).
    int exportMemoryFd(const GpuBuffer& buffer) const;

    // Exportable semaphores (semaphoreFd only); fds owned by the caller.
    bool canExportSemaphore(bool timeline) const;
    bool canImportSemaphore(bool timeline) const;
    VkSemaphore createSemaphore(bool timeline, bool exportable);
    int exportSemaphoreFd(VkSemaphore semaphore) const;
    // Imports an opaque fd into a new timeline semaphore of this device (the fd is then
    // Vulkan's; on failure it is closed here).
    VkSemaphore importTimelineSemaphore(int fd);

    VkShaderModule shaderModule(const uint32_t* code, size_t bytes) const;
    VkCommandBuffer allocateCommandBuffer() const;  // from `pool`
    VkCommandBuffer allocateComputeCommandBuffer() const;  // from `computePool`
    VkFence createFence(bool signaled) const;

private:
    uint32_t memoryType(uint32_t bits, VkMemoryPropertyFlags flags) const;
    VkCommandBuffer allocateFrom(VkCommandPool from) const;
    void pickDevice(int deviceIndex);
    void createDevice();

    std::shared_ptr<MessageLog> log_ = std::make_shared<MessageLog>();
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    VkPhysicalDeviceMemoryProperties memory_{};
    PFN_vkGetMemoryFdKHR getMemoryFd_ = nullptr;
    PFN_vkGetSemaphoreFdKHR getSemaphoreFd_ = nullptr;
    PFN_vkImportSemaphoreFdKHR importSemaphoreFd_ = nullptr;
};

}  // namespace demo
