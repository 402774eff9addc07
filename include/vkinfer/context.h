// The Vulkan device an engine runs on, and what it can do.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vkinfer/status.h"

namespace vkinfer {

namespace detail {
struct ContextImpl;
}

// What a physical device offers that matters to inference and integration.
struct DeviceInfo {
    uint32_t index = 0;
    std::string name;
    std::string type;          // "discrete GPU", "integrated GPU", "CPU", ...
    std::string driverName;    // VkPhysicalDeviceDriverProperties::driverName
    std::string driverInfo;
    uint32_t apiVersion = 0;   // VK_MAKE_API_VERSION encoding
    std::string apiVersionString;
    uint32_t vendorId = 0;
    uint32_t deviceId = 0;
    std::array<uint8_t, 16> deviceUuid{};

    bool fp16Arithmetic = false;        // shaderFloat16
    bool storage16Bit = false;          // storageBuffer16BitAccess
    bool int8Arithmetic = false;        // shaderInt8
    bool int64Arithmetic = false;       // shaderInt64
    bool externalMemoryFd = false;      // VK_KHR_external_memory_fd, opaque fd export of buffers
    bool dmaBuf = false;                // VK_EXT_external_memory_dma_buf usable for buffers
    bool externalSemaphoreFd = false;   // binary semaphores exportable as opaque fd
    bool timelineSemaphore = false;
    bool timelineSemaphoreExport = false;  // timeline semaphores exportable as opaque fd
    bool cooperativeMatrixKhr = false;
    bool cooperativeMatrixNv = false;
    // VK_KHR_cooperative_matrix or VK_NV_cooperative_matrix offers 16x16x16 float16 x float16
    // -> float32 at subgroup scope (what vkinfer's tensor-core kernels use); ...Khr / ...Nv: which.
    bool cooperativeMatrix16x16x16 = false;
    bool cooperativeMatrix16x16x16Khr = false;
    bool cooperativeMatrix16x16x16Nv = false;
    bool timestamps = false;            // compute queue supports timestamp queries
    double timestampPeriodNs = 0;
    uint32_t subgroupSize = 0;
    uint32_t sharedMemoryBytes = 0;     // maxComputeSharedMemorySize
    uint64_t maxStorageBufferRange = 0;
    uint64_t minStorageBufferOffsetAlignment = 0;
    uint64_t deviceLocalBytes = 0;
};

// Lists the Vulkan physical devices in loader order.
Result<std::vector<DeviceInfo>> listDevices();

struct ContextOptions {
    // Physical device index as listDevices() reports it; -1 picks the first discrete GPU,
    // then the first integrated GPU, then the first device.
    int deviceIndex = -1;
    // Or: the device with this UUID (VkPhysicalDeviceIDProperties::deviceUUID, as another
    // API reports it, e.g. CUDA's cudaDeviceProp::uuid or the host's Vulkan device), to share
    // memory and semaphores with it. Takes precedence over deviceIndex.
    std::optional<std::array<uint8_t, 16>> deviceUuid;
    // Enable the Khronos validation layer with synchronization validation. Any message it
    // reports makes the next call on this context (or a session on it) fail with
    // ValidationError showing the message. Also enabled by VKINFER_VALIDATE=1.
    bool validate = false;
};

// Device memory vkinfer's buffers hold on a context, in bytes (allocation sizes).
struct DeviceMemoryBytes {
    uint64_t weights = 0;  // packed constants, one buffer per prepared plan
    uint64_t arena = 0;    // intermediate tensors, one arena per plan and frame slot
    uint64_t io = 0;       // model input and output buffers (imported memory included)
    uint64_t staging = 0;  // host-visible copies of inputs, outputs and weights
    uint64_t other = 0;
    uint64_t total() const { return weights + arena + io + staging + other; }
};
struct MemoryStats {
    DeviceMemoryBytes current;  // held now
    DeviceMemoryBytes peak;     // the most each kind held at once since creation or resetPeakMemory()
    uint64_t peakTotal = 0;     // the most held at once in all (not the sum of the peaks)
};

// Owns a VkInstance, VkDevice and compute queue (the "separate context" pattern), plus a
// pipeline cache shared by all sessions on it. Cheap to copy (shared ownership).
class Context {
public:
    static Result<Context> create(const ContextOptions& options = {});

    const DeviceInfo& device() const;
    bool validationEnabled() const;
    // Takes the validation messages reported since the last call (empty without validation).
    std::vector<std::string> takeValidationMessages();
    // Device memory of every session on this context (sessions free theirs when destroyed).
    MemoryStats memoryStats() const;
    void resetPeakMemory();
    // After VK_ERROR_DEVICE_LOST from any call, every later call on this context and its
    // sessions fails with ErrorCode::DeviceLost naming the call that lost it; destroying them
    // stays safe. Recreate the context to go on.
    bool deviceLost() const;

    std::shared_ptr<detail::ContextImpl> impl() const { return impl_; }
    explicit Context(std::shared_ptr<detail::ContextImpl> impl) : impl_(std::move(impl)) {}

private:
    std::shared_ptr<detail::ContextImpl> impl_;
};

// True when VKINFER_VALIDATE is set to a value other than "0" or empty.
bool validationRequestedByEnvironment();

}  // namespace vkinfer
