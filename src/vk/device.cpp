#include "vk/device.h"

#include <unistd.h>

#include <vector>

#include "vk/check.h"
#include "vk/device_requirements.h"
#include "vk/fault_injection.h"
#include "vk/instance.h"
#include "vk/queue_choice.h"

namespace vkinfer::vk {

std::vector<QueueFamilyInfo> readQueueFamilies(VkPhysicalDevice phys) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, nullptr);
    std::vector<VkQueueFamilyProperties> props(n);
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &n, props.data());
    std::vector<QueueFamilyInfo> families;
    for (const auto& p : props)
        families.push_back({(p.queueFlags & VK_QUEUE_GRAPHICS_BIT) != 0, (p.queueFlags & VK_QUEUE_COMPUTE_BIT) != 0,
                            (p.queueFlags & VK_QUEUE_TRANSFER_BIT) != 0, p.queueCount, p.timestampValidBits});
    return families;
}

VkQueue DeviceQueue::submitHandle(const char* what) const {
    if (!handle)
        fail(ErrorCode::InvalidArgument, "{} submits work, but the host device was wrapped without a queue for {} "
                                         "(HostDevice::queue / computeQueue); record into the host's command buffer "
                                         "instead",
             what, info.description);
    return handle;
}

namespace {

// The queue roles of a device: `info` from the queue choice, the handle, its family's
// timestamp bits, and one lock per distinct VkQueue.
void setQueues(DeviceQueue& main, DeviceQueue& async, const std::vector<QueueFamilyInfo>& families,
               const QueueAssignment& roles, VkQueue mainHandle, VkQueue asyncHandle) {
    main.info = roles.context;
    async.info = roles.async;
    main.family = roles.context.family;
    async.family = roles.async.family;
    main.handle = mainHandle;
    async.handle = asyncHandle;
    main.timestampBits = families[main.family].timestampValidBits;
    async.timestampBits = families[async.family].timestampValidBits;
    main.lock = std::make_shared<std::mutex>();
    async.lock = asyncHandle && asyncHandle == mainHandle ? main.lock : std::make_shared<std::mutex>();
}

}  // namespace

Device::Device(VkPhysicalDevice phys, const DeviceInfo& info, bool khrCooperativeMatrix) : phys_(phys), info_(info) {
    const std::vector<QueueFamilyInfo> families = readQueueFamilies(phys);
    const ContextQueuePlan queues = chooseContextQueues(families, info.name);

    float priority = 1.0f;
    std::vector<VkDeviceQueueCreateInfo> queueInfos;
    for (uint32_t family : {queues.main, queues.async.value_or(queues.main)}) {
        if (!queueInfos.empty() && queueInfos[0].queueFamilyIndex == family) continue;
        VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        qi.queueFamilyIndex = family;
        qi.queueCount = 1;
        qi.pQueuePriorities = &priority;
        queueInfos.push_back(qi);
    }

    EnablePlan plan = planDeviceFeatures(phys, khrCooperativeMatrix);
    std::vector<const char*> extensions;
    for (const auto& e : plan.extensions) extensions.push_back(e.c_str());

    VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    ci.pNext = &plan.chain->core;
    ci.queueCreateInfoCount = static_cast<uint32_t>(queueInfos.size());
    ci.pQueueCreateInfos = queueInfos.data();
    ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    ci.ppEnabledExtensionNames = extensions.data();
    VK_CHECK(vkCreateDevice(phys, &ci, nullptr, &device_));
    VkQueue mainQueue = VK_NULL_HANDLE, asyncQueue = VK_NULL_HANDLE;
    vkGetDeviceQueue(device_, queues.main, 0, &mainQueue);
    vkGetDeviceQueue(device_, queues.async.value_or(queues.main), 0, &asyncQueue);
    setQueues(main_, async_, families, assignContextQueues(families, queues, info.name), mainQueue, asyncQueue);

    enabled_.features = plan.features;
    enabled_.timelineSemaphore = plan.timelineSemaphore;
    for (const auto& e : plan.extensions) {
        enabled_.externalMemoryFd |= e == VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
        enabled_.externalSemaphoreFd |= e == VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
        enabled_.dmaBuf |= e == VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME;
        enabled_.externalFenceFd |= e == VK_KHR_EXTERNAL_FENCE_FD_EXTENSION_NAME;
    }
    readMemoryAndLimits();
}

Device::Device(const AdoptedDevice& host, const DeviceInfo& info)
    : phys_(host.physical), info_(info), device_(host.device), owned_(false), enabled_(host.enabled) {
    const std::vector<QueueFamilyInfo> families = readQueueFamilies(phys_);
    const bool sameQueue = host.computeQueue && host.computeQueue == host.queue;
    setQueues(main_, async_, families,
              assignHostQueues(families, host.queueFamily, host.computeFamily, sameQueue, info.name), host.queue,
              host.computeFamily ? host.computeQueue : host.queue);
    readMemoryAndLimits();
}

void Device::readMemoryAndLimits() {
    supported_ = planDeviceFeatures(phys_).supported;
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &subgroup;
    vkGetPhysicalDeviceProperties2(phys_, &props);
    subgroupOps_ = (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ? subgroup.supportedOperations : 0;
    VkPhysicalDeviceMaintenance3Properties m3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
    VkPhysicalDeviceProperties2 p3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p3.pNext = &m3;
    vkGetPhysicalDeviceProperties2(phys_, &p3);
    maxAllocation_ = m3.maxMemoryAllocationSize;
    vkGetPhysicalDeviceMemoryProperties(phys_, &memProps_);
}

Device::~Device() {
    if (device_ && owned_) {
        vkDeviceWaitIdle(device_);
        vkDestroyDevice(device_, nullptr);
    }
}

void Device::require(bool isEnabled, const char* feature, const std::string& what) const {
    if (!isEnabled)
        fail(ErrorCode::Unsupported, "{} is not enabled on device '{}' (needed for {}){}", feature, info_.name, what,
             owned_ ? "" : ": enable it when creating the host device (vkinfer::queryDeviceRequirements lists what to "
                           "enable)");
}

void Device::require(Feature f, const std::string& what) const {
    if (enabled_.has(f)) return;
    if (!supported_.has(f))
        fail(ErrorCode::Unsupported, "device '{}' does not offer {}, needed for {}", info_.name, describeFeature(f), what);
    require(false, describeFeature(f).c_str(), what);
}

uint32_t Device::findMemoryType(uint32_t typeBits, VkMemoryPropertyFlags required,
                                VkMemoryPropertyFlags preferred) const {
    int fallback = -1;
    for (uint32_t i = 0; i < memProps_.memoryTypeCount; ++i) {
        if (!(typeBits & (1u << i))) continue;
        VkMemoryPropertyFlags f = memProps_.memoryTypes[i].propertyFlags;
        if ((f & required) != required) continue;
        if ((f & preferred) == preferred) return i;
        if (fallback < 0) fallback = static_cast<int>(i);
    }
    if (fallback < 0) fail(ErrorCode::Unsupported, "device '{}' has no memory type with flags {:#x}", info_.name, required);
    return static_cast<uint32_t>(fallback);
}

namespace {

VkMemoryPropertyFlags requiredFlags(MemoryUse use) {
    return use == MemoryUse::DeviceLocal ? 0 : VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
}

VkMemoryPropertyFlags preferredFlags(MemoryUse use) {
    switch (use) {
        case MemoryUse::DeviceLocal: return VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
        case MemoryUse::Upload: return 0;
        case MemoryUse::Readback: return VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    }
    return 0;
}

// Out-of-memory results become ErrorCode::OutOfMemory (the VkResult kept): the caller can
// retry smaller; other failures stay VulkanError.
[[noreturn]] void throwAllocation(VkResult r, const char* call, VkDeviceSize bytes, const char* what) {
    bool oom = r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY;
    throw Error(Status(oom ? ErrorCode::OutOfMemory : ErrorCode::VulkanError,
                       fmt::format("{} of {} bytes for {} returned {}", call, bytes, what, resultName(r)),
                       static_cast<int32_t>(r)));
}

}  // namespace

void MemoryCounters::add(MemoryKind kind, uint64_t bytes) {
    auto k = static_cast<size_t>(kind);
    uint64_t now = current_[k] += bytes;
    for (uint64_t p = peak_[k].load(); now > p && !peak_[k].compare_exchange_weak(p, now);) {
    }
    uint64_t total = total_ += bytes;
    for (uint64_t p = peakTotal_.load(); total > p && !peakTotal_.compare_exchange_weak(p, total);) {
    }
}

void MemoryCounters::remove(MemoryKind kind, uint64_t bytes) {
    current_[static_cast<size_t>(kind)] -= bytes;
    total_ -= bytes;
}

void MemoryCounters::resetPeaks() {
    for (size_t k = 0; k < kMemoryKinds; ++k) peak_[k] = current_[k].load();
    peakTotal_ = total_.load();
}

Buffer::Buffer(const Device& device, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUse use, const char* what,
               MemoryKind kind, VkExternalMemoryHandleTypeFlags exportTypes)
    : device_(device.handle()), kind_(kind), size_(size), exportTypes_(exportTypes) {
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = exportTypes;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.pNext = exportTypes ? &external : nullptr;
    info.size = size > 0 ? size : 4;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult created = vkCreateBuffer(device_, &info, nullptr, &buffer_);
    if (created != VK_SUCCESS) {
        buffer_ = VK_NULL_HANDLE;
        throwAllocation(created, "vkCreateBuffer", info.size, what);
    }
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device_, buffer_, &req);
    memoryTypeBits_ = req.memoryTypeBits;
    if (device.maxAllocationBytes() && req.size > device.maxAllocationBytes()) {
        release();
        throw Error(Status(ErrorCode::OutOfMemory,
                           fmt::format("{} needs {} bytes in one allocation; device '{}' allows at most {} "
                                       "(maxMemoryAllocationSize)",
                                       what, req.size, device.info().name, device.maxAllocationBytes()),
                           static_cast<int32_t>(VK_ERROR_OUT_OF_DEVICE_MEMORY)));
    }

    // Exported memory is a dedicated allocation: importers (another VkDevice, CUDA) then
    // get exactly this buffer's memory, and may require dedication anyway.
    VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    dedicated.buffer = buffer_;
    VkExportMemoryAllocateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    exportInfo.pNext = &dedicated;
    exportInfo.handleTypes = exportTypes;
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.pNext = exportTypes ? &exportInfo : nullptr;
    alloc.allocationSize = req.size;
    try {
        alloc.memoryTypeIndex = device.findMemoryType(req.memoryTypeBits, requiredFlags(use), preferredFlags(use));
    } catch (...) {
        release();
        throw;
    }
    VkResult r = injectedResult("vkAllocateMemory");
    if (r == VK_SUCCESS) r = vkAllocateMemory(device_, &alloc, nullptr, &memory_);
    if (r != VK_SUCCESS) {
        memory_ = VK_NULL_HANDLE;
        release();
        throwAllocation(r, "vkAllocateMemory", req.size, what);
    }
    allocationSize_ = req.size;
    memoryTypeIndex_ = alloc.memoryTypeIndex;
    counters_ = &device.memory();
    counters_->add(kind_, allocationSize_);
    // A constructor that throws runs no destructor: release before reporting.
    VkResult r2 = vkBindBufferMemory(device_, buffer_, memory_, 0);
    if (r2 != VK_SUCCESS) {
        release();
        throwAllocation(r2, "vkBindBufferMemory", req.size, what);
    }
    if (use != MemoryUse::DeviceLocal) {
        r2 = vkMapMemory(device_, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_);
        if (r2 != VK_SUCCESS) {
            release();
            throwAllocation(r2, "vkMapMemory", req.size, what);
        }
    }
}

Buffer Buffer::imported(const Device& device, VkDeviceSize size, VkBufferUsageFlags usage, int fd,
                        VkExternalMemoryHandleTypeFlagBits type, VkDeviceSize allocationSize, VkDeviceSize offset,
                        bool dedicated, const char* what, int32_t memoryTypeIndex, MemoryKind kind) {
    Buffer b;
    b.device_ = device.handle();
    b.kind_ = kind;
    b.size_ = size;
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = type;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.pNext = &external;
    info.size = size > 0 ? size : 4;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VK_CHECK(vkCreateBuffer(b.device_, &info, nullptr, &b.buffer_));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(b.device_, b.buffer_, &req);
    if (offset % req.alignment != 0 || offset + req.size > allocationSize)
        fail(ErrorCode::InvalidArgument, "{}: imported memory of {} bytes cannot hold {} bytes at offset {} (alignment {})",
             what, allocationSize, req.size, offset, req.alignment);

    auto getProps = reinterpret_cast<PFN_vkGetMemoryFdPropertiesKHR>(
        vkGetDeviceProcAddr(b.device_, "vkGetMemoryFdPropertiesKHR"));
    uint32_t typeBits = req.memoryTypeBits;
    if (type == VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT && getProps) {
        VkMemoryFdPropertiesKHR props{VK_STRUCTURE_TYPE_MEMORY_FD_PROPERTIES_KHR};
        VK_CHECK(getProps(b.device_, type, fd, &props));
        typeBits &= props.memoryTypeBits;
    }
    VkMemoryDedicatedAllocateInfo ded{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    ded.buffer = b.buffer_;
    VkImportMemoryFdInfoKHR import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR};
    import.pNext = dedicated && offset == 0 ? &ded : nullptr;
    import.handleType = type;
    import.fd = fd;
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.pNext = &import;
    alloc.allocationSize = allocationSize;
    // An opaque fd made by another VkDevice must be imported with the exporter's memory
    // type (Vulkan's rule: allocationSize and memoryTypeIndex must match the export).
    if (memoryTypeIndex >= 0) {
        if (memoryTypeIndex >= 32 || !(typeBits & (1u << memoryTypeIndex)))
            fail(ErrorCode::InvalidArgument, "{}: memory type {} cannot back this buffer (allowed types: {:#x})", what,
                 memoryTypeIndex, typeBits);
        alloc.memoryTypeIndex = static_cast<uint32_t>(memoryTypeIndex);
    } else {
        alloc.memoryTypeIndex = device.findMemoryType(typeBits, 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    }
    VkResult r = vkAllocateMemory(b.device_, &alloc, nullptr, &b.memory_);
    if (r != VK_SUCCESS) throwAllocation(r, "vkAllocateMemory", allocationSize, what);  // fd still the caller's
    b.allocationSize_ = allocationSize;
    b.counters_ = &device.memory();
    b.counters_->add(kind, allocationSize);
    b.memoryTypeBits_ = req.memoryTypeBits;
    b.memoryTypeIndex_ = alloc.memoryTypeIndex;
    VK_CHECK(vkBindBufferMemory(b.device_, b.buffer_, b.memory_, offset));
    return b;
}

void Buffer::release() {
    if (!device_) return;
    if (buffer_) vkDestroyBuffer(device_, buffer_, nullptr);
    if (memory_) vkFreeMemory(device_, memory_, nullptr);  // unmaps implicitly; closes an imported fd
    if (counters_) counters_->remove(kind_, allocationSize_);
    counters_ = nullptr;
    buffer_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
    mapped_ = nullptr;
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& o) noexcept
    : device_(o.device_), counters_(std::exchange(o.counters_, nullptr)), kind_(o.kind_),
      buffer_(std::exchange(o.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(o.memory_, VK_NULL_HANDLE)), size_(o.size_), allocationSize_(o.allocationSize_),
      memoryTypeBits_(o.memoryTypeBits_), memoryTypeIndex_(o.memoryTypeIndex_), exportTypes_(o.exportTypes_),
      mapped_(std::exchange(o.mapped_, nullptr)) {}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
    if (this != &o) {
        release();
        device_ = o.device_;
        counters_ = std::exchange(o.counters_, nullptr);
        kind_ = o.kind_;
        buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
        memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
        mapped_ = std::exchange(o.mapped_, nullptr);
        size_ = o.size_;
        allocationSize_ = o.allocationSize_;
        memoryTypeBits_ = o.memoryTypeBits_;
        memoryTypeIndex_ = o.memoryTypeIndex_;
        exportTypes_ = o.exportTypes_;
    }
    return *this;
}

}  // namespace vkinfer::vk
