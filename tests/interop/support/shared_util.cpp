#include "interop/support/shared_util.h"
#include "interop/support/vk_queries.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace vkinfer::testing::shared {

namespace {

std::string vkError(const char* call, VkResult r) { return std::string(call) + " returned VkResult " + std::to_string(r); }

#define HOST_VK(call)                                                                   \
    do {                                                                                \
        VkResult r_ = (call);                                                           \
        if (r_ != VK_SUCCESS) throw std::runtime_error(vkError(#call, r_));             \
    } while (0)


}  // namespace

bool fdIsOpen(int fd) { return fd >= 0 && fcntl(fd, F_GETFD) != -1; }

VKAPI_ATTR VkBool32 VKAPI_CALL HostGpu::onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                  VkDebugUtilsMessageTypeFlagsEXT,
                                                  const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    auto* log = static_cast<Log*>(user);
    std::lock_guard<std::mutex> lock(log->mutex);
    log->messages.push_back(std::string(severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "[host error] "
                                                                                                  : "[host warning] ") +
                            (data && data->pMessage ? data->pMessage : ""));
    return VK_FALSE;
}

HostGpu::HostGpu(const HostOptions& options) : options_(options) {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vkinfer shared-resource host";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ii{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ii.pApplicationInfo = &app;
    std::vector<const char*> layers, extensions;
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    VkDebugUtilsMessengerCreateInfoEXT mi{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    mi.pfnUserCallback = &HostGpu::onMessage;
    mi.pUserData = log_.get();
    if (options_.validate) {
        if (!testing::hasInstanceLayer("VK_LAYER_KHRONOS_validation"))
            throw std::runtime_error("validation requested but VK_LAYER_KHRONOS_validation is not installed");
        layers.push_back("VK_LAYER_KHRONOS_validation");
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
        features.enabledValidationFeatureCount = 1;
        features.pEnabledValidationFeatures = enables;
        features.pNext = &mi;  // sees instance creation and destruction
        ii.pNext = &features;
    }
    ii.enabledLayerCount = static_cast<uint32_t>(layers.size());
    ii.ppEnabledLayerNames = layers.data();
    ii.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    ii.ppEnabledExtensionNames = extensions.data();
    HOST_VK(vkCreateInstance(&ii, nullptr, &instance_));
    try {
        if (options_.validate) {
            auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
                vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
            if (!create) throw std::runtime_error("vkCreateDebugUtilsMessengerEXT is missing");
            HOST_VK(create(instance_, &mi, nullptr, &messenger_));
        }

        // The physical device with the requested UUID.
        uint32_t n = 0;
        HOST_VK(vkEnumeratePhysicalDevices(instance_, &n, nullptr));
        std::vector<VkPhysicalDevice> phys(n);
        HOST_VK(vkEnumeratePhysicalDevices(instance_, &n, phys.data()));
        for (VkPhysicalDevice p : phys) {
            VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
            VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
            props.pNext = &ids;
            vkGetPhysicalDeviceProperties2(p, &props);
            if (std::memcmp(ids.deviceUUID, options_.deviceUuid.data(), VK_UUID_SIZE) == 0) physical_ = p;
        }
        if (!physical_) throw std::runtime_error("no physical device has the requested UUID");

        uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nq, nullptr);
        std::vector<VkQueueFamilyProperties> families(nq);
        vkGetPhysicalDeviceQueueFamilyProperties(physical_, &nq, families.data());
        bool found = false;
        for (uint32_t i = 0; i < nq && !found; ++i)
            if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) family_ = i, found = true;
        if (!found) throw std::runtime_error("the device has no compute queue family");

        if (options_.externalMemoryFd) {
            if (!testing::hasDeviceExtension(physical_, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
                throw std::runtime_error("the device does not offer VK_KHR_external_memory_fd");
            extensions_.push_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
        }
        if (options_.externalSemaphoreFd && testing::hasDeviceExtension(physical_, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME))
            extensions_.push_back(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
        std::vector<const char*> deviceExtensions;
        for (const auto& e : extensions_) deviceExtensions.push_back(e.c_str());
        float priority = 1.0f;
        VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        qi.queueFamilyIndex = family_;
        qi.queueCount = 1;
        qi.pQueuePriorities = &priority;
        VkPhysicalDeviceVulkan12Features f12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
        f12.timelineSemaphore = options_.timelineSemaphore;
        VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
        di.pNext = &f12;
        di.queueCreateInfoCount = 1;
        di.pQueueCreateInfos = &qi;
        di.enabledExtensionCount = static_cast<uint32_t>(deviceExtensions.size());
        di.ppEnabledExtensionNames = deviceExtensions.data();
        HOST_VK(vkCreateDevice(physical_, &di, nullptr, &device_));
        vkGetDeviceQueue(device_, family_, 0, &queue_);
        VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pi.queueFamilyIndex = family_;
        pi.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
        HOST_VK(vkCreateCommandPool(device_, &pi, nullptr, &pool_));
        for (const auto& e : extensions_) {
            if (e == VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME)
                getMemoryFd_ = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(device_, "vkGetMemoryFdKHR"));
            if (e == VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME)
            {
                getSemaphoreFd_ =
                    reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(vkGetDeviceProcAddr(device_, "vkGetSemaphoreFdKHR"));
                importSemaphoreFd_ = reinterpret_cast<PFN_vkImportSemaphoreFdKHR>(
                    vkGetDeviceProcAddr(device_, "vkImportSemaphoreFdKHR"));
            }
        }
    } catch (...) {
        shutdown();
        throw;
    }
}

HostGpu::~HostGpu() { shutdown(); }

std::vector<std::string> HostGpu::shutdown() {
    if (device_) {
        vkDeviceWaitIdle(device_);
        if (pool_) vkDestroyCommandPool(device_, pool_, nullptr);
        vkDestroyDevice(device_, nullptr);
        device_ = VK_NULL_HANDLE;
        pool_ = VK_NULL_HANDLE;
    }
    auto messages = takeMessages();
    if (instance_) {
        if (messenger_) {
            auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
                vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
            if (destroy) destroy(instance_, messenger_, nullptr);
            messenger_ = VK_NULL_HANDLE;
        }
        vkDestroyInstance(instance_, nullptr);
        instance_ = VK_NULL_HANDLE;
    }
    return messages;
}

std::vector<std::string> HostGpu::takeMessages() {
    std::lock_guard<std::mutex> lock(log_->mutex);
    return std::exchange(log_->messages, {});
}

HostDevice HostGpu::hostDevice() const {
    HostDevice h;
    h.instance = instance_;
    h.physicalDevice = physical_;
    h.device = device_;
    h.queueFamilyIndex = family_;
    h.queue = queue_;
    h.apiVersion = VK_API_VERSION_1_2;
    h.enabledExtensions = extensions_;
    h.features12.timelineSemaphore = options_.timelineSemaphore;
    return h;
}

HostBuffer HostGpu::createBuffer(VkDeviceSize bytes, VkBufferUsageFlags usage, bool hostVisible, bool exportable) {
    HostBuffer b;
    b.size = bytes;
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.pNext = exportable ? &external : nullptr;
    bi.size = bytes;
    bi.usage = usage;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    HOST_VK(vkCreateBuffer(device_, &bi, nullptr, &b.buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device_, b.buffer, &req);
    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(physical_, &mem);
    VkMemoryPropertyFlags want = hostVisible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                             : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    int type = -1;
    for (uint32_t i = 0; i < mem.memoryTypeCount && type < 0; ++i)
        if ((req.memoryTypeBits & (1u << i)) && (mem.memoryTypes[i].propertyFlags & want) == want) type = static_cast<int>(i);
    if (type < 0) {
        vkDestroyBuffer(device_, b.buffer, nullptr);
        throw std::runtime_error("no suitable memory type");
    }
    VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    dedicated.buffer = b.buffer;
    VkExportMemoryAllocateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    exportInfo.pNext = &dedicated;
    exportInfo.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.pNext = exportable ? &exportInfo : nullptr;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = static_cast<uint32_t>(type);
    VkResult r = vkAllocateMemory(device_, &ai, nullptr, &b.memory);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(device_, b.buffer, nullptr);
        throw std::runtime_error(vkError("vkAllocateMemory", r));
    }
    b.allocationSize = req.size;
    b.memoryTypeIndex = static_cast<uint32_t>(type);
    HOST_VK(vkBindBufferMemory(device_, b.buffer, b.memory, 0));
    if (hostVisible) HOST_VK(vkMapMemory(device_, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
    return b;
}

HostBuffer HostGpu::createExportable(VkDeviceSize bytes) { return createBuffer(bytes, kSharedUsage, false, true); }

int HostGpu::exportFd(const HostBuffer& buffer) {
    if (!getMemoryFd_) throw std::runtime_error("vkGetMemoryFdKHR is not available (VK_KHR_external_memory_fd)");
    VkMemoryGetFdInfoKHR gi{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    gi.memory = buffer.memory;
    gi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    HOST_VK(getMemoryFd_(device_, &gi, &fd));
    return fd;
}

VkResult HostGpu::importBuffer(int fd, VkDeviceSize bytes, VkDeviceSize allocationSize, VkDeviceSize offset,
                               uint32_t memoryTypeIndex, bool dedicated, HostBuffer* out) {
    HostBuffer b;
    b.size = bytes;
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bi.pNext = &external;
    bi.size = bytes;
    bi.usage = kSharedUsage;
    bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult r = vkCreateBuffer(device_, &bi, nullptr, &b.buffer);
    if (r != VK_SUCCESS) return r;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device_, b.buffer, &req);
    // Refused here rather than by the driver (validation would report these as errors).
    if (!(req.memoryTypeBits & (1u << memoryTypeIndex)) || offset % req.alignment != 0 ||
        offset + req.size > allocationSize) {
        vkDestroyBuffer(device_, b.buffer, nullptr);
        return VK_ERROR_UNKNOWN;
    }
    VkMemoryDedicatedAllocateInfo ded{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    ded.buffer = b.buffer;
    VkImportMemoryFdInfoKHR import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR};
    import.pNext = dedicated ? &ded : nullptr;
    import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    import.fd = fd;
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.pNext = &import;
    ai.allocationSize = allocationSize;
    ai.memoryTypeIndex = memoryTypeIndex;  // must be the exporter's for an opaque fd made by Vulkan
    r = vkAllocateMemory(device_, &ai, nullptr, &b.memory);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(device_, b.buffer, nullptr);
        return r;  // the fd is still the caller's
    }
    b.allocationSize = allocationSize;
    b.memoryTypeIndex = memoryTypeIndex;
    r = vkBindBufferMemory(device_, b.buffer, b.memory, offset);
    if (r != VK_SUCCESS) throw std::runtime_error(vkError("vkBindBufferMemory", r));  // the fd is Vulkan's by now
    *out = b;
    return VK_SUCCESS;
}

VkCommandBuffer HostGpu::beginOneTime() {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    HOST_VK(vkAllocateCommandBuffers(device_, &ai, &cmd));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    HOST_VK(vkBeginCommandBuffer(cmd, &bi));
    return cmd;
}

void HostGpu::submitAndWait(VkCommandBuffer cmd) {
    HOST_VK(vkEndCommandBuffer(cmd));
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    HOST_VK(vkCreateFence(device_, &fi, nullptr, &fence));
    std::vector<VkSemaphore> waits;
    std::vector<uint64_t> values;
    std::vector<VkPipelineStageFlags> stages;
    for (auto [sem, value] : nextWaits_) {
        waits.push_back(sem);
        values.push_back(value);
        stages.push_back(VK_PIPELINE_STAGE_ALL_COMMANDS_BIT);
    }
    nextWaits_.clear();
    VkTimelineSemaphoreSubmitInfo timeline{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    timeline.waitSemaphoreValueCount = static_cast<uint32_t>(values.size());
    timeline.pWaitSemaphoreValues = values.data();
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.pNext = waits.empty() || !options_.timelineSemaphore ? nullptr : &timeline;
    si.waitSemaphoreCount = static_cast<uint32_t>(waits.size());
    si.pWaitSemaphores = waits.data();
    si.pWaitDstStageMask = stages.data();
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    VkResult r = vkQueueSubmit(queue_, 1, &si, fence);
    if (r == VK_SUCCESS) r = vkWaitForFences(device_, 1, &fence, VK_TRUE, UINT64_MAX);
    vkDestroyFence(device_, fence, nullptr);
    vkFreeCommandBuffers(device_, pool_, 1, &cmd);
    if (r != VK_SUCCESS) throw std::runtime_error(vkError("vkQueueSubmit/vkWaitForFences", r));
}

namespace {

void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
             VkAccessFlags dstAccess) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = srcAccess;
    mb.dstAccessMask = dstAccess;
    vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

}  // namespace

std::vector<std::byte> HostGpu::read(const HostBuffer& buffer, VkDeviceSize offset, VkDeviceSize bytes) {
    HostBuffer staging = createBuffer(bytes, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true, false);
    VkCommandBuffer cmd = beginOneTime();
    VkBufferCopy copy{offset, 0, bytes};
    vkCmdCopyBuffer(cmd, buffer.buffer, staging.buffer, 1, &copy);
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
            VK_ACCESS_HOST_READ_BIT);
    try {
        submitAndWait(cmd);
    } catch (...) {
        destroy(staging);
        throw;
    }
    std::vector<std::byte> out(bytes);
    std::memcpy(out.data(), staging.mapped, bytes);
    destroy(staging);
    return out;
}

void HostGpu::write(const HostBuffer& buffer, const void* data, VkDeviceSize bytes) {
    HostBuffer staging = createBuffer(bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true, false);
    std::memcpy(staging.mapped, data, bytes);
    VkCommandBuffer cmd = beginOneTime();
    // Earlier transfers of this device into the buffer (a previous write) come first.
    barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT);
    VkBufferCopy copy{0, 0, bytes};
    vkCmdCopyBuffer(cmd, staging.buffer, buffer.buffer, 1, &copy);
    try {
        submitAndWait(cmd);
    } catch (...) {
        destroy(staging);
        throw;
    }
    destroy(staging);
}

void HostGpu::destroy(HostBuffer& buffer) {
    if (buffer.buffer) vkDestroyBuffer(device_, buffer.buffer, nullptr);
    if (buffer.memory) vkFreeMemory(device_, buffer.memory, nullptr);  // closes an imported fd
    buffer = HostBuffer{};
}

VkSemaphore HostGpu::createExportableSemaphore(bool timeline) {
    VkExportSemaphoreCreateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    exportInfo.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.pNext = &exportInfo;
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo ci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    ci.pNext = timeline ? static_cast<void*>(&type) : static_cast<void*>(&exportInfo);
    VkSemaphore sem = VK_NULL_HANDLE;
    HOST_VK(vkCreateSemaphore(device_, &ci, nullptr, &sem));
    return sem;
}

int HostGpu::exportSemaphoreFd(VkSemaphore semaphore) {
    if (!getSemaphoreFd_) throw std::runtime_error("vkGetSemaphoreFdKHR is not available (VK_KHR_external_semaphore_fd)");
    VkSemaphoreGetFdInfoKHR gi{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
    gi.semaphore = semaphore;
    gi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    HOST_VK(getSemaphoreFd_(device_, &gi, &fd));
    return fd;
}

void HostGpu::signalFromHost(VkSemaphore timeline, uint64_t value) {
    VkSemaphoreSignalInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO};
    si.semaphore = timeline;
    si.value = value;
    HOST_VK(vkSignalSemaphore(device_, &si));
}

void HostGpu::signalOnQueue(VkSemaphore binary) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.signalSemaphoreCount = 1;
    si.pSignalSemaphores = &binary;
    HOST_VK(vkQueueSubmit(queue_, 1, &si, VK_NULL_HANDLE));
}

VkSemaphore HostGpu::importSemaphoreFd(int fd, bool timeline) {
    if (!importSemaphoreFd_)
        throw std::runtime_error("vkImportSemaphoreFdKHR is not available (VK_KHR_external_semaphore_fd)");
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkSemaphoreCreateInfo ci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    ci.pNext = timeline ? &type : nullptr;
    VkSemaphore sem = VK_NULL_HANDLE;
    HOST_VK(vkCreateSemaphore(device_, &ci, nullptr, &sem));
    VkImportSemaphoreFdInfoKHR ii{VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR};
    ii.semaphore = sem;
    ii.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    ii.fd = fd;
    VkResult r = importSemaphoreFd_(device_, &ii);
    if (r != VK_SUCCESS) {
        vkDestroySemaphore(device_, sem, nullptr);
        throw std::runtime_error(vkError("vkImportSemaphoreFdKHR", r));
    }
    return sem;
}

void HostGpu::waitBeforeNextSubmit(VkSemaphore semaphore, uint64_t value) { nextWaits_.emplace_back(semaphore, value); }

void HostGpu::destroy(VkSemaphore semaphore) {
    vkQueueWaitIdle(queue_);
    vkDestroySemaphore(device_, semaphore, nullptr);
}

uint64_t fnv1a64(const void* data, size_t bytes) {
    uint64_t h = 1469598103934665603ull;
    const auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

}  // namespace vkinfer::testing::shared
