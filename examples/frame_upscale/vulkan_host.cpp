#include "vulkan_host.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "vk_util.h"

namespace demo {

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                         VkDebugUtilsMessageTypeFlagsEXT,
                                         const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    std::string text = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "[error] " : "[warning] ";
    text += data && data->pMessage ? data->pMessage : "";
    static_cast<MessageLog*>(user)->add(std::move(text));
    return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT messengerInfo(MessageLog* log) {
    VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    info.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    info.pfnUserCallback = onMessage;
    info.pUserData = log;
    return info;
}

bool hasInstanceLayer(const char* name) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> layers(n);
    vkEnumerateInstanceLayerProperties(&n, layers.data());
    return std::any_of(layers.begin(), layers.end(),
                       [&](const auto& l) { return std::strcmp(l.layerName, name) == 0; });
}

bool graphicsComputeFamily(VkPhysicalDevice d, uint32_t* family) {
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(d, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vkGetPhysicalDeviceQueueFamilyProperties(d, &n, families.data());
    constexpr VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
    for (uint32_t f = 0; f < n; ++f)
        if ((families[f].queueFlags & need) == need) {
            *family = f;
            return true;
        }
    return false;
}

}  // namespace

void MessageLog::add(std::string message) {
    std::fprintf(stderr, "validation: %s\n", message.c_str());
    std::lock_guard<std::mutex> lock(mutex_);
    messages_.push_back(std::move(message));
}

std::vector<std::string> MessageLog::messages() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return messages_;
}

VulkanHost::VulkanHost(bool validate, int deviceIndex) : validation(validate) {
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vkinfer_demo";
    app.apiVersion = VK_API_VERSION_1_2;  // vkinfer needs 1.2 (and HostDevice::apiVersion says so)
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    const char* layers[] = {kValidationLayer};
    const char* instanceExtensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    VkDebugUtilsMessengerCreateInfoEXT creation = messengerInfo(log_.get());
    if (validate) {
        if (!hasInstanceLayer(kValidationLayer))
            throw DemoError(
                "--validate (or VKINFER_VALIDATE=1) needs VK_LAYER_KHRONOS_validation, which is not installed");
        ici.enabledLayerCount = 1;
        ici.ppEnabledLayerNames = layers;
        ici.enabledExtensionCount = 2;
        ici.ppEnabledExtensionNames = instanceExtensions;
        features.enabledValidationFeatureCount = 1;
        features.pEnabledValidationFeatures = enables;
        features.pNext = &creation;  // sees instance creation and destruction too
        ici.pNext = &features;
    }
    DEMO_VK(vkCreateInstance(&ici, nullptr, &instance));
    if (validate) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
        if (!create) throw DemoError("vkCreateDebugUtilsMessengerEXT is missing");
        VkDebugUtilsMessengerCreateInfoEXT mi = messengerInfo(log_.get());
        DEMO_VK(create(instance, &mi, nullptr, &messenger_));
    }
    pickDevice(deviceIndex);
    createDevice();
}

void VulkanHost::pickDevice(int deviceIndex) {
    uint32_t n = 0;
    DEMO_VK(vkEnumeratePhysicalDevices(instance, &n, nullptr));
    std::vector<VkPhysicalDevice> devices(n);
    DEMO_VK(vkEnumeratePhysicalDevices(instance, &n, devices.data()));
    if (devices.empty()) throw DemoError("no Vulkan device found");
    if (deviceIndex >= 0) {
        if (static_cast<uint32_t>(deviceIndex) >= n)
            throw DemoError("--device " + std::to_string(deviceIndex) + ": there are " + std::to_string(n) +
                            " Vulkan devices (0 to " + std::to_string(n - 1) + ")");
        physical = devices[deviceIndex];
        if (!graphicsComputeFamily(physical, &family))
            throw DemoError("--device " + std::to_string(deviceIndex) + " has no graphics + compute queue family");
    } else {
        // A renderer's usual choice: a discrete GPU, else an integrated one, else anything.
        for (VkPhysicalDeviceType want : {VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU,
                                          VK_PHYSICAL_DEVICE_TYPE_MAX_ENUM}) {
            for (VkPhysicalDevice d : devices) {
                VkPhysicalDeviceProperties p;
                vkGetPhysicalDeviceProperties(d, &p);
                if ((want == VK_PHYSICAL_DEVICE_TYPE_MAX_ENUM || p.deviceType == want) &&
                    graphicsComputeFamily(d, &family)) {
                    physical = d;
                    break;
                }
            }
            if (physical) break;
        }
        if (!physical) throw DemoError("no Vulkan device with a graphics + compute queue family");
    }
    VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &ids;
    vkGetPhysicalDeviceProperties2(physical, &props);
    if (props.properties.apiVersion < VK_API_VERSION_1_2)
        throw DemoError(std::string("device '") + props.properties.deviceName + "' has Vulkan below 1.2");
    deviceName = props.properties.deviceName;
    std::memcpy(deviceUuid.data(), ids.deviceUUID, VK_UUID_SIZE);
    limits = props.properties.limits;
    vkGetPhysicalDeviceMemoryProperties(physical, &memory_);

    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, nullptr);
    std::vector<VkQueueFamilyProperties> families(nq);
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &nq, families.data());
    auto stamps = [&](uint32_t f, bool* has, uint64_t* mask) {
        uint32_t bits = families[f].timestampValidBits;
        *has = bits > 0 && limits.timestampPeriod > 0;
        *mask = bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    };
    stamps(family, &timestamps, &timestampMask);

    auto choice = vkinfer::chooseAsyncComputeQueue(vkinfer::describeQueueFamilies(physical), family);
    if (!choice.ok()) throw DemoError("choosing a queue for asynchronous compute: " + choice.status().toString());
    asyncChoice = *choice;
    computeFamily = asyncChoice.family;
    stamps(computeFamily, &computeTimestamps, &computeTimestampMask);
}

void VulkanHost::createDevice() {
    // What vkinfer uses on this device, then the renderer's own wishes ORed into the same
    // structures (docs/INTEGRATION.md, "What to enable on your device").
    auto req = vkinfer::queryDeviceRequirements(physical, {.validationLayerEnabled = validation});
    if (!req.ok()) throw DemoError("querying what vkinfer uses on '" + deviceName + "': " + req.status().toString());
    requirements = std::make_unique<vkinfer::DeviceRequirements>(std::move(req).value());
    VkPhysicalDeviceVulkan12Features have12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 have{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    have.pNext = &have12;
    vkGetPhysicalDeviceFeatures2(physical, &have);
    // Timeline semaphores: the shared pattern waits on vkinfer's and signals its own.
    requirements->features12().timelineSemaphore = have12.timelineSemaphore;
    extensions = requirements->extensions();
    auto has = [&](const char* e) { return std::find(extensions.begin(), extensions.end(), e) != extensions.end(); };
    memoryFd = has(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);
    semaphoreFd = has(VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);

    // The graphics queue, and the one for asynchronous compute: in its own family, or queue 1
    // of the graphics family, or none (the graphics queue itself).
    const float priorities[2] = {1.0f, 1.0f};
    std::vector<VkDeviceQueueCreateInfo> queues(1, {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO});
    queues[0].queueFamilyIndex = family;
    queues[0].queueCount = computeFamily == family ? asyncChoice.queueIndex + 1 : 1;
    queues[0].pQueuePriorities = priorities;
    if (computeFamily != family) {
        queues.push_back({VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO});
        queues[1].queueFamilyIndex = computeFamily;
        queues[1].queueCount = asyncChoice.queueIndex + 1;
        queues[1].pQueuePriorities = priorities;
    }
    const std::vector<const char*>& names = requirements->extensionNames();
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = requirements->featureChain();  // the core features travel in the chain
    dci.queueCreateInfoCount = static_cast<uint32_t>(queues.size());
    dci.pQueueCreateInfos = queues.data();
    dci.enabledExtensionCount = static_cast<uint32_t>(names.size());
    dci.ppEnabledExtensionNames = names.data();
    DEMO_VK(vkCreateDevice(physical, &dci, nullptr, &device));
    vkGetDeviceQueue(device, family, 0, &queue);
    vkGetDeviceQueue(device, computeFamily, asyncChoice.queueIndex, &computeQueue);
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.queueFamilyIndex = family;
    pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;  // each frame slot re-records its buffers
    DEMO_VK(vkCreateCommandPool(device, &pci, nullptr, &pool));
    pci.queueFamilyIndex = computeFamily;
    DEMO_VK(vkCreateCommandPool(device, &pci, nullptr, &computePool));
    if (memoryFd)
        getMemoryFd_ = reinterpret_cast<PFN_vkGetMemoryFdKHR>(vkGetDeviceProcAddr(device, "vkGetMemoryFdKHR"));
    if (semaphoreFd) {
        getSemaphoreFd_ = reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(vkGetDeviceProcAddr(device, "vkGetSemaphoreFdKHR"));
        importSemaphoreFd_ =
            reinterpret_cast<PFN_vkImportSemaphoreFdKHR>(vkGetDeviceProcAddr(device, "vkImportSemaphoreFdKHR"));
    }
}

VulkanHost::~VulkanHost() {
    if (device) {
        vkDeviceWaitIdle(device);
        if (pool) vkDestroyCommandPool(device, pool, nullptr);
        if (computePool) vkDestroyCommandPool(device, computePool, nullptr);
        vkDestroyDevice(device, nullptr);  // the layer reports objects left on the device here
    }
    if (messenger_) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance, messenger_, nullptr);
    }
    if (instance) vkDestroyInstance(instance, nullptr);
}

vkinfer::HostDevice VulkanHost::hostDevice() const {
    vkinfer::HostDevice h;
    h.instance = instance;
    h.physicalDevice = physical;
    h.device = device;
    h.queueFamilyIndex = family;
    h.queue = queue;  // vkinfer uploads the weights once on it, at prepare
    h.computeQueueFamilyIndex = computeFamily;  // SessionQueue::AsyncCompute sessions run here
    h.computeQueue = computeQueue;
    h.apiVersion = VK_API_VERSION_1_2;
    h.enabledExtensions = extensions;
    h.enabledFeatureChain = requirements->featureChain();
    return h;
}

uint32_t VulkanHost::memoryType(uint32_t bits, VkMemoryPropertyFlags flags) const {
    for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i)
        if ((bits & (1u << i)) && (memory_.memoryTypes[i].propertyFlags & flags) == flags) return i;
    throw DemoError("no memory type with properties " + std::to_string(flags) + " for this resource");
}

GpuImage VulkanHost::createImage(uint32_t width, uint32_t height, VkImageUsageFlags usage, VkFormat format,
                                 const std::vector<uint32_t>& sharedFamilies) {
    GpuImage img;
    img.format = format;
    img.width = width;
    img.height = height;
    VkImageCreateInfo ci{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ci.imageType = VK_IMAGE_TYPE_2D;
    ci.format = format;
    ci.extent = {width, height, 1};
    ci.mipLevels = 1;
    ci.arrayLayers = 1;
    ci.samples = VK_SAMPLE_COUNT_1_BIT;
    ci.tiling = VK_IMAGE_TILING_OPTIMAL;
    ci.usage = usage;
    ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    if (sharedFamilies.size() >= 2) {
        ci.sharingMode = VK_SHARING_MODE_CONCURRENT;
        ci.queueFamilyIndexCount = static_cast<uint32_t>(sharedFamilies.size());
        ci.pQueueFamilyIndices = sharedFamilies.data();
    }
    DEMO_VK(vkCreateImage(device, &ci, nullptr, &img.image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device, img.image, &req);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = memoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    DEMO_VK(vkAllocateMemory(device, &ai, nullptr, &img.memory));
    DEMO_VK(vkBindImageMemory(device, img.image, img.memory, 0));
    VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = img.image;
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = format;
    vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    DEMO_VK(vkCreateImageView(device, &vi, nullptr, &img.view));
    return img;
}

GpuBuffer VulkanHost::createBuffer(VkDeviceSize size, VkBufferUsageFlags usage, bool hostVisible, bool exportable) {
    GpuBuffer b;
    b.size = size;
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    ci.pNext = exportable ? &external : nullptr;
    ci.size = size;
    ci.usage = usage;
    ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    DEMO_VK(vkCreateBuffer(device, &ci, nullptr, &b.buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, b.buffer, &req);
    // An exported opaque fd is imported by vkinfer's own VkDevice as a dedicated allocation of
    // an identical buffer (Vulkan's rule for opaque fds), so export one allocation per buffer.
    VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    dedicated.buffer = b.buffer;
    VkExportMemoryAllocateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO};
    exportInfo.pNext = &dedicated;
    exportInfo.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.pNext = exportable ? &exportInfo : nullptr;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = memoryType(
        req.memoryTypeBits, hostVisible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                        : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    b.allocationSize = req.size;
    b.memoryTypeIndex = ai.memoryTypeIndex;
    VkResult r = vkAllocateMemory(device, &ai, nullptr, &b.memory);
    if (r != VK_SUCCESS) {
        vkDestroyBuffer(device, b.buffer, nullptr);
        throw DemoError("vkAllocateMemory of " + std::to_string(req.size) +
                        " bytes for a buffer failed: " + vkResultName(r));
    }
    DEMO_VK(vkBindBufferMemory(device, b.buffer, b.memory, 0));
    if (hostVisible) DEMO_VK(vkMapMemory(device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
    return b;
}

void VulkanHost::destroy(GpuImage& image) {
    if (image.view) vkDestroyImageView(device, image.view, nullptr);
    if (image.image) vkDestroyImage(device, image.image, nullptr);
    if (image.memory) vkFreeMemory(device, image.memory, nullptr);
    image = {};
}

void VulkanHost::destroy(GpuBuffer& buffer) {
    if (buffer.buffer) vkDestroyBuffer(device, buffer.buffer, nullptr);
    if (buffer.memory) vkFreeMemory(device, buffer.memory, nullptr);
    buffer = {};
}

bool VulkanHost::canExportBufferMemory() const {
    if (!memoryFd) return false;
    VkPhysicalDeviceExternalBufferInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
    info.usage =
        VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkExternalBufferProperties props{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(physical, &info, &props);
    return props.externalMemoryProperties.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT;
}

int VulkanHost::exportMemoryFd(const GpuBuffer& buffer) const {
    if (!getMemoryFd_) throw DemoError("vkGetMemoryFdKHR is not available (VK_KHR_external_memory_fd)");
    VkMemoryGetFdInfoKHR gi{VK_STRUCTURE_TYPE_MEMORY_GET_FD_INFO_KHR};
    gi.memory = buffer.memory;
    gi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    DEMO_VK(getMemoryFd_(device, &gi, &fd));
    return fd;
}

namespace {
VkExternalSemaphoreFeatureFlags semaphoreFeatures(VkPhysicalDevice physical, bool timeline) {
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkPhysicalDeviceExternalSemaphoreInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO};
    info.pNext = timeline ? &type : nullptr;
    info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkExternalSemaphoreProperties props{VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
    vkGetPhysicalDeviceExternalSemaphoreProperties(physical, &info, &props);
    return props.externalSemaphoreFeatures;
}
}  // namespace

bool VulkanHost::canExportSemaphore(bool timeline) const {
    return semaphoreFd && (!timeline || requirements->features12().timelineSemaphore) &&
           (semaphoreFeatures(physical, timeline) & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT);
}

bool VulkanHost::canImportSemaphore(bool timeline) const {
    return semaphoreFd && (!timeline || requirements->features12().timelineSemaphore) &&
           (semaphoreFeatures(physical, timeline) & VK_EXTERNAL_SEMAPHORE_FEATURE_IMPORTABLE_BIT);
}

VkSemaphore VulkanHost::createSemaphore(bool timeline, bool exportable) {
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkExportSemaphoreCreateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    exportInfo.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    const void* chain = nullptr;
    if (exportable) {
        exportInfo.pNext = chain;
        chain = &exportInfo;
    }
    if (timeline) {
        type.pNext = chain;
        chain = &type;
    }
    VkSemaphoreCreateInfo ci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    ci.pNext = chain;
    VkSemaphore s = VK_NULL_HANDLE;
    DEMO_VK(vkCreateSemaphore(device, &ci, nullptr, &s));
    return s;
}

int VulkanHost::exportSemaphoreFd(VkSemaphore semaphore) const {
    if (!getSemaphoreFd_) throw DemoError("vkGetSemaphoreFdKHR is not available (VK_KHR_external_semaphore_fd)");
    VkSemaphoreGetFdInfoKHR gi{VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR};
    gi.semaphore = semaphore;
    gi.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    int fd = -1;
    DEMO_VK(getSemaphoreFd_(device, &gi, &fd));
    return fd;
}

VkSemaphore VulkanHost::importTimelineSemaphore(int fd) {
    if (!importSemaphoreFd_) {
        close(fd);
        throw DemoError("vkImportSemaphoreFdKHR is not available (VK_KHR_external_semaphore_fd)");
    }
    VkSemaphore s = createSemaphore(true, false);
    VkImportSemaphoreFdInfoKHR ii{VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR};
    ii.semaphore = s;
    ii.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    ii.fd = fd;
    VkResult r = importSemaphoreFd_(device, &ii);
    if (r != VK_SUCCESS) {
        close(fd);  // a failed import leaves the fd with us
        vkDestroySemaphore(device, s, nullptr);
        throwVk("vkImportSemaphoreFdKHR", r);
    }
    return s;  // the fd is Vulkan's now
}

VkShaderModule VulkanHost::shaderModule(const uint32_t* code, size_t bytes) const {
    VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    ci.codeSize = bytes;
    ci.pCode = code;
    VkShaderModule m = VK_NULL_HANDLE;
    DEMO_VK(vkCreateShaderModule(device, &ci, nullptr, &m));
    return m;
}

VkCommandBuffer VulkanHost::allocateCommandBuffer() const { return allocateFrom(pool); }
VkCommandBuffer VulkanHost::allocateComputeCommandBuffer() const { return allocateFrom(computePool); }

VkCommandBuffer VulkanHost::allocateFrom(VkCommandPool from) const {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = from;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    DEMO_VK(vkAllocateCommandBuffers(device, &ai, &cmd));
    return cmd;
}

VkFence VulkanHost::createFence(bool signaled) const {
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    fi.flags = signaled ? VK_FENCE_CREATE_SIGNALED_BIT : 0;
    VkFence f = VK_NULL_HANDLE;
    DEMO_VK(vkCreateFence(device, &fi, nullptr, &f));
    return f;
}

}  // namespace demo
