#include "vk/device.h"

#include <vector>

#include "vk/check.h"
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
    timestampBits_ = families[queueFamily_].timestampValidBits;

    float priority = 1.0f;
    VkDeviceQueueCreateInfo queueInfo{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queueInfo.queueFamilyIndex = queueFamily_;
    queueInfo.queueCount = 1;
    queueInfo.pQueuePriorities = &priority;

    VkPhysicalDeviceVulkan11Features have11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features have12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 have{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    have.pNext = &have11;
    have11.pNext = &have12;
    vkGetPhysicalDeviceFeatures2(phys, &have);

    VkPhysicalDeviceVulkan11Features want11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features want12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 want{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    want.pNext = &want11;
    want11.pNext = &want12;
    want11.storageBuffer16BitAccess = have11.storageBuffer16BitAccess;
    want12.shaderFloat16 = have12.shaderFloat16;
    want12.shaderInt8 = have12.shaderInt8;
    want12.storageBuffer8BitAccess = have12.storageBuffer8BitAccess;
    want12.timelineSemaphore = have12.timelineSemaphore;
    want12.hostQueryReset = have12.hostQueryReset;
    want.features.shaderInt64 = have.features.shaderInt64;
    want.features.shaderInt16 = have.features.shaderInt16;

    std::vector<const char*> extensions;
    for (const char* ext : {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME,
                            VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME})
        if (hasDeviceExtension(phys, ext)) extensions.push_back(ext);

    VkDeviceCreateInfo info2{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    info2.pNext = &want;
    info2.queueCreateInfoCount = 1;
    info2.pQueueCreateInfos = &queueInfo;
    info2.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    info2.ppEnabledExtensionNames = extensions.data();
    VK_CHECK(vkCreateDevice(phys, &info2, nullptr, &device_));
    vkGetDeviceQueue(device_, queueFamily_, 0, &queue_);
    vkGetPhysicalDeviceMemoryProperties(phys, &memProps_);
}

Device::~Device() {
    if (device_) {
        vkDeviceWaitIdle(device_);
        vkDestroyDevice(device_, nullptr);
    }
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

Buffer::Buffer(const Device& device, VkDeviceSize size, VkBufferUsageFlags usage, MemoryUse use, const char* what)
    : device_(device.handle()), size_(size) {
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = size > 0 ? size : 4;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VK_CHECK(vkCreateBuffer(device_, &info, nullptr, &buffer_));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device_, buffer_, &req);
    VkMemoryPropertyFlags required = 0, preferred = 0;
    switch (use) {
        case MemoryUse::DeviceLocal: preferred = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT; break;
        case MemoryUse::Upload:
            required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
            break;
        case MemoryUse::Readback:
            required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
            preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
            break;
    }
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = device.findMemoryType(req.memoryTypeBits, required, preferred);
    VkResult r = vkAllocateMemory(device_, &alloc, nullptr, &memory_);
    if (r != VK_SUCCESS) {
        release();
        throw Error(Status(ErrorCode::VulkanError,
                           fmt::format("vkAllocateMemory of {} bytes for {} returned {}", req.size, what, resultName(r)),
                           static_cast<int32_t>(r)));
    }
    VK_CHECK(vkBindBufferMemory(device_, buffer_, memory_, 0));
    if (use != MemoryUse::DeviceLocal) VK_CHECK(vkMapMemory(device_, memory_, 0, VK_WHOLE_SIZE, 0, &mapped_));
}

void Buffer::release() {
    if (!device_) return;
    if (buffer_) vkDestroyBuffer(device_, buffer_, nullptr);
    if (memory_) vkFreeMemory(device_, memory_, nullptr);  // unmaps implicitly
    buffer_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
    mapped_ = nullptr;
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& o) noexcept
    : device_(o.device_), buffer_(o.buffer_), memory_(o.memory_), size_(o.size_), mapped_(o.mapped_) {
    o.buffer_ = VK_NULL_HANDLE;
    o.memory_ = VK_NULL_HANDLE;
    o.mapped_ = nullptr;
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
    if (this != &o) {
        release();
        device_ = o.device_;
        buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
        memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
        mapped_ = std::exchange(o.mapped_, nullptr);
        size_ = o.size_;
    }
    return *this;
}

}  // namespace vkinfer::vk
