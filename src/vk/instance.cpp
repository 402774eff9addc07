#include "vk/instance.h"

#include <algorithm>
#include <cstring>

#include "vk/check.h"
#include "vk/device_requirements.h"

namespace vkinfer::vk {

void MessageLog::add(std::string message) {
    std::lock_guard<std::mutex> lock(mutex_);
    messages_.push_back(std::move(message));
}

std::vector<std::string> MessageLog::take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(messages_, {});
}

bool MessageLog::empty() {
    std::lock_guard<std::mutex> lock(mutex_);
    return messages_.empty();
}

namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                         VkDebugUtilsMessageTypeFlagsEXT, const VkDebugUtilsMessengerCallbackDataEXT* data,
                                         void* user) {
    const char* level = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "error" : "warning";
    static_cast<MessageLog*>(user)->add(fmt::format("[{}] {}", level, data && data->pMessage ? data->pMessage : ""));
    return VK_FALSE;
}

// The Vulkan header version instance layer `name` was built against; 0 when it is absent.
uint32_t instanceLayerSpecVersion(const char* name) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> layers(n);
    vkEnumerateInstanceLayerProperties(&n, layers.data());
    for (const auto& l : layers)
        if (std::strcmp(l.layerName, name) == 0) return std::max(l.specVersion, 1u);
    return 0;
}

bool hasInstanceExtension(const char* name) {
    uint32_t n = 0;
    vkEnumerateInstanceExtensionProperties(nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> exts(n);
    vkEnumerateInstanceExtensionProperties(nullptr, &n, exts.data());
    for (const auto& e : exts)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}

VkDebugUtilsMessengerCreateInfoEXT messengerInfo(MessageLog* log) {
    VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    // Validation and performance reports; general (loader) chatter is not a finding.
    info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    info.pfnUserCallback = onMessage;
    info.pUserData = log;
    return info;
}

}  // namespace

bool layerSpecKnowsKhrCooperativeMatrix(uint32_t layerSpec) {
    return layerSpec == 0 || layerSpec >= VK_MAKE_API_VERSION(0, 1, 3, 255);
}

bool validationLayerKnowsKhrCooperativeMatrix() {
    return layerSpecKnowsKhrCooperativeMatrix(instanceLayerSpecVersion(kValidationLayer));
}

Instance::Instance(bool validate) : validate_(validate), log_(std::make_unique<MessageLog>()) {
    uint32_t version = 0;
    if (vkEnumerateInstanceVersion(&version) != VK_SUCCESS || version < VK_API_VERSION_1_2)
        fail(ErrorCode::Unsupported, "the Vulkan loader offers version {}.{}; vkinfer needs Vulkan 1.2",
             VK_API_VERSION_MAJOR(version), VK_API_VERSION_MINOR(version));
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vkinfer";
    app.pEngineName = "vkinfer";
    app.apiVersion = VK_API_VERSION_1_2;

    std::vector<const char*> layers, extensions;
    if (hasInstanceExtension(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME))
        extensions.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    if (!extensions.empty()) info.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;

    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    VkDebugUtilsMessengerCreateInfoEXT creationMessenger = messengerInfo(log_.get());
    if (validate_) {
        const uint32_t layerSpec = instanceLayerSpecVersion(kValidationLayer);
        if (layerSpec == 0)
            fail(ErrorCode::Unsupported,
                 "validation requested but the layer {} is not installed (Debian: apt install vulkan-validationlayers)",
                 kValidationLayer);
        layerKnowsKhrCooperativeMatrix_ = layerSpecKnowsKhrCooperativeMatrix(layerSpec);
        layers.push_back(kValidationLayer);
        extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
        features.enabledValidationFeatureCount = 1;
        features.pEnabledValidationFeatures = enables;
        // This messenger sees instance creation and destruction only; the one created below
        // sees everything else.
        features.pNext = &creationMessenger;
        info.pNext = &features;
    }
    info.enabledLayerCount = static_cast<uint32_t>(layers.size());
    info.ppEnabledLayerNames = layers.data();
    info.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    VkResult r = vkCreateInstance(&info, nullptr, &instance_);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER)
        fail(ErrorCode::NotFound, "no Vulkan driver found (vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER); on Debian "
                                  "install mesa-vulkan-drivers for the lavapipe CPU driver");
    VK_CHECK(r);

    if (validate_) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkCreateDebugUtilsMessengerEXT"));
        VkDebugUtilsMessengerCreateInfoEXT mi = messengerInfo(log_.get());
        if (!create || create(instance_, &mi, nullptr, &messenger_) != VK_SUCCESS) {
            vkDestroyInstance(instance_, nullptr);
            fail(ErrorCode::VulkanError, "vkCreateDebugUtilsMessengerEXT failed; validation messages would be lost");
        }
    }
}

Instance::~Instance() {
    if (messenger_) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance_, messenger_, nullptr);
    }
    if (instance_) vkDestroyInstance(instance_, nullptr);
}

std::vector<VkPhysicalDevice> Instance::physicalDevices() const {
    uint32_t n = 0;
    VK_CHECK(vkEnumeratePhysicalDevices(instance_, &n, nullptr));
    std::vector<VkPhysicalDevice> devs(n);
    VK_CHECK(vkEnumeratePhysicalDevices(instance_, &n, devs.data()));
    devs.resize(n);
    return devs;
}

bool hasDeviceExtension(VkPhysicalDevice phys, const char* name) {
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(phys, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> exts(n);
    vkEnumerateDeviceExtensionProperties(phys, nullptr, &n, exts.data());
    for (const auto& e : exts)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}

namespace {

const char* deviceTypeName(VkPhysicalDeviceType t) {
    switch (t) {
        case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete GPU";
        case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated GPU";
        case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual GPU";
        case VK_PHYSICAL_DEVICE_TYPE_CPU: return "CPU";
        default: return "other";
    }
}

bool semaphoreExportable(VkPhysicalDevice phys, bool timeline) {
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    VkPhysicalDeviceExternalSemaphoreInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_INFO};
    info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    if (timeline) info.pNext = &type;
    VkExternalSemaphoreProperties props{VK_STRUCTURE_TYPE_EXTERNAL_SEMAPHORE_PROPERTIES};
    vkGetPhysicalDeviceExternalSemaphoreProperties(phys, &info, &props);
    return (props.externalSemaphoreFeatures & VK_EXTERNAL_SEMAPHORE_FEATURE_EXPORTABLE_BIT) != 0;
}

bool bufferExportable(VkPhysicalDevice phys, VkExternalMemoryHandleTypeFlagBits type) {
    VkPhysicalDeviceExternalBufferInfo info{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.handleType = type;
    VkExternalBufferProperties props{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(phys, &info, &props);
    return (props.externalMemoryProperties.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_EXPORTABLE_BIT) != 0;
}

// The one shape and types the tensor-core kernels use: 16x16x16, float16 x float16 -> float32,
// subgroup scope. (VkComponentTypeKHR and VkScopeKHR have the NV enums' values.)
bool isKernelShape(uint32_t m, uint32_t n, uint32_t k, VkComponentTypeNV a, VkComponentTypeNV b, VkComponentTypeNV c,
                   VkComponentTypeNV result, VkScopeNV scope) {
    return m == 16 && n == 16 && k == 16 && a == VK_COMPONENT_TYPE_FLOAT16_NV && b == VK_COMPONENT_TYPE_FLOAT16_NV &&
           c == VK_COMPONENT_TYPE_FLOAT32_NV && result == VK_COMPONENT_TYPE_FLOAT32_NV && scope == VK_SCOPE_SUBGROUP_NV;
}

// What vkGetPhysicalDeviceCooperativeMatrixProperties{NV,KHR} (`query`) lists; empty when the
// instance has no such function or it fails.
template <typename Properties>
std::vector<Properties> coopmatProperties(VkInstance instance, VkPhysicalDevice phys, const char* query,
                                          const Properties& blank) {
    using Get = VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t*, Properties*);
    auto get = reinterpret_cast<Get>(vkGetInstanceProcAddr(instance, query));
    if (!get) return {};
    uint32_t n = 0;
    if (get(phys, &n, nullptr) != VK_SUCCESS) return {};
    std::vector<Properties> props(n, blank);
    if (get(phys, &n, props.data()) != VK_SUCCESS) return {};
    return props;
}

bool hasCoopmat16Nv(VkInstance instance, VkPhysicalDevice phys) {
    for (const auto& p : coopmatProperties(instance, phys, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV",
                                           VkCooperativeMatrixPropertiesNV{VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV}))
        if (isKernelShape(p.MSize, p.NSize, p.KSize, p.AType, p.BType, p.CType, p.DType, p.scope)) return true;
    return false;
}

bool hasCoopmat16Khr(VkInstance instance, VkPhysicalDevice phys) {
    for (const auto& p : coopmatProperties(instance, phys, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR",
                                           CooperativeMatrixPropertiesKhr{}))
        if (!p.saturatingAccumulation && isKernelShape(p.MSize, p.NSize, p.KSize, p.AType, p.BType, p.CType,
                                                       p.ResultType, p.scope))
            return true;
    return false;
}

}  // namespace

DeviceInfo queryDeviceInfo(VkInstance instance, VkPhysicalDevice phys, uint32_t index) {
    DeviceInfo d;
    d.index = index;
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &driver;
    driver.pNext = &ids;
    ids.pNext = &subgroup;
    vkGetPhysicalDeviceProperties2(phys, &props);
    const auto& p = props.properties;
    d.name = p.deviceName;
    d.type = deviceTypeName(p.deviceType);
    d.driverName = driver.driverName;
    d.driverInfo = driver.driverInfo;
    d.apiVersion = p.apiVersion;
    d.apiVersionString = fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(p.apiVersion), VK_API_VERSION_MINOR(p.apiVersion),
                                     VK_API_VERSION_PATCH(p.apiVersion));
    d.vendorId = p.vendorID;
    d.deviceId = p.deviceID;
    std::memcpy(d.deviceUuid.data(), ids.deviceUUID, VK_UUID_SIZE);
    d.subgroupSize = subgroup.subgroupSize;
    d.sharedMemoryBytes = p.limits.maxComputeSharedMemorySize;
    d.maxStorageBufferRange = p.limits.maxStorageBufferRange;
    d.minStorageBufferOffsetAlignment = p.limits.minStorageBufferOffsetAlignment;
    d.timestampPeriodNs = p.limits.timestampPeriod;

    FeatureChainStorage f;
    f.link(false);
    vkGetPhysicalDeviceFeatures2(phys, &f.core);
    d.fp16Arithmetic = f.v12.shaderFloat16;
    d.int8Arithmetic = f.v12.shaderInt8;
    d.storage16Bit = f.v11.storageBuffer16BitAccess;
    d.int64Arithmetic = f.core.features.shaderInt64;
    d.timelineSemaphore = f.v12.timelineSemaphore;

    d.externalMemoryFd = hasDeviceExtension(phys, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME) &&
                         bufferExportable(phys, VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT);
    d.dmaBuf = hasDeviceExtension(phys, VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME) &&
               bufferExportable(phys, VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT);
    bool semFd = hasDeviceExtension(phys, VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME);
    d.externalSemaphoreFd = semFd && semaphoreExportable(phys, false);
    d.timelineSemaphoreExport = semFd && d.timelineSemaphore && semaphoreExportable(phys, true);
    d.cooperativeMatrixKhr = hasDeviceExtension(phys, kCooperativeMatrixKhrExtension);
    d.cooperativeMatrixNv = hasDeviceExtension(phys, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    if (instance) {
        d.cooperativeMatrix16x16x16Nv = d.cooperativeMatrixNv && hasCoopmat16Nv(instance, phys);
        d.cooperativeMatrix16x16x16Khr = d.cooperativeMatrixKhr && hasCoopmat16Khr(instance, phys);
        d.cooperativeMatrix16x16x16 = d.cooperativeMatrix16x16x16Nv || d.cooperativeMatrix16x16x16Khr;
    }

    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, nullptr);
    std::vector<VkQueueFamilyProperties> qf(nq);
    vkGetPhysicalDeviceQueueFamilyProperties(phys, &nq, qf.data());
    for (const auto& q : qf)
        if ((q.queueFlags & VK_QUEUE_COMPUTE_BIT) && q.timestampValidBits > 0) d.timestamps = true;

    VkPhysicalDeviceMemoryProperties mem;
    vkGetPhysicalDeviceMemoryProperties(phys, &mem);
    for (uint32_t i = 0; i < mem.memoryHeapCount; ++i)
        if (mem.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) d.deviceLocalBytes += mem.memoryHeaps[i].size;
    return d;
}

uint32_t pickDevice(const std::vector<DeviceInfo>& devices, int requested) {
    if (devices.empty()) fail(ErrorCode::NotFound, "no Vulkan physical device found");
    if (requested >= 0) {
        if (static_cast<size_t>(requested) >= devices.size())
            fail(ErrorCode::NotFound, "device {} does not exist ({} device{} found; see `vkinfer devices`)", requested,
                 devices.size(), devices.size() == 1 ? "" : "s");
        return static_cast<uint32_t>(requested);
    }
    for (const char* type : {"discrete GPU", "integrated GPU"})
        for (const auto& d : devices)
            if (d.type == type) return d.index;
    return 0;
}

}  // namespace vkinfer::vk
