// Helpers for the shared-resource tests (tests/interop/shared_memory_test.cpp) and their peer
// process (tests/interop/peer/fd_peer.cpp): a second Vulkan device standing for the host
// application, on the same physical device as the engine (matched by UUID), that imports and
// exports buffer memory as opaque fds; fd counting; and the wire format between the test and
// its peer. No GoogleTest here: the peer uses it too. Failures throw std::runtime_error.
#pragma once

#include <vulkan/vulkan.h>
#include <vkinfer/interop.h>

#include "cross_process/fd_socket.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace vkinfer::testing::shared {

// Number of open file descriptors of this process (entries of /proc/self/fd).
using fdsocket::openFdCount;
// True when `fd` is an open descriptor of this process.
bool fdIsOpen(int fd);

struct HostOptions {
    std::array<uint8_t, 16> deviceUuid{};  // the physical device to use (throws if absent)
    // Khronos validation layer + synchronization validation + a messenger collecting every
    // warning and error (takeMessages).
    bool validate = false;
    bool externalMemoryFd = true;   // enable VK_KHR_external_memory_fd
    bool timelineSemaphore = true;  // enable VkPhysicalDeviceVulkan12Features::timelineSemaphore
    bool externalSemaphoreFd = false;  // enable VK_KHR_external_semaphore_fd where the device offers it
};

// A buffer of the host device with its own (dedicated) memory.
struct HostBuffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;            // of the buffer
    VkDeviceSize allocationSize = 0;  // of its memory
    uint32_t memoryTypeIndex = 0;
    void* mapped = nullptr;           // host-visible buffers only
};

// How importTensorMemory sees `buffer`'s whole memory behind the opaque fd `fd` (a
// dedicated allocation, at offset 0, of the buffer's memory type).
inline ImportedMemory opaqueImportOf(int fd, const HostBuffer& buffer) {
    return {fd, MemoryHandleType::OpaqueFd, buffer.allocationSize, 0, true, static_cast<int32_t>(buffer.memoryTypeIndex)};
}

// Usage of every buffer shared with the engine: the same as the engine's input and output
// buffers, so that a dedicated import names an "identical" buffer (Vulkan's rule for opaque
// fds created by Vulkan).
constexpr VkBufferUsageFlags kSharedUsage =
    VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

// The "host": its own VkInstance and VkDevice with one queue of a compute-capable family.
class HostGpu {
public:
    explicit HostGpu(const HostOptions& options);
    ~HostGpu();
    HostGpu(const HostGpu&) = delete;
    HostGpu& operator=(const HostGpu&) = delete;

    VkInstance instance() const { return instance_; }
    VkPhysicalDevice physical() const { return physical_; }
    VkDevice device() const { return device_; }
    uint32_t queueFamily() const { return family_; }
    VkQueue queue() const { return queue_; }
    const HostOptions& options() const { return options_; }
    // What this device enabled, for vkinfer::wrapHostDevice.
    HostDevice hostDevice() const;

    // Imports `fd` as the memory of a new buffer of `bytes` bytes at `offset` (a dedicated
    // allocation when `dedicated`, as the exporter made it). On success the fd belongs to
    // Vulkan (freeing the buffer's memory closes it); on failure it is still the caller's
    // and the VkResult (or VK_ERROR_UNKNOWN for a refused size/alignment) is returned.
    VkResult importBuffer(int fd, VkDeviceSize bytes, VkDeviceSize allocationSize, VkDeviceSize offset,
                          uint32_t memoryTypeIndex, bool dedicated, HostBuffer* out);
    // A device-local buffer of `bytes` bytes whose memory can be exported as an opaque fd.
    HostBuffer createExportable(VkDeviceSize bytes);
    // An opaque fd of the buffer's memory, owned by the caller.
    int exportFd(const HostBuffer& buffer);
    // Copies `bytes` bytes at `offset` of the buffer out through a host-visible staging
    // buffer (submitted and waited on this device's queue).
    std::vector<std::byte> read(const HostBuffer& buffer, VkDeviceSize offset, VkDeviceSize bytes);
    // Copies `bytes` bytes into the start of the buffer through a staging buffer (waited).
    void write(const HostBuffer& buffer, const void* data, VkDeviceSize bytes);
    void destroy(HostBuffer& buffer);

    // Semaphores exportable as opaque fds (needs externalSemaphoreFd, and the device to offer
    // VK_KHR_external_semaphore_fd: check hasExternalSemaphoreFd()).
    bool hasExternalSemaphoreFd() const { return getSemaphoreFd_ != nullptr; }
    VkSemaphore createExportableSemaphore(bool timeline);
    int exportSemaphoreFd(VkSemaphore semaphore);  // owned by the caller
    void signalFromHost(VkSemaphore timeline, uint64_t value);  // vkSignalSemaphore
    void signalOnQueue(VkSemaphore binary);                     // an empty submission signaling it
    void destroy(VkSemaphore semaphore);
    // A semaphore imported from an opaque fd (which then belongs to Vulkan), and a wait on it
    // (timeline: for `value`) that the next submission of this device (read, write) makes.
    VkSemaphore importSemaphoreFd(int fd, bool timeline);
    void waitBeforeNextSubmit(VkSemaphore semaphore, uint64_t value = 0);

    // Validation messages reported since the last call (always empty without validation).
    std::vector<std::string> takeMessages();
    // Waits for the device, destroys it (further calls are invalid) and returns the messages
    // reported until then, destruction included. The destructor does the same silently.
    std::vector<std::string> shutdown();

private:
    HostBuffer createBuffer(VkDeviceSize bytes, VkBufferUsageFlags usage, bool hostVisible, bool exportable);
    void submitAndWait(VkCommandBuffer cmd);
    VkCommandBuffer beginOneTime();

    struct Log {
        std::mutex mutex;
        std::vector<std::string> messages;
    };
    HostOptions options_;
    std::unique_ptr<Log> log_ = std::make_unique<Log>();
    VkInstance instance_ = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    VkPhysicalDevice physical_ = VK_NULL_HANDLE;
    VkDevice device_ = VK_NULL_HANDLE;
    uint32_t family_ = 0;
    VkQueue queue_ = VK_NULL_HANDLE;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    std::vector<std::string> extensions_;
    PFN_vkGetMemoryFdKHR getMemoryFd_ = nullptr;
    PFN_vkGetSemaphoreFdKHR getSemaphoreFd_ = nullptr;
    PFN_vkImportSemaphoreFdKHR importSemaphoreFd_ = nullptr;
    std::vector<std::pair<VkSemaphore, uint64_t>> nextWaits_;

    static VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                   VkDebugUtilsMessageTypeFlagsEXT types,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);
};

// The request the test sends its peer process along with the fd (SCM_RIGHTS), and the reply.
struct PeerRequest {
    uint32_t magic = 0x766b6970;  // "vkip"
    uint8_t deviceUuid[16] = {};
    uint64_t allocationSize = 0;
    uint64_t offset = 0;
    uint64_t bytes = 0;
    uint32_t memoryTypeIndex = 0;
    uint32_t dedicated = 1;
};
struct PeerReplyHeader {
    uint32_t ok = 0;           // 1: `dataBytes` of data follow; 0: `messageBytes` of explanation follow
    uint32_t messageBytes = 0;
    uint64_t dataBytes = 0;
    uint64_t checksum = 0;     // fnv1a64 of the data
    uint32_t validated = 0;    // 1: the peer ran the validation layer (VKINFER_VALIDATE=1)
    uint32_t reserved = 0;
};

uint64_t fnv1a64(const void* data, size_t bytes);

// Messages and fds over a Unix stream socket (SCM_RIGHTS): the cross-process example's
// (examples/cross_process/fd_socket.h), shared with it.
using fdsocket::receiveAll;
using fdsocket::receiveWithFd;
using fdsocket::sendAll;
using fdsocket::sendWithFd;

}  // namespace vkinfer::testing::shared
