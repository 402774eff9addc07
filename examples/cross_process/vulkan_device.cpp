#include "vulkan_device.h"

#include "timeline_fd.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace vkinfer::crossprocess {
namespace {

void check(VkResult r, const char* what) {
    if (r != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed: VkResult " + std::to_string(int(r)));
}

int gValidationMessages = 0;

VKAPI_ATTR VkBool32 VKAPI_CALL onValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
    ++gValidationMessages;
    std::fprintf(stderr, "validation: %s\n", data && data->pMessage ? data->pMessage : "");
    return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT messengerInfo() {
    VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    info.pfnUserCallback = onValidationMessage;
    return info;
}

bool offers(VkPhysicalDevice physical, const char* extension) {
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> all(n);
    vkEnumerateDeviceExtensionProperties(physical, nullptr, &n, all.data());
    return std::any_of(all.begin(), all.end(), [&](const auto& e) { return std::strcmp(e.extensionName, extension) == 0; });
}

}  // namespace

int VulkanDevice::validationMessages() { return gValidationMessages; }

VulkanDevice::VulkanDevice(const char* applicationName, bool validate, const uint8_t* wantedUuid) {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = applicationName;
    app.apiVersion = VK_API_VERSION_1_2;  // vkinfer needs 1.2; timeline semaphores are core there
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    const char* layers[] = {"VK_LAYER_KHRONOS_validation"};
    const char* extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    VkDebugUtilsMessengerCreateInfoEXT creationMessenger = messengerInfo();
    if (validate) {
        ici.enabledLayerCount = 1;
        ici.ppEnabledLayerNames = layers;
        ici.enabledExtensionCount = 2;
        ici.ppEnabledExtensionNames = extensions;
        features.enabledValidationFeatureCount = 1;
        features.pEnabledValidationFeatures = enables;
        features.pNext = &creationMessenger;  // sees instance creation and destruction
        ici.pNext = &features;
    }
    check(vkCreateInstance(&ici, nullptr, &instance), "vkCreateInstance");
    if (validate) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
        if (!create) throw std::runtime_error("vkCreateDebugUtilsMessengerEXT is missing");
        VkDebugUtilsMessengerCreateInfoEXT mi = messengerInfo();
        check(create(instance, &mi, nullptr, &messenger_), "vkCreateDebugUtilsMessengerEXT");
    }

    // Processes share memory only on the same physical device: matched by deviceUUID.
    uint32_t n = 0;
    check(vkEnumeratePhysicalDevices(instance, &n, nullptr), "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> devices(n);
    check(vkEnumeratePhysicalDevices(instance, &n, devices.data()), "vkEnumeratePhysicalDevices");
    for (VkPhysicalDevice d : devices) {
        VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        props.pNext = &ids;
        vkGetPhysicalDeviceProperties2(d, &props);
        if (wantedUuid && std::memcmp(ids.deviceUUID, wantedUuid, VK_UUID_SIZE) != 0) continue;
        uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(d, &nq, nullptr);
        std::vector<VkQueueFamilyProperties> families(nq);
        vkGetPhysicalDeviceQueueFamilyProperties(d, &nq, families.data());
        const VkQueueFlags universal = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
        for (uint32_t f = 0; f < nq && !physical; ++f)
            if ((families[f].queueFlags & universal) == universal) {
                physical = d;
                family = f;
                name = props.properties.deviceName;
                std::memcpy(uuid.data(), ids.deviceUUID, VK_UUID_SIZE);
            }
        if (physical) break;
    }
    if (!physical)
        throw std::runtime_error(wantedUuid ? "no Vulkan device here has the other process's device UUID"
                                            : "no Vulkan device with a graphics + compute queue");

    // vkinfer's features and extensions (queryDeviceRequirements lists the external-memory and
    // external-semaphore fd extensions among them where offered), plus timeline semaphores.
    // Under validation, what the installed layer knows (Debian 12's predates
    // VK_KHR_cooperative_matrix).
    auto req = queryDeviceRequirements(physical, {.validationLayerEnabled = validate});
    if (!req.ok()) throw std::runtime_error(req.status().toString());
    requirements_ = std::make_unique<DeviceRequirements>(std::move(req).value());
    VkPhysicalDeviceVulkan12Features have12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 have{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    have.pNext = &have12;
    vkGetPhysicalDeviceFeatures2(physical, &have);
    requirements_->features12().timelineSemaphore = have12.timelineSemaphore;
    timeline_ = have12.timelineSemaphore == VK_TRUE;
    extensions_ = requirements_->extensions();
    if (!offers(physical, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
        throw std::runtime_error("'" + name + "' cannot share memory by fd (no VK_KHR_external_memory_fd)");
    for (const char* e : {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME})
        if (offers(physical, e) && std::find(extensions_.begin(), extensions_.end(), e) == extensions_.end())
            extensions_.push_back(e);
    semaphoreFd_ = std::find(extensions_.begin(), extensions_.end(), VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME) !=
                   extensions_.end();
    for (const auto& e : extensions_) extensionNames_.push_back(e.c_str());

    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = requirements_->featureChain();
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qi;
    dci.enabledExtensionCount = static_cast<uint32_t>(extensionNames_.size());
    dci.ppEnabledExtensionNames = extensionNames_.data();
    check(vkCreateDevice(physical, &dci, nullptr, &device), "vkCreateDevice");
    vkGetDeviceQueue(device, family, 0, &queue);
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;  // command buffers re-recorded each frame
    pci.queueFamilyIndex = family;
    check(vkCreateCommandPool(device, &pci, nullptr, &pool_), "vkCreateCommandPool");
}

VulkanDevice::~VulkanDevice() {
    if (device) {
        vkDeviceWaitIdle(device);
        for (VkFence f : fences_) vkDestroyFence(device, f, nullptr);
        for (VkSemaphore s : semaphores_) vkDestroySemaphore(device, s, nullptr);
        for (const HostBuffer& b : buffers_) {
            vkDestroyBuffer(device, b.buffer, nullptr);
            vkFreeMemory(device, b.memory, nullptr);
        }
        vkDestroyCommandPool(device, pool_, nullptr);
        vkDestroyDevice(device, nullptr);
    }
    if (messenger_) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance, messenger_, nullptr);
    }
    if (instance) vkDestroyInstance(instance, nullptr);
}

HostDevice VulkanDevice::hostDevice() const {
    HostDevice h;
    h.instance = instance;
    h.physicalDevice = physical;
    h.device = device;
    h.queueFamilyIndex = family;
    h.queue = queue;  // Session::run on this device (the renderer's reference) submits here
    h.apiVersion = VK_API_VERSION_1_2;
    h.enabledExtensions = extensions_;
    h.enabledFeatureChain = requirements_->featureChain();
    return h;
}

VkCommandBuffer VulkanDevice::allocateCommandBuffer() {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    check(vkAllocateCommandBuffers(device, &ai, &cmd), "vkAllocateCommandBuffers");
    return cmd;  // freed with the pool
}

VkFence VulkanDevice::createFence() {
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence f = VK_NULL_HANDLE;
    check(vkCreateFence(device, &fi, nullptr, &f), "vkCreateFence");
    fences_.push_back(f);
    return f;
}

void VulkanDevice::submit(VkCommandBuffer cmd, VkFence fence, VkSemaphore waitSemaphore, uint64_t waitValue,
                          VkSemaphore signalSemaphore, uint64_t signalValue) {
    submitWithTimelines(queue, cmd, fence, waitSemaphore, waitValue, signalSemaphore, signalValue);
}

void VulkanDevice::waitAndReset(VkFence fence) {
    // Bounded: on the semaphore path this process's work may wait for the other process's
    // signal, which never comes if that process died before its GPU work ran.
    VkResult r = vkWaitForFences(device, 1, &fence, VK_TRUE, 30ull * 1000 * 1000 * 1000);
    if (r == VK_TIMEOUT)
        throw std::runtime_error("this process's GPU work did not finish within 30 s (waiting for the other "
                                 "process's semaphore?)");
    check(r, "vkWaitForFences");
    check(vkResetFences(device, 1, &fence), "vkResetFences");
}

VkSemaphore VulkanDevice::createExportableTimeline() {
    semaphores_.push_back(crossprocess::createExportableTimeline(device));
    return semaphores_.back();
}

int VulkanDevice::exportSemaphore(VkSemaphore semaphore) { return exportSemaphoreFd(device, semaphore); }

VkSemaphore VulkanDevice::importTimeline(int fd) {
    semaphores_.push_back(importTimelineFd(device, fd));
    return semaphores_.back();
}

VulkanDevice::HostBuffer VulkanDevice::createReadbackBuffer(VkDeviceSize bytes) {
    HostBuffer b;
    VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    ci.size = bytes;
    ci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    check(vkCreateBuffer(device, &ci, nullptr, &b.buffer), "vkCreateBuffer");
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, b.buffer, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(physical, &mp);
    const VkMemoryPropertyFlags flags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; ++i)
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & flags) == flags) type = i;
    if (type == UINT32_MAX) throw std::runtime_error("no host-visible memory type");
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = type;
    check(vkAllocateMemory(device, &ai, nullptr, &b.memory), "vkAllocateMemory");
    check(vkBindBufferMemory(device, b.buffer, b.memory, 0), "vkBindBufferMemory");
    check(vkMapMemory(device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped), "vkMapMemory");
    buffers_.push_back(b);
    return b;
}

}  // namespace vkinfer::crossprocess
