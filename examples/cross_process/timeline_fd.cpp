#include "timeline_fd.h"

#include <stdexcept>
#include <string>

namespace vkinfer::crossprocess {
namespace {

void check(VkResult r, const char* what) {
    if (r != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed: VkResult " + std::to_string(int(r)));
}

VkSemaphore createTimeline(VkDevice device, const void* next, const char* what) {
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.pNext = next;
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo ci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    ci.pNext = &type;
    VkSemaphore s = VK_NULL_HANDLE;
    check(vkCreateSemaphore(device, &ci, nullptr, &s), what);
    return s;
}

}  // namespace

VkSemaphore createExportableTimeline(VkDevice device) {
    VkExportSemaphoreCreateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    exportInfo.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    return createTimeline(device, &exportInfo, "vkCreateSemaphore (exportable timeline)");
}

int exportSemaphoreFd(VkDevice device, VkSemaphore semaphore) {
    auto getFd = reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(vkGetDeviceProcAddr(device, "vkGetSemaphoreFdKHR"));
    if (!getFd) throw std::runtime_error("vkGetSemaphoreFdKHR is missing (VK_KHR_external_semaphore_fd not enabled)");
    VkSemaphoreGetFdInfoKHR gi{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
    gi.semaphore = semaphore;
    gi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    check(getFd(device, &gi, &fd), "vkGetSemaphoreFdKHR");
    return fd;
}

VkSemaphore importTimelineFd(VkDevice device, int fd) {
    auto importFd = reinterpret_cast<PFN_vkImportSemaphoreFdKHR>(vkGetDeviceProcAddr(device, "vkImportSemaphoreFdKHR"));
    if (!importFd)
        throw std::runtime_error("vkImportSemaphoreFdKHR is missing (VK_KHR_external_semaphore_fd not enabled)");
    VkSemaphore s = createTimeline(device, nullptr, "vkCreateSemaphore (timeline to import into)");
    VkImportSemaphoreFdInfoKHR ii{VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR};
    ii.semaphore = s;
    ii.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;  // permanent: the payload is shared
    ii.fd = fd;
    VkResult r = importFd(device, &ii);
    if (r != VK_SUCCESS) vkDestroySemaphore(device, s, nullptr);
    check(r, "vkImportSemaphoreFdKHR");
    return s;
}

void submitWithTimelines(VkQueue queue, VkCommandBuffer cmd, VkFence fence, VkSemaphore wait, uint64_t waitValue,
                         VkSemaphore signal, uint64_t signalValue) {
    VkTimelineSemaphoreSubmitInfo values{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    values.waitSemaphoreValueCount = wait ? 1 : 0;
    values.pWaitSemaphoreValues = &waitValue;
    values.signalSemaphoreValueCount = signal ? 1 : 0;
    values.pSignalSemaphoreValues = &signalValue;
    // All commands: the other process's work is unknown to this queue's barriers, which start
    // from the top of the pipe (the acquires from VK_QUEUE_FAMILY_EXTERNAL).
    const VkPipelineStageFlags waitStage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.pNext = (wait || signal) ? &values : nullptr;
    si.waitSemaphoreCount = wait ? 1 : 0;
    si.pWaitSemaphores = &wait;
    si.pWaitDstStageMask = &waitStage;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    si.signalSemaphoreCount = signal ? 1 : 0;
    si.pSignalSemaphores = &signal;
    check(vkQueueSubmit(queue, 1, &si, fence), "vkQueueSubmit");
}

}  // namespace vkinfer::crossprocess
