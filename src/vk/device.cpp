#include "vk/device.h"

#include <unistd.h>

#include <vector>

#include "vk/check.h"
#include "vk/features.h"
#include "vk/instance.h"

namespace vkinfer::vk {

Device::Device(VkPhysicalDevice phys, const DeviceInfo& info) : phys_(phys), info_(info) {
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, nullptr);
    std::vector<VkQueueFamilyProperties> families(nq);
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, families.data());
    // Prefer a compute family without graphics (an async-compute queue), else any compute one.
    int chosen = -1;
    for (uint32_t i = 0; i < nq; ++i) {
        bool compute = families[i].queueFlags & VK_QUEUE_COMPUTE_BIT;
        if (!compute) continue;
        if (chosen < 0) chosen = static_cast<int>(i);
        if (!(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) && families[i].timestampValidBits > 0) {
            chosen = static_cast<int>(i);
            break;
        }
    }
    if (chosen < 0) fail(ErrorCode::Unsupported, "device '{}' has no compute queue", info.name);
    queueFamily_ = static_cast<uint32_t>(chosen);

    float priority = 1.0f;
    VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queueInfo.queueFamilyIndex = queueFamily_;
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority;

    FeatureChain have = FeatureChain::supported(phys);
    FeatureChain want;
    want.v11.storageBuffer16BitAccess = have.v11.storageBuffer16BitAccess;
    want.v12.shaderFloat16 = have.v12.shaderFloat16;
    want.v12.shaderInt8 = have.v12.shaderInt8;
    want.v12.storageBuffer8BitAccess = have.v12.storageBuffer8BitAccess;
    want.v12.timelineSemaphore = have.v12.timelineSemaphore;
    want.v12.hostQueryReset = have.v12.hostQueryReset;
    want.core.features.shaderInt64 = have.core.features.shaderInt64;
    want.core.features.shaderInt16 = have.core.features.shaderInt16;
    want.core.features.shaderStorageImageWriteWithoutFormat = have.core.features.shaderStorageImageWriteWithoutFormat;

    std::vector<const char*> extensions;
    for (const char* ext : {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME,
                            VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME})
        if (hasDeviceExtension(phys, ext)) extensions.push_back(ext);

    VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    ci.pNext = &want.core;
    ci.queueCreateInfoCount = 1;
    ci.pQueueCreateInfos = &queueInfo;
    ci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    ci.ppEnabledExtensionNames = extensions.data();
    VK_CHECK(vkCreateDevice(phys, &ci, nullptr, &device_));
    vkGetDeviceQueue(device_, queueFamily_, 0, &queue_);

    enabled_.timelineSemaphore = want.v12.timelineSemaphore;
    enabled_.storage16Bit = want.v11.storageBuffer16BitAccess;
    enabled_.float16 = want.v12.shaderFloat16;
    enabled_.storage8Bit = want.v12.storageBuffer8BitAccess;
    enabled_.int8 = want.v12.shaderInt8;
    enabled_.int64 = want.core.features.shaderInt64;
    enabled_.storageImageWriteWithoutFormat = want.core.features.shaderStorageImageWriteWithoutFormat;
    for (const char* ext : extensions) {
        std::string e = ext;
        enabled_.externalMemoryFd |= e == VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME;
        enabled_.externalSemaphoreFd |= e == VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME;
        enabled_.dmaBuf |= e == VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME;
    }
    readFamilyAndMemory();
}

Device::Device(const AdoptedDevice& host, const DeviceInfo& info)
    : phys_(host.physical), info_(info), device_(host.device), queue_(host.queue), queueFamily_(host.queueFamily),
      owned_(false), enabled_(host.enabled) {
    readFamilyAndMemory();
}

void Device::readFamilyAndMemory() {
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(phys_, &nq, nullptr);
    std::vector<VkQueueFamilyProperties> families(nq);
    vkGetPhysicalDeviceQueueFamilyProperties(phys_, &nq, families.data());
    if (queueFamily_ >= nq) fail(ErrorCode::InvalidArgument, "queue family {} does not exist ({} families)", queueFamily_, nq);
    if (!(families[queueFamily_].queueFlags & VK_QUEUE_COMPUTE_BIT))
        fail(ErrorCode::Unsupported, "queue family {} of '{}' does not support compute", queueFamily_, info_.name);
    timestampBits_ = families[queueFamily_].timestampValidBits;
    vkGetPhysicalDeviceMemoryProperties(phys_, &memProps_);
}

Device::~Device() {
    if (device_ && owned_) {
        vkDeviceWaitIdle(device_);
        vkDestroyDevice(device_, nullptr);
    }
}

VkQueue Device::queueFor(const char* what) const {
    if (!queue_)
        fail(ErrorCode::InvalidArgument, "{} submits work, but the host device was wrapped without a queue "
                                         "(HostDevice::queue); record into the host's command buffer instead",
             what);
    return queue_;
}

void Device::require(bool isEnabled, const char* feature, const std::string& what) const {
    if (!isEnabled)
        fail(ErrorCode::Unsupported, "{} is not enabled on device '{}' (needed for {}){}", feature, info_.name, what,
             owned_ ? "" : ": enable it when creating the host device");
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

void throwAllocation(VkResult r, VkDeviceSize bytes, const char* what) {
    throw Error(Status(ErrorCode::VulkanError,
                       fmt::format("vkAllocateMemory of {} bytes for {} returned {}", bytes, what, resultName(r)),
                       static_cast<int32_t>(r)));
}

}  // namespace

Buffer::Buffer(const Device& device, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUse use, const char* what,
               VkExternalMemoryHandleTypeFlags exportTypes)
    : device_(device.handle()), size_(size), exportTypes_(exportTypes) {
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = exportTypes;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.pNext = exportTypes ? &external : nullptr;
    info.size = size > 0 ? size : 4;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VK_CHECK(vkCreateBuffer(device_, &info, nullptr, &buffer_));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device_, buffer_, &req);
    memoryTypeBits_ = req.memoryTypeBits;

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
    alloc.memoryTypeIndex = device.findMemoryType(req.memoryTypeBits, requiredFlags(use), preferredFlags(use));
    VkResult r = vkAllocateMemory(device_, &alloc, nullptr, &memory_);
    if (r != VK_SUCCESS) {
        release();
        throwAllocation(r, req.size, what);
    }
    allocationSize_ = req.size;
    memoryTypeIndex_ = alloc.memoryTypeIndex;
    VK_CHECK(vkBindBufferMemory(device_, buffer_, memory_, 0));
    if (use != MemoryUse::DeviceLocal) VK_CHECK(vkMapMemory(device_, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_));
}

Buffer Buffer::imported(const Device& device, VkDeviceSize size, VkBufferUsageFlags usage, int fd,
                        VkExternalMemoryHandleTypeFlagBits type, VkDeviceSize allocationSize, VkDeviceSize offset,
                        bool dedicated, const char* what, int32_t memoryTypeIndex) {
    Buffer b;
    b.device_ = device.handle();
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
    if (r != VK_SUCCESS) throwAllocation(r, allocationSize, what);  // fd still the caller's
    b.allocationSize_ = allocationSize;
    b.memoryTypeBits_ = req.memoryTypeBits;
    b.memoryTypeIndex_ = alloc.memoryTypeIndex;
    VK_CHECK(vkBindBufferMemory(b.device_, b.buffer_, b.memory_, offset));
    return b;
}

void Buffer::release() {
    if (!device_) return;
    if (buffer_) vkDestroyBuffer(device_, buffer_, nullptr);
    if (memory_) vkFreeMemory(device_, memory_, nullptr);  // unmaps implicitly; closes an imported fd
    buffer_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
    mapped_ = nullptr;
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& o) noexcept
    : device_(o.device_), buffer_(std::exchange(o.buffer_, VK_NULL_HANDLE)),
      memory_(std::exchange(o.memory_, VK_NULL_HANDLE)), size_(o.size_), allocationSize_(o.allocationSize_),
      memoryTypeBits_(o.memoryTypeBits_), memoryTypeIndex_(o.memoryTypeIndex_), exportTypes_(o.exportTypes_),
      mapped_(std::exchange(o.mapped_, nullptr)) {}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
    if (this != &o) {
        release();
        device_ = o.device_;
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
