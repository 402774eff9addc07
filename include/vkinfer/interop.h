// Integration with the host application's own Vulkan work. The only public header that
// includes <vulkan/vulkan.h>. See docs/INTEGRATION.md for the three patterns:
//
//   separate context   Context::create + Session::run / submit + wait (session.h)
//   interleaved        wrapHostDevice + recordInference into the host's command buffer
//   shared resources   export/import of tensor memory, images, semaphores and fences as fds
//                      (images on a context of vkinfer's own run through submitInference)
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vkinfer/context.h"
#include "vkinfer/session.h"
#include "vkinfer/status.h"

namespace vkinfer {

// ---------------------------------------------------------------------------------------
// Interleaved execution: running on the host's VkDevice.

// What vkinfer uses on a device, for a host to enable before it creates its VkDevice
// (compare IREE's iree_hal_vulkan_query_extensibility_set). Typical use:
//
//   auto req = vkinfer::queryDeviceRequirements(physicalDevice,     // Result<DeviceRequirements>
//                                               {.validationLayerEnabled = validating});
//   // OR your own features into req->features11() etc., or append your structures to the
//   // chain's end; then:
//   createInfo.pNext = req->featureChain();           // leave pEnabledFeatures null
//   createInfo.ppEnabledExtensionNames = ...;         // yours + req->extensionNames()
//   vkCreateDevice(...);
//   host.enabledFeatureChain = req->featureChain();   // tell wrapHostDevice what you enabled
//   host.enabledExtensions = req->extensions();       // (+ yours)
//
// docs/INTEGRATION.md has the table of every entry and what it enables.
struct DeviceRequirement {
    std::string name;      // "shaderInt64", "VK_KHR_external_memory_fd", ...
    std::string where;     // "VkPhysicalDeviceFeatures", "VkPhysicalDeviceVulkan12Features", "device extension"
    bool required = false; // vkinfer cannot run without it (optional ones disable what `enables` says)
    bool supported = false;  // this physical device offers it
    bool enable = false;     // set in featureChain() / listed in extensions()
    std::string enables;     // what vkinfer does with it
};

class DeviceRequirements {
public:
    DeviceRequirements();
    ~DeviceRequirements();
    DeviceRequirements(DeviceRequirements&&) noexcept;
    DeviceRequirements& operator=(DeviceRequirements&&) noexcept;
    DeviceRequirements(const DeviceRequirements&) = delete;
    DeviceRequirements& operator=(const DeviceRequirements&) = delete;

    // Every feature and extension vkinfer uses, with this device's support.
    const std::vector<DeviceRequirement>& items() const;
    // The extensions to enable (those vkinfer uses that the device offers). The pointers of
    // extensionNames() stay valid while this object lives.
    std::vector<std::string> extensions() const;
    const std::vector<const char*>& extensionNames() const;
    // VkPhysicalDeviceFeatures2 -> VkPhysicalDeviceVulkan11Features -> VkPhysicalDeviceVulkan12Features
    // [-> VkPhysicalDeviceCooperativeMatrixFeaturesNV], with every feature vkinfer uses that
    // the device offers set to VK_TRUE: chain it into VkDeviceCreateInfo::pNext. The
    // structures live (at fixed addresses) as long as this object; you may set more fields.
    VkPhysicalDeviceFeatures2* featureChain();
    VkPhysicalDeviceVulkan11Features& features11();
    VkPhysicalDeviceVulkan12Features& features12();

    struct Impl;
    explicit DeviceRequirements(std::unique_ptr<Impl> impl);

private:
    std::unique_ptr<Impl> impl_;
};

struct DeviceRequirementsOptions {
    // Set when your instance enables VK_LAYER_KHRONOS_validation. Features the installed layer
    // is too old to know are then left out of featureChain() and extensions(), as vkinfer's own
    // contexts do under validation, so that vkCreateDevice is not reported for an unknown
    // structure: today VK_KHR_cooperative_matrix with a layer older than 1.3.255 (Debian 12
    // ships 1.3.239). vkinfer then uses VK_NV_cooperative_matrix where the device offers it.
    // Without validation leave it false: nothing is left out.
    bool validationLayerEnabled = false;
};

// Fails with Unsupported when the physical device cannot run vkinfer at all (Vulkan below
// 1.2, no compute queue family), naming why.
Result<DeviceRequirements> queryDeviceRequirements(VkPhysicalDevice physicalDevice,
                                                   const DeviceRequirementsOptions& options = {});

// The physical device's queue families (vkGetPhysicalDeviceQueueFamilyProperties), for
// chooseAsyncComputeQueue (context.h): which queue to create for asynchronous compute.
std::vector<QueueFamilyInfo> describeQueueFamilies(VkPhysicalDevice physicalDevice);

// The host's device and what it enabled. vkinfer never destroys these objects; they must
// outlive every Context and Session made from them.
struct HostDevice {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physicalDevice = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    // Family of the command buffers vkinfer records into; it must support compute.
    uint32_t queueFamilyIndex = 0;
    // Optional: a queue of that family, for the separate-context calls (Session::run,
    // submit) on this device. recordInference never submits. When given, calls that submit
    // lock nothing on the host's side: the host must not use the queue concurrently.
    VkQueue queue = VK_NULL_HANDLE;
    // Optional, for asynchronous compute (SessionOptions::queue = SessionQueue::AsyncCompute):
    // the family of a queue the host created beside its graphics queue for inference
    // (chooseAsyncComputeQueue says which: a compute family without graphics where the device
    // has one), and optionally that queue, for vkinfer's own submissions on it (as `queue`).
    // Sessions on it record for this family: their recordInference command buffers come from
    // a pool of it. VK_QUEUE_FAMILY_IGNORED: none (such sessions fall back to
    // queueFamilyIndex; Session::queue() says so).
    uint32_t computeQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    VkQueue computeQueue = VK_NULL_HANDLE;
    // Required: VkApplicationInfo::apiVersion the host created the instance with (at least
    // VK_API_VERSION_1_2). 0, the default, is refused: a default could pass a 1.1 instance
    // whose pipelines would then fail validation.
    uint32_t apiVersion = 0;
    // Device extensions the host enabled (VK_KHR_external_memory_fd, ...).
    std::vector<std::string> enabledExtensions;
    // Features the host enabled at vkCreateDevice: fill these, or point enabledFeatureChain at
    // the pNext chain given to vkCreateDevice (DeviceRequirements::featureChain() for one),
    // or both; vkinfer takes the union. In the chain it reads VkPhysicalDeviceFeatures2, the
    // Vulkan 1.1/1.2 feature structures, the 16-bit, 8-bit, float16/int8, memory-model,
    // timeline-semaphore and NV cooperative-matrix structures, and skips others. Every kernel
    // a model needs is checked against these at prepare: one that needs a feature the host
    // did not enable fails with Unsupported, naming the feature and the node.
    VkPhysicalDeviceFeatures features{};
    VkPhysicalDeviceVulkan11Features features11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    const void* enabledFeatureChain = nullptr;
};

// A context on the host's device. Fails with Unsupported naming exactly what is missing
// (API version, queue family without compute), InvalidArgument for an unset apiVersion.
// Optional capabilities the host did not enable (timeline semaphores, external memory,
// 16-bit storage, ...) are reported when a call needs them (Session::create with
// shareableIO, prepare for a kernel's features), naming the feature or extension.
// Validation is the host's: vkinfer adds no messenger to its instance.
Result<Context> wrapHostDevice(const HostDevice& host);

// How an image or buffer was last used before vkinfer's commands ("before"), or will be used
// after them ("after"). vkinfer records the barriers and layout transitions between these
// and its own accesses.
//
// queueFamily: the queue family of that use when it is not the session's (asynchronous
// compute: the renderer's graphics family; Session::queue()). Work on another queue is
// ordered by the host's semaphores, so vkinfer's own barriers then start from (end at) the
// top (bottom) of its pipe, and `stages`/`access` describe the use on that other queue. For
// a resource created with VK_SHARING_MODE_EXCLUSIVE, vkinfer records its half of a queue
// family ownership transfer: the acquire from this family ("before"; none for an output
// image whose "before" layout is UNDEFINED, whose contents are discarded) or the release to
// it ("after"); the host records the other half (recordReleaseToSession,
// recordAcquireFromSession). For VK_SHARING_MODE_CONCURRENT resources leave it
// VK_QUEUE_FAMILY_IGNORED and give stages of the session's queue (TOP_OF_PIPE / BOTTOM_OF_PIPE
// and no access where the other use is on another queue). IGNORED or the session's own family:
// no transfer, and the stages are of the session's queue.
struct ImageState {
    // UNDEFINED as "before": contents may be discarded. As "after": the image is left in the
    // layout vkinfer used (SHADER_READ_ONLY_OPTIMAL for sampled inputs, GENERAL otherwise).
    VkImageLayout layout = VK_IMAGE_LAYOUT_UNDEFINED;
    VkPipelineStageFlags stages = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
    VkAccessFlags access = 0;
    uint32_t queueFamily = VK_QUEUE_FAMILY_IGNORED;
};
// For buffers an ownership transfer covers the range from the buffer's offset to its end.
struct BufferState {
    VkPipelineStageFlags stages = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
    VkAccessFlags access = 0;
    uint32_t queueFamily = VK_QUEUE_FAMILY_IGNORED;
};

// An image the host owns (mip 0, array layer 0, color aspect), in one of sharedImageFormats():
// R8G8B8A8_UNORM / _SRGB, B8G8R8A8_UNORM / _SRGB, R16G16B16A16_SFLOAT, R16_SFLOAT, R32_SFLOAT.
// As inputs, all are read through a sampler (sRGB ones re-encoded to the stored values after
// the sampler's decode, single-channel ones as (r, 0, 0, 1)); as storage-image inputs, RGBA8
// UNORM and RGBA16F. As outputs, any of them the device can store to: RGBA8 UNORM and
// RGBA16F always, the others with shaderStorageImageWriteWithoutFormat (sRGB formats rarely
// support storage: write a UNORM image and let the renderer's sampler view it as sRGB).
struct HostImage {
    VkImage image = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;  // a 2-D color view of the image
    VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
    uint32_t width = 0;
    uint32_t height = 0;
};

enum class ImageAccess {
    Sampled,  // read through a combined image sampler (any of the formats; needs SAMPLED usage)
    Storage,  // read/written as a storage image (needs STORAGE usage)
};

// Pre-processing: image -> model input [N=1, C, H, W] with C <= 4 (RGBA order; BGRA8 images
// are read as RGBA like any sampled view): tensor[c] = (pixel[c] - mean[c]) * scale[c].
// The input's H and W are the image's; for a dynamic model they define the shape.
struct ImageInput {
    HostImage image;
    ImageAccess access = ImageAccess::Sampled;
    ImageState before;  // e.g. {COLOR_ATTACHMENT_OPTIMAL, COLOR_ATTACHMENT_OUTPUT, COLOR_ATTACHMENT_WRITE}
    ImageState after;   // restored afterwards, e.g. back to COLOR_ATTACHMENT_OPTIMAL for the next frame
    std::array<float, 4> mean{0, 0, 0, 0};
    std::array<float, 4> scale{1, 1, 1, 1};
};

// Post-processing: model output [1, C, H, W] (C <= 4) -> storage image:
// pixel[c] = tensor[c] * scale[c] + bias[c], clamped to [0, 1] for UNORM formats; missing
// channels become 0 and alpha 1 (a 1-channel output is replicated to RGB).
struct ImageOutput {
    HostImage image;
    ImageState before;  // e.g. {UNDEFINED} (overwritten entirely) or the previous frame's read
    ImageState after;   // e.g. {SHADER_READ_ONLY_OPTIMAL, FRAGMENT_SHADER, SHADER_READ}
    std::array<float, 4> scale{1, 1, 1, 1};
    std::array<float, 4> bias{0, 0, 0, 0};
};

// A host buffer copied into a model input, or receiving a model output (tightly packed,
// row-major, the tensor's type).
struct BufferInput {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
    BufferState before;
    BufferState after;
};
struct BufferOutput {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0;
    BufferState before;
    BufferState after;
};

// What one recordInference call connects. Inputs not listed read the engine's own input
// buffer of this frame slot (filled by Session::stageInput, or through imported memory);
// outputs not listed stay in the engine's output buffer and are copied to its readback
// staging (Session::readOutputs after the host's fence).
struct RecordIO {
    std::vector<std::pair<std::string, ImageInput>> imageInputs;
    std::vector<std::pair<std::string, BufferInput>> bufferInputs;
    std::vector<std::pair<std::string, ImageOutput>> imageOutputs;
    std::vector<std::pair<std::string, BufferOutput>> bufferOutputs;
    // Shapes of inputs that no image defines (dynamic models); others take the declared shape.
    InputShapes shapes;
    // Frame slot, below SessionOptions::framesInFlight. The host guarantees that the work it
    // recorded for this slot before has finished executing (its usual per-frame fence).
    uint32_t frame = 0;
    // Optional profiling: four timestamps written at firstTimestamp.. of this pool (which the
    // host created with VK_QUERY_TYPE_TIMESTAMP and has reset): before pre-processing, before
    // inference, after inference, after post-processing.
    VkQueryPool timestampPool = VK_NULL_HANDLE;
    uint32_t firstTimestamp = 0;
};

// Records pre-processing, inference and post-processing into the host's command buffer,
// which must be in the recording state, outside a render pass, for a queue of the session's
// family (Session::queue().family: queueFamilyIndex, or computeQueueFamilyIndex for an
// asynchronous-compute session). The engine never submits. Afterwards the compute pipeline, the descriptor sets
// bound at VK_PIPELINE_BIND_POINT_COMPUTE and compute push constants are the engine's: the
// host must rebind its own before its next dispatch. Graphics state is untouched.
Status recordInference(Session& session, VkCommandBuffer commandBuffer, const RecordIO& io);

// Asynchronous compute with VK_SHARING_MODE_EXCLUSIVE images and buffers (ImageState::
// queueFamily): the host's halves of the queue family ownership transfers recordInference
// records for the same `io`, with the same layouts (a transfer also makes the layout change
// vkinfer needs, so both halves name it). recordReleaseToSession: the releases of what "before"
// states name on another family, into a command buffer of that family that runs after the
// resources' last use there and before the submission signaling the semaphore inference
// waits on. recordAcquireFromSession: the acquires of what "after" states name, into a
// command buffer of that family submitted after waiting on inference, before their next use.
// Records nothing where no state names another family. Fails only for an empty session.
Status recordReleaseToSession(const Session& session, VkCommandBuffer commandBuffer, const RecordIO& io);
Status recordAcquireFromSession(const Session& session, VkCommandBuffer commandBuffer, const RecordIO& io);

// The same work as recordInference (images and buffers in and out, with every conversion,
// barrier and ownership transfer `io` names), submitted by vkinfer on the session's own queue:
// for a session on a context of its own (Context::create), whose device the host cannot record
// into, e.g. with images shared by fd (importSharedImage / createSharedImage). Like
// Session::submit it waits on what importWaitSemaphore / importWaitFence gave, signals the
// session's timeline (exportTimelineSemaphore), and returns at once; the Ticket works with
// Session::wait / isDone, exportFence and exportSignalSemaphore. Session::wait returns the
// outputs `io` does not route to an image or buffer (with RunStats: gpuMs is the inference,
// transferGpuMs the image conversions). The frame slot is io.frame, not Session::submit's
// rotation: a slot still running a submission (of either call) is waited for first, and its
// earlier ticket ends. Inputs that no image or buffer feeds come from Session::stageInput.
// io.timestampPool must be null. On a wrapped device the host must have given a queue
// (HostDevice::queue); recordInference is the call for a host that records itself.
Result<Ticket> submitInference(Session& session, const RecordIO& io);

// ---------------------------------------------------------------------------------------
// Shared resources: external memory and semaphores as file descriptors.

enum class MemoryHandleType {
    OpaqueFd,  // VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT (Vulkan, CUDA)
    DmaBuf,    // VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT (where the device offers it)
};

// The formats images are shared and converted in (HostImage).
const std::vector<VkFormat>& sharedImageFormats();

// An image as both sides create it (Vulkan requires an importer to create the image exactly
// as the exporter did: format, extent, tiling, usage, flags).
struct SharedImageDesc {
    VkFormat format = VK_FORMAT_R8G8B8A8_UNORM;
    uint32_t width = 0;
    uint32_t height = 0;
    // LINEAR: shared and read directly (the layout is the same to every API); OPTIMAL: the
    // driver's own layout, shareable only between VkDevices of one driver and physical
    // device (opaque fd) - else copy into a linear one (recordCopyToLinear).
    VkImageTiling tiling = VK_IMAGE_TILING_OPTIMAL;
    // Include SAMPLED for an input, STORAGE for an output, and what the other side does with
    // it (COLOR_ATTACHMENT to render into it, TRANSFER_* to copy).
    VkImageUsageFlags usage = VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    MemoryHandleType handleType = MemoryHandleType::OpaqueFd;
};

// Whether a device can share images so described
// (vkGetPhysicalDeviceImageFormatProperties2 with VkPhysicalDeviceExternalImageFormatInfo).
struct ImageSharingSupport {
    SharedImageDesc desc;      // width and height 0 in the capability table
    bool exportable = false;
    bool importable = false;
    bool dedicatedOnly = false;  // memory must be a dedicated allocation (vkinfer always makes one)
    uint32_t maxWidth = 0;
    uint32_t maxHeight = 0;
    // Empty when exportable or importable; otherwise why not, naming the format, tiling, usage
    // and handle type.
    std::string refusal;
};
// How one side of a handoff waits for the other (InteropCapabilities::signalPath / waitPath).
enum class SyncPath {
    TimelineSemaphore,  // a timeline semaphore shared as an opaque fd: no CPU involvement
    BinarySemaphore,    // binary semaphores shared as opaque fds, one per handoff
    HostWait,           // neither can be shared: a CPU wait (fence fd where offered)
};
const char* syncPathName(SyncPath path);  // "timeline semaphore", "binary semaphore", "host wait"

enum class FenceHandleType {
    None,      // no fence can be shared (InteropCapabilities::fenceExport / fenceImport)
    SyncFd,    // VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT: a sync_file; copied, one use
    OpaqueFd,  // VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT: shares the fence's payload
};

// What a device can share, queried at run time (vkGetPhysicalDeviceExternalBufferProperties,
// vkGetPhysicalDeviceExternalSemaphoreProperties) and enabled on the context's device.
struct InteropCapabilities {
    bool exportMemoryOpaqueFd = false;
    bool importMemoryOpaqueFd = false;
    bool exportMemoryDmaBuf = false;
    bool importMemoryDmaBuf = false;
    bool timelineSemaphore = false;
    bool exportTimelineSemaphoreFd = false;  // false on lavapipe: wait on the host instead
    bool exportBinarySemaphoreFd = false;
    bool importTimelineSemaphoreFd = false;
    bool importBinarySemaphoreFd = false;
    // Fences as fds (VK_KHR_external_fence_fd; vkGetPhysicalDeviceExternalFenceProperties):
    // CPU waits across APIs and processes. None on lavapipe.
    bool exportFenceSyncFd = false;
    bool exportFenceOpaqueFd = false;
    bool importFenceSyncFd = false;
    bool importFenceOpaqueFd = false;
    std::array<uint8_t, 16> deviceUuid{};   // match contexts across APIs by this

    // Image sharing for every shared format, both tilings, each handle type enabled, and two
    // usages: an input's (SAMPLED | TRANSFER_SRC | TRANSFER_DST) and an output's (STORAGE |
    // TRANSFER_SRC | TRANSFER_DST); queryImageSharing answers for any other description.
    std::vector<ImageSharingSupport> images;

    // The paths chooseSyncPaths picks from the flags above (queryInteropCapabilities fills them).
    SyncPath signalPath = SyncPath::HostWait;  // how another device's queue waits for inference
    SyncPath waitPath = SyncPath::HostWait;    // how inference waits for another device's work
    FenceHandleType fenceExport = FenceHandleType::None;  // exportFence's preferred handle type
    FenceHandleType fenceImport = FenceHandleType::None;  // importWaitFence's preferred handle type
};

// Picks the synchronization paths from a described capability set: a pure function of the
// flags (no device), so that the choice is the same everywhere and testable without a GPU.
//   signalPath: TimelineSemaphore where timelines exist and export as fds
//               (exportTimelineSemaphore); else BinarySemaphore where binary semaphores export
//               (exportSignalSemaphore, one per ticket); else HostWait (Session::wait or
//               isDone, then the host signals its own work; or an exported fence).
//   waitPath:   TimelineSemaphore where timelines import, else BinarySemaphore where binary
//               semaphores import (importWaitSemaphore); else HostWait (the host waits for its
//               own work on the CPU, or hands vkinfer a fence: importWaitFence, before submit).
//   fenceExport / fenceImport: SyncFd where offered (a Linux sync_file: poll()-able, and what
//               EGL, DRM and other drivers take), else OpaqueFd (Vulkan and CUDA on the same
//               physical device), else None.
InteropCapabilities chooseSyncPaths(InteropCapabilities described);

// Queried on the context's device and what it enabled, with chooseSyncPaths applied.
InteropCapabilities queryInteropCapabilities(const Context& context);

// File descriptors (who owns and closes each one):
//   exported (exportTensorMemory, exportTimelineSemaphore): a new fd owned by the caller.
//     Close it, or hand it to an importer (vkImportMemoryFdKHR, cudaImportExternalMemory, a
//     socket with SCM_RIGHTS: the receiver gets its own copy, the sender still closes its).
//     The memory stays alive as long as the session or any importer uses it.
//   imported (importTensorMemory, importWaitSemaphore): on success the fd belongs to the
//     Vulkan implementation; do not close or reuse it. The implementation closes it, at the
//     latest when the imported object is freed: memory when replaced by a later import of the
//     same tensor and frame or when the session is destroyed; a semaphore once the
//     submission that waited on it has finished. On failure it is still the caller's.

// The memory behind a model input or output of one frame slot (the session must have been
// created with SessionOptions::shareableIO and prepared for these shapes). Each frame slot
// has its own memory: export every slot the importer will read (or write).
//
// To import it into another VkDevice (another process, or this one) on the physical device
// with `deviceUuid`, as Vulkan requires for an opaque fd created by Vulkan: create a buffer
// with VkExternalMemoryBufferCreateInfo{OPAQUE_FD}, size `bytes` and usage STORAGE_BUFFER |
// TRANSFER_SRC | TRANSFER_DST (like the exporting buffer), allocate `allocationSize` bytes of
// memory type `memoryTypeIndex` with VkImportMemoryFdInfoKHR and, when `dedicated`,
// VkMemoryDedicatedAllocateInfo naming that buffer, and bind it at `offset`.
// Synchronization is the importer's: read outputs after the submission's ticket is done
// (Session::wait/isDone, or the exported timeline semaphore); write inputs only while no
// submission of that frame slot is in flight.
struct ExportedMemory {
    int fd = -1;                  // owned by the caller: close it, or give it to an importer
    MemoryHandleType type = MemoryHandleType::OpaqueFd;
    VkDeviceSize allocationSize = 0;  // of the whole VkDeviceMemory (importers need it)
    VkDeviceSize offset = 0;          // of the tensor within it
    VkDeviceSize bytes = 0;           // of the exporting buffer: the tensor, rounded up to 4 bytes
    uint32_t memoryTypeBits = 0;      // of the exporting buffer
    bool dedicated = true;            // exported as a dedicated allocation of one buffer
    std::array<uint8_t, 16> deviceUuid{};
    // The exporting allocation's memory type (an opaque-fd import by another VkDevice on the
    // same physical device must use the same index).
    uint32_t memoryTypeIndex = 0;
};
Result<ExportedMemory> exportTensorMemory(Session& session, const std::string& tensor, uint32_t frame = 0,
                                          MemoryHandleType type = MemoryHandleType::OpaqueFd);

// Memory exported by the host or another API, to become a model input or output of a frame
// slot: inference reads (writes) it in place. On success the fd belongs to the Vulkan
// implementation (do not close it); on failure it still belongs to the caller.
// The session must be prepared for its shapes first. The memory must hold the tensor's bytes
// (tightly packed, the tensor's type) at `offset`; a dedicated allocation must have been made
// for a buffer of exactly the tensor's size with usage STORAGE_BUFFER | TRANSFER_SRC |
// TRANSFER_DST. An imported INPUT is read in place: leave it out of Session::run/submit for
// that frame slot (giving it anyway is an error, since its data would be ignored); write the
// memory before submitting and not while that slot's submission is in flight. An imported
// OUTPUT is written in place and not copied back: run/wait leave it out (read it where
// the memory came from, once the ticket is done).
struct ImportedMemory {
    int fd = -1;
    MemoryHandleType type = MemoryHandleType::OpaqueFd;
    VkDeviceSize allocationSize = 0;
    VkDeviceSize offset = 0;  // where the tensor starts in that memory
    bool dedicated = true;    // whether it was exported as a dedicated allocation
    // The exporter's memory type index when another VkDevice on the same physical device made
    // the memory (Vulkan requires the same one); -1 lets vkinfer pick (CUDA, other APIs).
    int32_t memoryTypeIndex = -1;
};
Status importTensorMemory(Session& session, const std::string& tensor, uint32_t frame, const ImportedMemory& memory);

// The session's timeline semaphore as an opaque fd (owned by the caller). Each submission
// signals it with its Ticket::value. Unsupported where the device cannot export timeline
// semaphores (lavapipe): use Session::wait on the host instead.
Result<int> exportTimelineSemaphore(Session& session);

// ---------------------------------------------------------------------------------------
// Shared images: VkImage memory across devices, APIs and processes (opaque fds; dma-buf
// where the device offers it). docs/INTEGRATION.md chapter 3 says which tiling to pick.

// From a described query result, without a device: `formatResult` of
// vkGetPhysicalDeviceImageFormatProperties2 and the VkExternalMemoryFeatureFlags it reported,
// and `tilingFeatures`, the format's features for the description's tiling
// (VkFormatProperties::linearTilingFeatures or optimalTilingFeatures; all by default). Each
// usage needs its format feature (SAMPLED_IMAGE, STORAGE_IMAGE, COLOR_ATTACHMENT,
// TRANSFER_SRC, TRANSFER_DST), which a driver's format query above need not enforce: NVIDIA's
// accepts a linear R8G8B8A8 color attachment that its format features do not have, and the
// validation layer then refuses the image's views.
ImageSharingSupport describeImageSharing(const SharedImageDesc& desc, VkResult formatResult,
                                         VkExternalMemoryFeatureFlags features, VkExtent3D maxExtent,
                                         VkFormatFeatureFlags tilingFeatures = ~VkFormatFeatureFlags{0});
// On the context's device (Unsupported naming the extension where the handle type's is not
// enabled); width and height, when given, are checked against the maximum extent.
ImageSharingSupport queryImageSharing(const Context& context, const SharedImageDesc& desc);

// DRM format modifiers (VK_EXT_image_drm_format_modifier, dma-buf): neither the H200's driver
// nor lavapipe offers them; where a device does, a dma-buf image's layout is named by a
// modifier both sides must support.
struct DrmModifierDescription {
    uint64_t modifier = 0;  // DRM_FORMAT_MOD_LINEAR is 0
    uint32_t planeCount = 1;
    VkFormatFeatureFlags features = 0;  // drmFormatModifierTilingFeatures
};
// The modifier to share an image with: offered by both sides (`importer` empty: by the
// exporter alone), single-plane, with every feature in `needed`; a tiled one before
// DRM_FORMAT_MOD_LINEAR (faster for the renderer), in the exporter's order. None: share a
// linear image through opaque fds or a buffer instead.
std::optional<uint64_t> chooseDrmFormatModifier(const std::vector<DrmModifierDescription>& exporter,
                                                const std::vector<DrmModifierDescription>& importer,
                                                VkFormatFeatureFlags needed);
// The modifiers the context's device offers for `format` (vkGetPhysicalDeviceFormatProperties2
// with VkDrmFormatModifierPropertiesListEXT). Unsupported where the device does not offer
// VK_EXT_image_drm_format_modifier.
Result<std::vector<DrmModifierDescription>> queryDrmFormatModifiers(const Context& context, VkFormat format);

// An image on a context's device whose memory is shared: made by vkinfer (createSharedImage,
// then exportImageMemory) or imported (importSharedImage). It owns the VkImage, its view and
// memory, and destroys them with its last copy; keep it (and its context) alive while any
// recording that names it may execute, and on a wrapped device (wrapHostDevice) destroy it
// before your VkDevice. image() is what RecordIO takes.
class SharedImage {
public:
    SharedImage();
    ~SharedImage();
    SharedImage(SharedImage&&) noexcept;
    SharedImage& operator=(SharedImage&&) noexcept;
    SharedImage(const SharedImage&) = delete;
    SharedImage& operator=(const SharedImage&) = delete;

    HostImage image() const;
    const SharedImageDesc& desc() const;
    // Layout of the texels for LINEAR tiling (vkGetImageSubresourceLayout); zeros otherwise.
    VkSubresourceLayout linearLayout() const;

    struct Impl;
    explicit SharedImage(std::unique_ptr<Impl> impl);
    const Impl* impl() const { return impl_.get(); }

private:
    std::unique_ptr<Impl> impl_;
};

// An image with exportable memory (a dedicated allocation), in layout UNDEFINED.
// Unsupported, with queryImageSharing's refusal, where the device cannot export it so.
Result<SharedImage> createSharedImage(const Context& context, const SharedImageDesc& desc);
// Its memory as an fd owned by the caller (ExportedMemory: bytes = the image's memory size,
// offset 0, dedicated). Import it into another VkDevice by creating the image with `desc`
// and VkExternalMemoryImageCreateInfo, and allocating `allocationSize` bytes of memory type
// `memoryTypeIndex` with VkImportMemoryFdInfoKHR and VkMemoryDedicatedAllocateInfo naming it.
Result<ExportedMemory> exportImageMemory(const SharedImage& image);
// An image another device or API made, created here as `desc` says with the memory behind
// memory.fd bound at memory.offset. On success the fd belongs to the Vulkan implementation;
// on failure it is still the caller's. Layout: as the exporter left it (name it in
// ImageState::before, with queueFamily VK_QUEUE_FAMILY_EXTERNAL for an image another device
// or process used last: recordInference then acquires it; and release it back through
// ImageState::after's queueFamily).
Result<SharedImage> importSharedImage(const Context& context, const SharedImageDesc& desc, const ImportedMemory& memory);

// Optimal tiling for the renderer, linear for sharing: records into the renderer's command
// buffer (of queue family `queueFamily`, any device) a copy of `source` (an optimal image, as
// `sourceBefore` says, left as `sourceAfter` says) into `linear` (same format and size; its
// contents discarded, after its last use on this queue as `linearBefore`'s stages and access
// say; left as `linearAfter` says: GENERAL by default and, with `linearAfter.queueFamily` set,
// released to that family, VK_QUEUE_FAMILY_EXTERNAL for another device or process: the
// consumer then acquires it with "before" layout TRANSFER_DST_OPTIMAL, and linearAfter.layout
// is the layout it reads in). Layout transitions and barriers included. Fails with
// InvalidArgument for mismatched formats or sizes.
struct LinearCopy {
    HostImage source;
    ImageState sourceBefore;
    ImageState sourceAfter;
    HostImage linear;
    ImageState linearBefore;  // only stages and access count: the contents are discarded
    ImageState linearAfter{VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0, VK_QUEUE_FAMILY_IGNORED};
};
Status recordCopyToLinear(VkCommandBuffer commandBuffer, uint32_t queueFamily, const LinearCopy& copy);

// ---------------------------------------------------------------------------------------
// External fences and per-ticket binary semaphores (InteropCapabilities::signalPath).
//
// Both are signaled by an empty submission vkinfer makes at the call on the session's
// queue: Vulkan orders its signal after all work submitted there before it, the ticket's
// inference included (and, on a queue the session shares with the host, the host's work
// submitted before the call). Call them right after Session::submit; a ticket that is already
// done is fine (the signal then comes at once). vkinfer keeps its own handle until that empty
// submission has finished.

// A fence an inference's completion signals, for a CPU wait in another API or process.
// SyncFd: a sync_file (poll() it, or import it into another API); fd == -1 means it was
// already signaled at export (the sync_file convention; every importer accepts -1).
// OpaqueFd: import it with vkImportFenceFdKHR into a VkDevice on the same physical device.
struct ExportedFence {
    int fd = -1;  // owned by the caller
    FenceHandleType type = FenceHandleType::None;
};
// With `type` None: InteropCapabilities::fenceExport. Unsupported naming the handle type
// where the device (or the host's VkDevice, without VK_KHR_external_fence_fd) cannot.
Result<ExportedFence> exportFence(Session& session, const Ticket& ticket, FenceHandleType type = FenceHandleType::None);

// Makes the session's next submission (Session::run / submit, submitInference) wait on the CPU for a fence
// another API or process exported, before it submits: the HostWait path for a producer that
// has no shareable semaphore. SyncFd: imported temporarily (-1 counts as signaled); OpaqueFd:
// permanently, into a fence vkinfer destroys after the wait. On success the fd belongs to the
// Vulkan implementation; on failure to the caller. recordInference never waits: a host that
// records inference waits for its own fences before it submits.
Status importWaitFence(Session& session, int fd, FenceHandleType type);

// A binary semaphore (opaque fd, owned by the caller) signaled once the ticket's inference has
// finished: the BinarySemaphore signal path, where timelines cannot be exported. Import it
// into the consumer's VkDevice and wait on it once; export one per ticket.
Result<int> exportSignalSemaphore(Session& session, const Ticket& ticket);

// Makes the session's next submission wait on a semaphore exported by another API or device
// (binary: signaled once; timeline: reach `value`). On success the fd belongs to the Vulkan
// implementation; on failure to the caller.
Status importWaitSemaphore(Session& session, int fd, bool timeline, uint64_t value = 0);

// A timeline semaphore another device, process or API exported as an opaque fd, imported once
// so that submission after submission can wait on its values (waitTimelineValue): no fd to
// export and no semaphore to import per frame, as importWaitSemaphore needs. The semaphore
// lives as long as the session. On success the fd belongs to the Vulkan implementation; on
// failure to the caller (Unsupported where timeline semaphores cannot be imported:
// InteropCapabilities::importTimelineSemaphoreFd).
struct ImportedTimeline {
    uint32_t index = UINT32_MAX;  // the session's own numbering; the default names none
};
Result<ImportedTimeline> importTimelineSemaphore(Session& session, int fd);

// Makes the session's next submission (Session::submit, submitInference) wait until the
// imported timeline reaches `value`. InvalidArgument for a timeline this session did not import.
Status waitTimelineValue(Session& session, ImportedTimeline timeline, uint64_t value);

}  // namespace vkinfer
