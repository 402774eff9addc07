// External fences and per-ticket binary semaphores: what exportFence, exportSignalSemaphore and
// importWaitFence share with the session's submissions (runtime/session_impl.h keeps the
// objects; SessionImpl::submit waits for imported fences before it submits).
#include <mutex>

#include "core/error.h"
#include "interop/capabilities.h"
#include "runtime/device_guard.h"
#include "runtime/session_impl.h"
#include "vk/check.h"
#include "vk/fault_injection.h"
#include "vk/instance.h"
#include "vkinfer/interop.h"

namespace vkinfer {

namespace {

VkExternalFenceHandleTypeFlagBits vkFenceType(FenceHandleType t) {
    return t == FenceHandleType::SyncFd ? VK_EXTERNAL_FENCE_HANDLE_TYPE_SYNC_FD_BIT
                                        : VK_EXTERNAL_FENCE_HANDLE_TYPE_OPAQUE_FD_BIT;
}

const char* fenceTypeName(FenceHandleType t) {
    return t == FenceHandleType::SyncFd ? "sync fd" : t == FenceHandleType::OpaqueFd ? "opaque fd" : "none";
}

template <class F>
F deviceFunction(const vk::Device& dev, const char* name) {
    auto f = reinterpret_cast<F>(vkGetDeviceProcAddr(dev.handle(), name));
    if (!f) fail(ErrorCode::Unsupported, "{} is not available on device '{}'", name, dev.info().name);
    return f;
}

// Why a device cannot share fences: it lacks the extension, the host did not enable it, or
// the driver reports the handle type as not exportable (importable).
std::string whyNoFence(const vk::Device& dev, bool exporting) {
    if (!vk::hasDeviceExtension(dev.physical(), VK_KHR_EXTERNAL_FENCE_FD_EXTENSION_NAME))
        return "it does not offer VK_KHR_external_fence_fd";
    if (!dev.enabled().externalFenceFd) return "VK_KHR_external_fence_fd was not enabled on the host's device";
    return exporting ? "vkGetPhysicalDeviceExternalFenceProperties reports it as not exportable"
                     : "vkGetPhysicalDeviceExternalFenceProperties reports it as not importable";
}

void requireTicket(const detail::SessionImpl& s, const Ticket& ticket, const char* what) {
    if (ticket.value == 0 || ticket.value > s.lastTicket)
        fail(ErrorCode::InvalidArgument, "{}: ticket {} was not returned by this session's submit (the last is {})", what,
             ticket.value, s.lastTicket);
}

VkFence createFence(VkDevice dev, const void* pNext) {
    VkFenceCreateInfo ci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    ci.pNext = pNext;
    VkFence f;
    VK_CHECK(vkCreateFence(dev, &ci, nullptr, &f));
    return f;
}

// An empty submission on the session's queue: its signals come after everything submitted
// there before it (Vulkan includes all earlier commands in a queue submission's fence and
// semaphore signal scopes).
void submitEmpty(detail::SessionImpl& s, VkSemaphore signal, VkFence fence, const char* what) {
    const vk::DeviceQueue& queue = s.queue();
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.signalSemaphoreCount = signal ? 1 : 0;
    si.pSignalSemaphores = &signal;
    VkResult r = vk::injectedResult("vkQueueSubmit");
    std::lock_guard<std::mutex> lock(*queue.lock);
    if (r == VK_SUCCESS) r = vkQueueSubmit(queue.submitHandle(what), signal ? 1 : 0, &si, fence);
    VK_CHECK_RESULT(r, "vkQueueSubmit (external signal)");
}

}  // namespace

namespace detail {

void SessionImpl::releaseExportedSignals(bool wait) {
    VkDevice dev = ctx().device->handle();
    std::erase_if(exportedSignals, [&](const ExportedSignal& e) {
        if (e.done) {
            VkResult r = wait ? vkWaitForFences(dev, 1, &e.done, VK_TRUE, UINT64_MAX) : vkGetFenceStatus(dev, e.done);
            if (r == VK_NOT_READY || r == VK_TIMEOUT) return false;
            // Anything else (success, a lost device) leaves nothing pending on these objects.
        }
        if (e.fence) vkDestroyFence(dev, e.fence, nullptr);
        if (e.semaphore) vkDestroySemaphore(dev, e.semaphore, nullptr);
        if (e.done) vkDestroyFence(dev, e.done, nullptr);
        return true;
    });
}

void SessionImpl::waitImportedFences() {
    if (pendingFenceWaits.empty()) return;
    VkDevice dev = ctx().device->handle();
    VkResult r = vkWaitForFences(dev, static_cast<uint32_t>(pendingFenceWaits.size()), pendingFenceWaits.data(),
                                 VK_TRUE, UINT64_MAX);
    for (VkFence f : pendingFenceWaits) vkDestroyFence(dev, f, nullptr);
    pendingFenceWaits.clear();
    VK_CHECK_RESULT(r, "vkWaitForFences (imported fences, importWaitFence)");
}

}  // namespace detail

Result<ExportedFence> exportFence(Session& session, const Ticket& ticket, FenceHandleType type) {
    return detail::guardDeviceResult<ExportedFence>(*session.impl()->context.impl(), "exportFence", [&] {
        detail::SessionImpl& s = *session.impl();
        const vk::Device& dev = *s.ctx().device;
        requireTicket(s, ticket, "exportFence");
        InteropCapabilities caps = interop::syncAndMemoryCapabilities(s.context);
        if (type == FenceHandleType::None) type = caps.fenceExport;
        if (type == FenceHandleType::None)
            fail(ErrorCode::Unsupported, "device '{}' cannot export fences as fds ({}); wait for the ticket on the host "
                                         "(Session::wait / isDone) instead",
                 dev.info().name, whyNoFence(dev, true));
        bool can = type == FenceHandleType::SyncFd ? caps.exportFenceSyncFd : caps.exportFenceOpaqueFd;
        if (!can)
            fail(ErrorCode::Unsupported, "device '{}' cannot export fences as {} ({}){}", dev.info().name,
                 fenceTypeName(type), whyNoFence(dev, true),
                 caps.fenceExport != FenceHandleType::None ? fmt::format("; it can as {}", fenceTypeName(caps.fenceExport))
                                                           : std::string());
        auto getFd = deviceFunction<PFN_vkGetFenceFdKHR>(dev, "vkGetFenceFdKHR");
        s.releaseExportedSignals(false);

        VkExportFenceCreateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_FENCE_CREATE_INFO};
        exportInfo.handleTypes = vkFenceType(type);
        detail::SessionImpl::ExportedSignal e;
        e.fence = createFence(dev.handle(), &exportInfo);
        try {
            e.done = createFence(dev.handle(), nullptr);
            submitEmpty(s, VK_NULL_HANDLE, e.fence, "exportFence");
        } catch (...) {
            vkDestroyFence(dev.handle(), e.fence, nullptr);
            if (e.done) vkDestroyFence(dev.handle(), e.done, nullptr);
            throw;
        }
        // From here the fence has a pending signal: it lives until `done` says it is over.
        try {
            submitEmpty(s, VK_NULL_HANDLE, e.done, "exportFence");
        } catch (...) {
            // Known finished only once the queue is idle: wait, rather than destroy it pending.
            {
                std::lock_guard<std::mutex> lock(*s.queue().lock);
                vkQueueWaitIdle(s.queue().handle);
            }
            vkDestroyFence(dev.handle(), e.fence, nullptr);
            vkDestroyFence(dev.handle(), e.done, nullptr);
            throw;
        }
        s.exportedSignals.push_back(e);
        VkFenceGetFdInfoKHR gi{VK_STRUCTURE_TYPE_FENCE_GET_FD_INFO_KHR};
        gi.fence = e.fence;
        gi.handleType = vkFenceType(type);
        ExportedFence out;
        out.type = type;
        // A sync fd export is a copy: it takes the fence's pending signal (or -1 when signaled).
        VK_CHECK(getFd(dev.handle(), &gi, &out.fd));
        return out;
    });
}

Status importWaitFence(Session& session, int fd, FenceHandleType type) {
    return detail::guardDevice(*session.impl()->context.impl(), "importWaitFence", [&] {
        detail::SessionImpl& s = *session.impl();
        const vk::Device& dev = *s.ctx().device;
        InteropCapabilities caps = interop::syncAndMemoryCapabilities(s.context);
        if (type == FenceHandleType::None)
            fail(ErrorCode::InvalidArgument, "importWaitFence: name the fd's handle type (SyncFd or OpaqueFd)");
        bool can = type == FenceHandleType::SyncFd ? caps.importFenceSyncFd : caps.importFenceOpaqueFd;
        if (!can)
            fail(ErrorCode::Unsupported, "device '{}' cannot import fences as {} ({}); wait for the producer's work on "
                                         "the host before Session::submit instead",
                 dev.info().name, fenceTypeName(type), whyNoFence(dev, false));
        // -1 is a valid sync fd (an already signaled sync_file), never a valid opaque fd.
        if (fd < 0 && !(fd == -1 && type == FenceHandleType::SyncFd))
            fail(ErrorCode::InvalidArgument, "importWaitFence: invalid fd {} for {}", fd, fenceTypeName(type));
        auto importFd = deviceFunction<PFN_vkImportFenceFdKHR>(dev, "vkImportFenceFdKHR");
        VkFence fence = createFence(dev.handle(), nullptr);
        VkImportFenceFdInfoKHR ii{VK_STRUCTURE_TYPE_IMPORT_FENCE_FD_INFO_KHR};
        ii.fence = fence;
        // Vulkan allows sync fds only as temporary imports (their payload is a copy).
        ii.flags = type == FenceHandleType::SyncFd ? VK_FENCE_IMPORT_TEMPORARY_BIT : 0;
        ii.handleType = vkFenceType(type);
        ii.fd = fd;
        VkResult r = importFd(dev.handle(), &ii);
        if (r != VK_SUCCESS) {
            vkDestroyFence(dev.handle(), fence, nullptr);  // the fd stays the caller's
            VK_CHECK_RESULT(r, "vkImportFenceFdKHR");
        }
        s.pendingFenceWaits.push_back(fence);
    });
}

Result<int> exportSignalSemaphore(Session& session, const Ticket& ticket) {
    return detail::guardDeviceResult<int>(*session.impl()->context.impl(), "exportSignalSemaphore", [&] {
        detail::SessionImpl& s = *session.impl();
        const vk::Device& dev = *s.ctx().device;
        requireTicket(s, ticket, "exportSignalSemaphore");
        InteropCapabilities caps = interop::syncAndMemoryCapabilities(s.context);
        if (!caps.exportBinarySemaphoreFd) {
            bool offered = vk::hasDeviceExtension(dev.physical(), VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
            fail(ErrorCode::Unsupported, "device '{}' cannot export binary semaphores as opaque fds ({}); wait for the "
                                         "ticket on the host (Session::wait / isDone) instead",
                 dev.info().name,
                 !offered ? "it does not offer VK_KHR_external_semaphore_fd"
                 : !dev.enabled().externalSemaphoreFd
                     ? "VK_KHR_external_semaphore_fd was not enabled on the host's device"
                     : "vkGetPhysicalDeviceExternalSemaphoreProperties reports them as not exportable");
        }
        auto getFd = deviceFunction<PFN_vkGetSemaphoreFdKHR>(dev, "vkGetSemaphoreFdKHR");
        s.releaseExportedSignals(false);

        VkExportSemaphoreCreateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
        exportInfo.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
        VkSemaphoreCreateInfo ci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
        ci.pNext = &exportInfo;
        detail::SessionImpl::ExportedSignal e;
        VK_CHECK(vkCreateSemaphore(dev.handle(), &ci, nullptr, &e.semaphore));
        try {
            e.done = createFence(dev.handle(), nullptr);
            submitEmpty(s, e.semaphore, e.done, "exportSignalSemaphore");
        } catch (...) {
            vkDestroySemaphore(dev.handle(), e.semaphore, nullptr);
            if (e.done) vkDestroyFence(dev.handle(), e.done, nullptr);
            throw;
        }
        s.exportedSignals.push_back(e);
        // An opaque fd shares the semaphore's payload: the importer's wait sees this signal.
        VkSemaphoreGetFdInfoKHR gi{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
        gi.semaphore = e.semaphore;
        gi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
        int fd = -1;
        VK_CHECK(getFd(dev.handle(), &gi, &fd));
        return fd;
    });
}

}  // namespace vkinfer
