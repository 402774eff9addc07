// The logical device (created by vkinfer, or adopted from the host), its compute queue, and
// buffers with their memory.
#pragma once

#include <vulkan/vulkan.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "vk/device_features.h"
#include "vkinfer/context.h"

namespace vkinfer::vk {

// What is enabled on the VkDevice vkinfer runs on (its own, or what the host declared).
struct EnabledCapabilities {
    FeatureSet features;               // what kernels may use (checked against their SPIR-V)
    bool timelineSemaphore = false;
    bool externalMemoryFd = false;     // VK_KHR_external_memory_fd
    bool dmaBuf = false;               // VK_EXT_external_memory_dma_buf
    bool externalSemaphoreFd = false;  // VK_KHR_external_semaphore_fd
    bool externalFenceFd = false;      // VK_KHR_external_fence_fd
    bool has(Feature f) const { return features.has(f); }
};

// What a buffer's memory is for, for Device::memory() (Context::memoryStats).
enum class MemoryKind : uint8_t { Weights, Arena, InputOutput, Staging, Other };
constexpr size_t kMemoryKinds = 5;

// Live and peak bytes of device memory a Device's buffers hold, by kind. Thread-safe.
class MemoryCounters {
public:
    void add(MemoryKind kind, uint64_t bytes);
    void remove(MemoryKind kind, uint64_t bytes);
    uint64_t current(MemoryKind kind) const { return current_[static_cast<size_t>(kind)].load(); }
    uint64_t peak(MemoryKind kind) const { return peak_[static_cast<size_t>(kind)].load(); }
    uint64_t peakTotal() const { return peakTotal_.load(); }
    void resetPeaks();

private:
    std::atomic<uint64_t> current_[kMemoryKinds] = {};
    std::atomic<uint64_t> peak_[kMemoryKinds] = {};
    std::atomic<uint64_t> total_{0};
    std::atomic<uint64_t> peakTotal_{0};
};

// The handles of a device vkinfer does not own (see include/vkinfer/interop.h HostDevice).
struct AdoptedDevice {
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    uint32_t queueFamily = 0;
    VkQueue queue = VK_NULL_HANDLE;
    // HostDevice::computeQueueFamilyIndex / computeQueue (SessionQueue::AsyncCompute).
    std::optional<uint32_t> computeFamily;
    VkQueue computeQueue = VK_NULL_HANDLE;
    EnabledCapabilities enabled;
};

// A queue sessions run on (SessionQueue): its family, the handle for vkinfer's own
// submissions (null where the host gave none: the host records and submits), and the lock
// those submissions take (one per VkQueue, shared when both roles name the same queue).
struct DeviceQueue {
    uint32_t family = 0;
    VkQueue handle = VK_NULL_HANDLE;
    uint32_t timestampBits = 0;  // VkQueueFamilyProperties::timestampValidBits
    QueueInfo info;
    std::shared_ptr<std::mutex> lock;
    // The handle; throws naming `what` if the host gave none.
    VkQueue submitHandle(const char* what) const;
};

// The device's queue families as the pure queue choices (vk/queue_choice.h) take them.
std::vector<QueueFamilyInfo> readQueueFamilies(VkPhysicalDevice phys);

class Device {
public:
    // Creates a device with a compute queue (and one in a second family where asynchronous
    // compute picks another: vk/queue_choice.h) and every feature and extension vkinfer uses
    // that the device offers (vk/device_requirements.h lists them).
    // khrCooperativeMatrix false: without VK_KHR_cooperative_matrix (planDeviceFeatures).
    Device(VkPhysicalDevice phys, const DeviceInfo& info, bool khrCooperativeMatrix = true);
    // Runs on the host's device; never destroys it.
    Device(const AdoptedDevice& host, const DeviceInfo& info);
    ~Device();
    Device(const Device&) = delete;
    Device& operator=(const Device&) = delete;

    VkDevice handle() const { return device_; }
    VkPhysicalDevice physical() const { return phys_; }
    // The queue sessions created with SessionOptions::queue = `which` use.
    const DeviceQueue& queue(SessionQueue which) const {
        return which == SessionQueue::AsyncCompute ? async_ : main_;
    }
    const DeviceInfo& info() const { return info_; }
    const EnabledCapabilities& enabled() const { return enabled_; }
    const FeatureSet& supported() const { return supported_; }
    // VkPhysicalDeviceSubgroupProperties::supportedOperations (compute stage).
    uint32_t subgroupOperations() const { return subgroupOps_; }
    // VkPhysicalDeviceMaintenance3Properties::maxMemoryAllocationSize.
    VkDeviceSize maxAllocationBytes() const { return maxAllocation_; }
    bool owned() const { return owned_; }
    const VkPhysicalDeviceMemoryProperties& memoryProperties() const { return memProps_; }
    MemoryCounters& memory() const { return memory_; }

    // A memory type index among `typeBits` with all `required` flags, preferring ones that
    // also have `preferred`. Throws if none.
    uint32_t findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred = 0) const;

    // Throws Unsupported "<feature> is not enabled on the device (needed for <what>)"; for a
    // feature the device does not offer at all, says that instead.
    void require(bool enabled, const char* feature, const std::string& what) const;
    void require(Feature f, const std::string& what) const;

private:
    void readMemoryAndLimits();

    VkPhysicalDevice phys_;
    DeviceInfo info_;
    VkDevice device_ = VK_NULL_HANDLE;
    DeviceQueue main_, async_;
    bool owned_ = true;
    EnabledCapabilities enabled_;
    FeatureSet supported_;
    uint32_t subgroupOps_ = 0;
    VkDeviceSize maxAllocation_ = 0;  // what the physical device offers, to tell "not offered" from "not enabled"
    VkPhysicalDeviceMemoryProperties memProps_{};
    mutable MemoryCounters memory_;
};

enum class MemoryUse {
    DeviceLocal,  // GPU-only tensors
    Upload,       // host writes, GPU reads (staging in)
    Readback,     // GPU writes, host reads (staging out)
};

// A VkBuffer with its own VkDeviceMemory (vkinfer allocates a handful per plan, so a
// sub-allocator would buy nothing). Host-visible kinds stay mapped. The memory may be
// exportable (a dedicated allocation with VkExportMemoryAllocateInfo) or imported from an fd.
class Buffer {
public:
    Buffer() = default;
    Buffer(const Device& device, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUse use, const char* what,
           MemoryKind kind = MemoryKind::Other, VkExternalMemoryHandleTypeFlags exportTypes = 0);
    // Binds a new buffer to memory imported from `fd` (ownership of the fd passes to Vulkan
    // on success only). `offset` is where the buffer starts in that memory. `memoryTypeIndex`
    // is the exporter's (another VkDevice on this physical device), or -1 to pick one.
    static Buffer imported(const Device& device, VkDeviceSize size, VkBufferUsageFlags usage, int fd,
                           VkExternalMemoryHandleTypeFlagBits type, VkDeviceSize allocationSize, VkDeviceSize offset,
                           bool dedicated, const char* what, int32_t memoryTypeIndex = -1,
                           MemoryKind kind = MemoryKind::InputOutput);
    ~Buffer();
    Buffer(Buffer&& o) noexcept;
    Buffer& operator=(Buffer&& o) noexcept;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;

    VkBuffer handle() const { return buffer_; }
    VkDeviceMemory memory() const { return memory_; }
    VkDeviceSize size() const { return size_; }
    VkDeviceSize allocationSize() const { return allocationSize_; }
    uint32_t memoryTypeBits() const { return memoryTypeBits_; }
    uint32_t memoryTypeIndex() const { return memoryTypeIndex_; }
    VkExternalMemoryHandleTypeFlags exportTypes() const { return exportTypes_; }
    void* mapped() const { return mapped_; }
    explicit operator bool() const { return buffer_ != VK_NULL_HANDLE; }

private:
    void release();
    VkDevice device_ = VK_NULL_HANDLE;
    MemoryCounters* counters_ = nullptr;  // set once the memory is allocated
    MemoryKind kind_ = MemoryKind::Other;
    VkBuffer buffer_ = VK_NULL_HANDLE;
    VkDeviceMemory memory_ = VK_NULL_HANDLE;
    VkDeviceSize size_ = 0;
    VkDeviceSize allocationSize_ = 0;
    uint32_t memoryTypeBits_ = 0;
    uint32_t memoryTypeIndex_ = 0;
    VkExternalMemoryHandleTypeFlags exportTypes_ = 0;
    void* mapped_ = nullptr;
};

}  // namespace vkinfer::vk
