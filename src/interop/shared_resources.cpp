// Shared resources: tensor memory and semaphores exported and imported as file descriptors.
#include <unistd.h>

#include <algorithm>

#include "core/error.h"
#include "interop/capabilities.h"
#include "runtime/device_guard.h"
#include "runtime/session_impl.h"
#include "vk/check.h"
#include "vk/instance.h"
#include "vkinfer/interop.h"

namespace vkinfer {

namespace {

VkExternalMemoryHandleTypeFlagBits vkHandleType(MemoryHandleType t) {
    return t == MemoryHandleType::DmaBuf ? VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT
                                         : VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
}

const char* handleTypeName(MemoryHandleType t) { return t == MemoryHandleType::DmaBuf ? "dma-buf" : "opaque fd"; }

struct MemorySupport {
    bool exportable = false, importable = false;
};

MemorySupport bufferSupport(VkPhysicalDevice phys, VkExternalMemoryHandleTypeFlagBits type) {
    VkPhysicalDeviceExternalBufferInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.handleType = type;
    VkExternalBufferProperties props{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(phys, &info, &props);
    auto f = props.externalMemoryProperties.externalMemoryFeatures;
    return {(f & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) != 0, (f & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT) != 0};
}

struct SemaphoreSupport {
    bool exportable = false, importable = false;
};

SemaphoreSupport semaphoreSupport(VkPhysicalDevice phys, bool timeline) {
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkPhysicalDeviceExternalSemaphoreInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO};
    info.pNext = timeline ? &type : nullptr;
    info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkExternalSemaphoreProperties props{VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
    vkGetPhysicalDeviceExternalSemaphoreProperties(phys, &info, &props);
    auto f = props.externalSemaphoreFeatures;
    return {(f & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) != 0, (f & VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT) != 0};
}

SemaphoreSupport fenceSupport(VkPhysicalDevice phys, VkExternalFenceHandleTypeFlagBits type) {
    VkPhysicalDeviceExternalFenceInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_FENCE_INFO};
    info.handleType = type;
    VkExternalFenceProperties props{VK_STRUCTURE_TYPE_EXTERNAL_FENCE_PROPERTIES};
    vkGetPhysicalDeviceExternalFenceProperties(phys, &info, &props);
    auto f = props.externalFenceFeatures;
    return {(f & VK_EXTERNAL_FENCE_FEATURE_EXPORTABLE_BIT) != 0, (f & VK_EXTERNAL_FENCE_FEATURE_IMPORTABLE_BIT) != 0};
}

// The IO allocation of a model input or output, by name.
int ioAllocation(const plan::CompiledPlan& cp, const Model& model, const std::string& tensor) {
    for (size_t i = 0; i < model.inputs().size(); ++i)
        if (model.inputs()[i].name == tensor) return cp.inputAlloc(static_cast<int>(i));
    for (size_t k = 0; k < model.outputs().size(); ++k)
        if (model.outputs()[k].name == tensor) return cp.outputAlloc(static_cast<int>(k));
    std::string names;
    for (const auto& d : model.inputs()) names += (names.empty() ? "'" : ", '") + d.name + "'";
    for (const auto& d : model.outputs()) names += (names.empty() ? "'" : ", '") + d.name + "'";
    fail(ErrorCode::InvalidArgument, "the model has no input or output named '{}' (it has: {})", tensor, names);
}

// The plan whose buffers a shared-memory call refers to: the one prepared (or last used by
// this frame). Sharing needs fixed shapes, so exactly one plan must exist.
rt::PreparedPlan& sharedPlan(detail::SessionImpl& s, uint32_t frame, const char* what) {
    if (rt::PreparedPlan* p = s.sharedPlan(frame)) return *p;
    fail(ErrorCode::InvalidArgument, "{}: prepare the session for its input shapes first (Session::prepare){}", what,
         s.plans.empty() ? "" : "; several shape sets are prepared, run or record the frame once to pick one");
}

}  // namespace

InteropCapabilities queryInteropCapabilities(const Context& context) {
    InteropCapabilities c = interop::syncAndMemoryCapabilities(context);
    c.images = interop::imageSharingTable(context);
    return c;
}

InteropCapabilities interop::syncAndMemoryCapabilities(const Context& context) {
    InteropCapabilities c;
    const auto& ctx = *context.impl();
    const auto& dev = *ctx.device;
    const auto& on = dev.enabled();
    VkPhysicalDevice phys = dev.physical();
    if (on.externalMemoryFd) {
        auto opaque = bufferSupport(phys, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
        c.exportMemoryOpaqueFd = opaque.exportable;
        c.importMemoryOpaqueFd = opaque.importable;
        if (on.dmaBuf) {
            auto dma = bufferSupport(phys, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT);
            c.exportMemoryDmaBuf = dma.exportable;
            c.importMemoryDmaBuf = dma.importable;
        }
    }
    c.timelineSemaphore = on.timelineSemaphore;
    if (on.externalSemaphoreFd) {
        auto binary = semaphoreSupport(phys, false);
        c.exportBinarySemaphoreFd = binary.exportable;
        c.importBinarySemaphoreFd = binary.importable;
        if (on.timelineSemaphore) {
            auto timeline = semaphoreSupport(phys, true);
            c.exportTimelineSemaphoreFd = timeline.exportable;
            c.importTimelineSemaphoreFd = timeline.importable;
        }
    }
    if (on.externalFenceFd) {
        auto sync = fenceSupport(phys, VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT);
        auto opaque = fenceSupport(phys, VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT);
        c.exportFenceSyncFd = sync.exportable;
        c.importFenceSyncFd = sync.importable;
        c.exportFenceOpaqueFd = opaque.exportable;
        c.importFenceOpaqueFd = opaque.importable;
    }
    c.deviceUuid = ctx.info.deviceUuid;
    return chooseSyncPaths(c);
}

Result<ExportedMemory> exportTensorMemory(Session& session, const std::string& tensor, uint32_t frame,
                                          MemoryHandleType type) {
    return detail::guardDeviceResult<ExportedMemory>(*session.impl()->context.impl(), "exportTensorMemory", [&] {
        detail::SessionImpl& s = *session.impl();
        if (!s.options.shareableIO)
            fail(ErrorCode::InvalidArgument, "exportTensorMemory: create the session with SessionOptions::shareableIO");
        // A host device wrapped without the extension: say so, rather than "cannot export".
        const auto& dev = *s.ctx().device;
        dev.require(dev.enabled().externalMemoryFd, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, "exportTensorMemory");
        auto caps = interop::syncAndMemoryCapabilities(s.context);
        bool can = type == MemoryHandleType::DmaBuf ? caps.exportMemoryDmaBuf : caps.exportMemoryOpaqueFd;
        if (!can)
            fail(ErrorCode::Unsupported, "device '{}' cannot export buffer memory as {}{}", s.ctx().info.name,
                 handleTypeName(type), type == MemoryHandleType::DmaBuf ? " (use MemoryHandleType::OpaqueFd)" : "");
        rt::PreparedPlan& plan = sharedPlan(s, frame, "exportTensorMemory");
        int alloc = ioAllocation(plan.plan(), s.model, tensor);
        rt::FrameSlot& slot = plan.slot(frame);
        if (slot.imported[alloc])
            fail(ErrorCode::InvalidArgument, "'{}' of frame {} uses imported memory; export it from its owner", tensor, frame);
        const vk::Buffer& buf = slot.owned[alloc];
        if (!(buf.exportTypes() & vkHandleType(type)))
            fail(ErrorCode::Unsupported, "'{}' was not allocated exportable as {}", tensor, handleTypeName(type));
        auto getFd = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(s.ctx().device->handle(), "vkGetMemoryFdKHR"));
        if (!getFd) fail(ErrorCode::Unsupported, "vkGetMemoryFdKHR is not available");
        VkMemoryGetFdInfoKHR gi{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
        gi.memory = buf.memory();
        gi.handleType = vkHandleType(type);
        ExportedMemory m;
        VK_CHECK(getFd(s.ctx().device->handle(), &gi, &m.fd));
        m.type = type;
        m.allocationSize = buf.allocationSize();
        m.offset = 0;
        m.bytes = static_cast<VkDeviceSize>(plan.plan().allocations[alloc].size);
        m.memoryTypeBits = buf.memoryTypeBits();
        m.dedicated = true;
        m.deviceUuid = s.ctx().info.deviceUuid;
        m.memoryTypeIndex = buf.memoryTypeIndex();  // importers on other VkDevices need it
        plan.pinned = true;
        return m;
    });
}

Status importTensorMemory(Session& session, const std::string& tensor, uint32_t frame, const ImportedMemory& memory) {
    return detail::guardDevice(*session.impl()->context.impl(), "importTensorMemory", [&] {
        detail::SessionImpl& s = *session.impl();
        // A host device wrapped without the extension: say so, rather than "cannot import".
        const auto& dev = *s.ctx().device;
        dev.require(dev.enabled().externalMemoryFd, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, "importTensorMemory");
        auto caps = interop::syncAndMemoryCapabilities(s.context);
        bool can = memory.type == MemoryHandleType::DmaBuf ? caps.importMemoryDmaBuf : caps.importMemoryOpaqueFd;
        if (!can)
            fail(ErrorCode::Unsupported, "device '{}' cannot import buffer memory as {}", s.ctx().info.name,
                 handleTypeName(memory.type));
        if (memory.fd < 0) fail(ErrorCode::InvalidArgument, "importTensorMemory: invalid fd {}", memory.fd);
        rt::PreparedPlan& plan = sharedPlan(s, frame, "importTensorMemory");
        int alloc = ioAllocation(plan.plan(), s.model, tensor);
        rt::FrameSlot& slot = plan.slot(frame);
        VkDeviceSize bytes = static_cast<VkDeviceSize>(plan.plan().allocations[alloc].size);
        std::string what = "'" + tensor + "' (imported)";
        // Wait before importing: once the import succeeded the fd is Vulkan's, so nothing that
        // can fail (and report the fd as still the caller's) may come after it.
        plan.waitIdle(slot);
        vk::Buffer b = vk::Buffer::imported(*s.ctx().device, bytes,
                                            VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                                VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                            memory.fd, vkHandleType(memory.type), memory.allocationSize, memory.offset,
                                            memory.dedicated, what.c_str(), memory.memoryTypeIndex);
        slot.imported[alloc] = std::move(b);
        plan.pinned = true;
        plan.refreshSlot(slot);
    });
}

Result<int> exportTimelineSemaphore(Session& session) {
    return detail::guardDeviceResult<int>(*session.impl()->context.impl(), "exportTimelineSemaphore", [&] {
        detail::SessionImpl& s = *session.impl();
        const auto& dev = *s.ctx().device;
        dev.require(dev.enabled().timelineSemaphore, "VkPhysicalDeviceVulkan12Features::timelineSemaphore",
                    "the session's timeline semaphore");
        VkSemaphore timeline = s.timelineSemaphore();
        if (!s.timelineExportable) {
            // Say which: the device lacks the extension, the host did not enable it, or the
            // driver cannot export timelines.
            bool offered = vk::hasDeviceExtension(dev.physical(), VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
            std::string why = !offered ? " (it does not offer VK_KHR_external_semaphore_fd)"
                              : !dev.enabled().externalSemaphoreFd
                                  ? " (VK_KHR_external_semaphore_fd was not enabled on the host's device)"
                                  : " (vkGetPhysicalDeviceExternalSemaphoreProperties reports timelines as not exportable)";
            fail(ErrorCode::Unsupported, "device '{}' cannot export timeline semaphores as fds{}; wait for tickets on the "
                                         "host (Session::wait / isDone) instead",
                 s.ctx().info.name, why);
        }
        auto getFd = reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(vkGetDeviceProcAddr(dev.handle(), "vkGetSemaphoreFdKHR"));
        if (!getFd) fail(ErrorCode::Unsupported, "vkGetSemaphoreFdKHR is not available");
        VkSemaphoreGetFdInfoKHR gi{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
        gi.semaphore = timeline;
        gi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
        int fd = -1;
        VK_CHECK(getFd(dev.handle(), &gi, &fd));
        return fd;
    });
}

namespace {

// A semaphore of the session's device with the payload of `fd` (opaque), after checking that
// the device can import this kind; `what` names the public call in errors. On success the fd
// is Vulkan's; on any failure it stays the caller's.
VkSemaphore importSemaphoreFd(detail::SessionImpl& s, int fd, bool timeline, const char* what) {
    const auto& dev = *s.ctx().device;
    auto caps = interop::syncAndMemoryCapabilities(s.context);
    if (!dev.enabled().externalSemaphoreFd && dev.info().externalSemaphoreFd)  // a host device wrapped without it
        dev.require(false, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME, what);
    if (timeline) {
        dev.require(dev.enabled().timelineSemaphore, "VkPhysicalDeviceVulkan12Features::timelineSemaphore",
                    "waiting on an imported timeline semaphore");
        if (!caps.importTimelineSemaphoreFd)
            fail(ErrorCode::Unsupported, "device '{}' cannot import timeline semaphores from fds", s.ctx().info.name);
    } else if (!caps.importBinarySemaphoreFd) {
        fail(ErrorCode::Unsupported, "device '{}' cannot import binary semaphores from fds", s.ctx().info.name);
    }
    if (fd < 0) fail(ErrorCode::InvalidArgument, "{}: invalid fd {}", what, fd);
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo ci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    ci.pNext = timeline ? &type : nullptr;
    VkSemaphore sem;
    VK_CHECK(vkCreateSemaphore(dev.handle(), &ci, nullptr, &sem));
    auto importFd = reinterpret_cast<PFN_vkImportSemaphoreFdKHR>(vkGetDeviceProcAddr(dev.handle(), "vkImportSemaphoreFdKHR"));
    VkImportSemaphoreFdInfoKHR ii{VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR};
    ii.semaphore = sem;
    ii.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    ii.fd = fd;
    VkResult r = importFd ? importFd(dev.handle(), &ii) : VK_ERROR_EXTENSION_NOT_PRESENT;
    if (r != VK_SUCCESS) {
        vkDestroySemaphore(dev.handle(), sem, nullptr);  // the fd stays the caller's
        VK_CHECK_RESULT(r, "vkImportSemaphoreFdKHR");
    }
    return sem;
}

}  // namespace

Status importWaitSemaphore(Session& session, int fd, bool timeline, uint64_t value) {
    return detail::guardDevice(*session.impl()->context.impl(), "importWaitSemaphore", [&] {
        detail::SessionImpl& s = *session.impl();
        VkSemaphore sem = importSemaphoreFd(s, fd, timeline, "importWaitSemaphore");
        s.pendingWaits.push_back({sem, timeline ? value : 0});
    });
}

Result<ImportedTimeline> importTimelineSemaphore(Session& session, int fd) {
    return detail::guardDeviceResult<ImportedTimeline>(*session.impl()->context.impl(), "importTimelineSemaphore", [&] {
        detail::SessionImpl& s = *session.impl();
        VkSemaphore sem = importSemaphoreFd(s, fd, true, "importTimelineSemaphore");
        s.importedTimelines.push_back(sem);
        return ImportedTimeline{static_cast<uint32_t>(s.importedTimelines.size() - 1)};
    });
}

Status waitTimelineValue(Session& session, ImportedTimeline timeline, uint64_t value) {
    return detail::guardDevice(*session.impl()->context.impl(), "waitTimelineValue", [&] {
        detail::SessionImpl& s = *session.impl();
        if (timeline.index >= s.importedTimelines.size())
            fail(ErrorCode::InvalidArgument,
                 "waitTimelineValue: timeline {} was not returned by importTimelineSemaphore on this session "
                 "({} imported)",
                 timeline.index, s.importedTimelines.size());
        s.pendingWaits.push_back({s.importedTimelines[timeline.index], value, false});
    });
}

}  // namespace vkinfer
