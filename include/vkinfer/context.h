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

// ---------------------------------------------------------------------------------------
// Queues. Which queue inference runs on is decided from the device's queue families alone,
// by the pure functions below, so that a host (or a test) can ask what vkinfer would choose
// for a device it only describes.

// A queue family as VkQueueFamilyProperties describes it.
struct QueueFamilyInfo {
    bool graphics = false;
    bool compute = false;
    bool transfer = false;
    uint32_t queueCount = 0;
    uint32_t timestampValidBits = 0;  // 0: no timestamps (RunStats::gpuMs stays -1)
};

// Where a session's work runs (SessionOptions::queue).
enum class SessionQueue {
    // The context's queue: for Context::create, a compute family without graphics where the
    // device has one with timestamps, else the first compute family with timestamps, else
    // the first compute family; for wrapHostDevice, HostDevice::queueFamilyIndex.
    Context,
    // Asynchronous compute: a queue family with compute and without graphics, so that the GPU
    // runs inference beside a renderer's graphics queue. For Context::create, such a family
    // of the device; for wrapHostDevice, HostDevice::computeQueueFamilyIndex (which the host
    // picks with chooseAsyncComputeQueue). Where there is none, the session falls back to the
    // context's queue and QueueInfo says so.
    AsyncCompute,
};

// The queue a session runs on (Session::queue(), Context::queue()).
struct QueueInfo {
    uint32_t family = 0;
    bool computeOnly = false;    // the family has compute and no graphics
    bool hostQueue = false;      // the host's HostDevice::queue family (recordInference shares it)
    bool fellBack = false;       // AsyncCompute was asked for and is not available
    std::string description;     // e.g. "queue family 2 (compute, transfer; no graphics) of 'NVIDIA H200'"
};

// How a renderer that submits its graphics work to queue 0 of `graphicsFamily` should give
// vkinfer an asynchronous-compute queue (create it with the device, then name it in
// HostDevice::computeQueueFamilyIndex / computeQueue), best first:
enum class AsyncQueueKind {
    ComputeFamily,  // a family with compute and no graphics (one with timestamps preferred)
    SecondQueue,    // none: another queue of a family with compute (the graphics family's queue
                    // 1, or another graphics family): separate submissions, overlapping as far
                    // as the driver runs such queues side by side
    SameQueue,      // neither (lavapipe: one family with one queue): the renderer's own queue;
                    // semaphores still order the work, but nothing overlaps
};
struct AsyncQueueChoice {
    AsyncQueueKind kind = AsyncQueueKind::SameQueue;
    uint32_t family = 0;
    uint32_t queueIndex = 0;  // create at least queueIndex + 1 queues in `family`
    std::string description;  // what was chosen and, for a fallback, why
};
// Fails with InvalidArgument for a graphicsFamily that is not among `families`, and with
// Unsupported when no family has compute.
Result<AsyncQueueChoice> chooseAsyncComputeQueue(const std::vector<QueueFamilyInfo>& families,
                                                 uint32_t graphicsFamily);

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
// pipeline cache shared by all sessions on it. Cheap to copy (shared ownership). Its device
// has a second queue where SessionQueue::AsyncCompute picks another family than the
// context's queue.
class Context {
public:
    static Result<Context> create(const ContextOptions& options = {});

    const DeviceInfo& device() const;
    // The queue a session created with SessionOptions::queue = `which` runs on on this context.
    const QueueInfo& queue(SessionQueue which = SessionQueue::Context) const;
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
