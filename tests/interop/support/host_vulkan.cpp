#include "interop/support/host_vulkan.h"
#include "interop/support/vk_queries.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace vkinfer::hostvk {

namespace {

#define HOST_VK(call)                                                                                        \
    do {                                                                                                     \
        VkResult r_ = (call);                                                                                \
        if (r_ != VK_SUCCESS)                                                                                \
            throw std::runtime_error(std::string("host: ") + #call + " failed with VkResult " + std::to_string(r_)); \
    } while (0)

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

VKAPI_ATTR VkBool32 VKAPI_CALL onMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT,
                                         const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    std::string level = severity >= VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? "[error] " : "[warning] ";
    static_cast<MessageLog*>(user)->add(level + (data && data->pMessage ? data->pMessage : ""));
    return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT messengerInfo(MessageLog* log) {
    VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    info.pfnUserCallback = onMessage;
    info.pUserData = log;
    return info;
}


void imageBarrier(VkCommandBuffer cmd, VkImage image, const ImageState& from, VkImageLayout to, VkPipelineStageFlags dst,
                  VkAccessFlags dstAccess) {
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = from.access;
    b.dstAccessMask = dstAccess;
    b.oldLayout = from.layout;
    b.newLayout = to;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cmd, from.stages ? from.stages : VkPipelineStageFlags(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT), dst, 0, 0, nullptr, 0,
                         nullptr, 1, &b);
}

}  // namespace

// ---------------------------------------------------------------------------------------

void MessageLog::add(std::string message) {
    std::lock_guard<std::mutex> lock(mutex_);
    messages_.push_back(std::move(message));
}

std::vector<std::string> MessageLog::take() {
    std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(messages_, {});
}

std::vector<std::string> MessageLog::peek() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return messages_;
}

std::string MessageLog::text() const {
    std::string out;
    for (const auto& m : peek()) out += m + "\n";
    return out;
}

uint32_t texelBytes(VkFormat format) {
    switch (format) {
        case VK_FORMAT_R8G8B8A8_UNORM:
        case VK_FORMAT_R8G8B8A8_SRGB:
        case VK_FORMAT_B8G8R8A8_UNORM:
        case VK_FORMAT_B8G8R8A8_SRGB:
        case VK_FORMAT_R32_SFLOAT: return 4;
        case VK_FORMAT_R16_SFLOAT: return 2;
        case VK_FORMAT_R16G16B16A16_SFLOAT: return 8;
        default: throw std::runtime_error("host: texelBytes: unexpected format " + std::to_string(format));
    }
}

float halfToFloat(uint16_t h) {
    uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
    float v;
    if (exp == 0) v = std::ldexp(static_cast<float>(mant), -24);
    else if (exp == 31) v = mant ? NAN : INFINITY;
    else v = std::ldexp(static_cast<float>(mant | 0x400), static_cast<int>(exp) - 25);
    return sign ? -v : v;
}

// ---------------------------------------------------------------------------------------

HostVulkan::HostVulkan(const HostOptions& options) : options_(options), log_(options.log) {
    if (!log_) log_ = std::make_shared<MessageLog>();
    apiVersion = options.apiVersion;
    validation = options.validate;

    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vkinfer interop test host";
    app.apiVersion = options.apiVersion;
    std::vector<const char*> layers, instanceExtensions;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT vf{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    VkDebugUtilsMessengerCreateInfoEXT creation = messengerInfo(log_.get());
    if (validation) {
        if (!testing::hasInstanceLayer(kValidationLayer))
            throw std::runtime_error("host: VKINFER_VALIDATE is set but VK_LAYER_KHRONOS_validation is not installed");
        layers.push_back(kValidationLayer);
        instanceExtensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        instanceExtensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
        vf.enabledValidationFeatureCount = 1;
        vf.pEnabledValidationFeatures = enables;
        vf.pNext = &creation;  // instance creation and destruction
        ici.pNext = &vf;
    }
    ici.enabledLayerCount = static_cast<uint32_t>(layers.size());
    ici.ppEnabledLayerNames = layers.data();
    ici.enabledExtensionCount = static_cast<uint32_t>(instanceExtensions.size());
    ici.ppEnabledExtensionNames = instanceExtensions.data();
    HOST_VK(vkCreateInstance(&ici, nullptr, &instance));
    if (validation) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
        VkDebugUtilsMessengerCreateInfoEXT mi = messengerInfo(log_.get());
        if (!create) throw std::runtime_error("host: vkCreateDebugUtilsMessengerEXT is missing");
        HOST_VK(create(instance, &mi, nullptr, &messenger_));
    }

    // The first physical device with a graphics+compute family (lavapipe here).
    uint32_t n = 0;
    HOST_VK(vkEnumeratePhysicalDevices(instance, &n, nullptr));
    std::vector<VkPhysicalDevice> phys(n);
    HOST_VK(vkEnumeratePhysicalDevices(instance, &n, phys.data()));
    bool found = false;
    for (VkPhysicalDevice p : phys) {
        uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(p, &nq, nullptr);
        std::vector<VkQueueFamilyProperties> fams(nq);
        vkGetPhysicalDeviceQueueFamilyProperties(p, &nq, fams.data());
        for (uint32_t f = 0; f < nq && !found; ++f) {
            constexpr VkQueueFlags need = VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT;
            if ((fams[f].queueFlags & need) == need) {
                physical = p;
                family = f;
                found = true;
            }
        }
        if (found) break;
    }
    if (!found) throw std::runtime_error("host: no device with a graphics+compute queue family");

    VkPhysicalDeviceVulkan12Features have12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 have{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    have.pNext = &have12;
    vkGetPhysicalDeviceFeatures2(physical, &have);
    if (!have12.timelineSemaphore) throw std::runtime_error("host: the device lacks timelineSemaphore");
    features12.timelineSemaphore = VK_TRUE;
    features.shaderStorageImageWriteWithoutFormat =
        options.storageImageWriteWithoutFormat && have.features.shaderStorageImageWriteWithoutFormat;
    // Fragment shaders that write buffers (the host reusing a buffer vkinfer read).
    features.fragmentStoresAndAtomics = have.features.fragmentStoresAndAtomics;
    if (options.externalMemoryFd && testing::hasDeviceExtension(physical, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
        extensions.push_back(VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME);

    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    VkPhysicalDeviceVulkan11Features f11 = features11;
    VkPhysicalDeviceVulkan12Features f12 = features12;
    f11.pNext = &f12;
    f12.pNext = nullptr;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &f11;
    dci.pEnabledFeatures = &features;
    if (options.useRequirements) {
        // What a host following docs/INTEGRATION.md does: vkinfer's chain, with the host's own
        // features ORed in and its own extensions added.
        auto req = queryDeviceRequirements(physical, {.validationLayerEnabled = validation});
        if (!req) throw std::runtime_error("host: queryDeviceRequirements: " + req.status().toString());
        requirements = std::make_unique<DeviceRequirements>(std::move(req).value());
        VkPhysicalDeviceFeatures& core = requirements->featureChain()->features;
        core.fragmentStoresAndAtomics |= features.fragmentStoresAndAtomics;
        if (!options.storageImageWriteWithoutFormat) core.shaderStorageImageWriteWithoutFormat = VK_FALSE;
        requirements->features12().timelineSemaphore = VK_TRUE;
        features = core;
        features11 = requirements->features11();
        features12 = requirements->features12();
        for (const auto& e : requirements->extensions())
            if (std::find(extensions.begin(), extensions.end(), e) == extensions.end() &&
                (options.externalMemoryFd || e != VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME))
                extensions.push_back(e);
        dci.pNext = requirements->featureChain();
        dci.pEnabledFeatures = nullptr;
    }
    std::vector<const char*> ext;
    for (const auto& e : extensions) ext.push_back(e.c_str());
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qi;
    dci.enabledExtensionCount = static_cast<uint32_t>(ext.size());
    dci.ppEnabledExtensionNames = ext.data();
    HOST_VK(vkCreateDevice(physical, &dci, nullptr, &device));
    vkGetDeviceQueue(device, family, 0, &queue);

    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.queueFamilyIndex = family;
    pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;  // hosts that re-record a frame's buffer
    HOST_VK(vkCreateCommandPool(device, &pi, nullptr, &pool));
}

HostVulkan::~HostVulkan() {
    if (device) {
        vkDeviceWaitIdle(device);
        for (auto& b : buffers_) {
            vkDestroyBuffer(device, b->buffer, nullptr);
            vkFreeMemory(device, b->memory, nullptr);
        }
        for (auto& i : images_) {
            vkDestroyImageView(device, i.view, nullptr);
            vkDestroyImage(device, i.image, nullptr);
            vkFreeMemory(device, i.memory, nullptr);
        }
        for (auto m : modules_) vkDestroyShaderModule(device, m, nullptr);
        if (pool) vkDestroyCommandPool(device, pool, nullptr);
        vkDestroyDevice(device, nullptr);  // the layer reports objects vkinfer leaked on it here
    }
    if (messenger_) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(instance, messenger_, nullptr);
    }
    if (instance) vkDestroyInstance(instance, nullptr);
}

HostDevice HostVulkan::hostDevice(bool withQueue) const {
    HostDevice h;
    h.instance = instance;
    h.physicalDevice = physical;
    h.device = device;
    h.queueFamilyIndex = family;
    h.queue = withQueue ? queue : VK_NULL_HANDLE;
    h.apiVersion = apiVersion;
    h.enabledExtensions = extensions;
    h.features = features;
    h.features11 = features11;
    h.features11.pNext = nullptr;
    h.features12 = features12;
    h.features12.pNext = nullptr;
    if (requirements) h.enabledFeatureChain = requirements->featureChain();
    return h;
}

uint32_t HostVulkan::memoryType(uint32_t bits, VkMemoryPropertyFlags flags) const {
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(physical, &mp);
    for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
        if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & flags) == flags) return i;
    throw std::runtime_error("host: no memory type with the requested properties");
}

bool HostVulkan::formatSupports(VkFormat format, VkFormatFeatureFlags need) const {
    VkFormatProperties props;
    vkGetPhysicalDeviceFormatProperties(physical, format, &props);
    return (props.optimalTilingFeatures & need) == need;
}

Image HostVulkan::createImage(VkFormat format, uint32_t width, uint32_t height, VkImageUsageFlags usage) {
    const std::pair<VkImageUsageFlags, VkFormatFeatureFlags> needs[] = {
        {VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT, VK_FORMAT_FEATURE_COLOR_ATTACHMENT_BIT},
        {VK_IMAGE_USAGE_SAMPLED_BIT, VK_FORMAT_FEATURE_SAMPLED_IMAGE_BIT},
        {VK_IMAGE_USAGE_STORAGE_BIT, VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT},
        {VK_IMAGE_USAGE_TRANSFER_SRC_BIT, VK_FORMAT_FEATURE_TRANSFER_SRC_BIT},
        {VK_IMAGE_USAGE_TRANSFER_DST_BIT, VK_FORMAT_FEATURE_TRANSFER_DST_BIT}};
    for (const auto& [u, f] : needs)
        if ((usage & u) && !formatSupports(format, f)) usage &= ~u;
    Image img;
    img.format = format;
    img.usage = usage;
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
    ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    HOST_VK(vkCreateImage(device, &ci, nullptr, &img.image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(device, img.image, &req);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = memoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    HOST_VK(vkAllocateMemory(device, &ai, nullptr, &img.memory));
    HOST_VK(vkBindImageMemory(device, img.image, img.memory, 0));
    VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = img.image;
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = format;
    vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    HOST_VK(vkCreateImageView(device, &vi, nullptr, &img.view));
    images_.push_back(img);
    return img;
}

Buffer HostVulkan::createBuffer(VkDeviceSize size, VkBufferUsageFlags usage, bool hostVisible) {
    auto b = std::make_unique<Buffer>();
    b->size = size;
    VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    ci.size = size;
    ci.usage = usage;
    ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    HOST_VK(vkCreateBuffer(device, &ci, nullptr, &b->buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, b->buffer, &req);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = memoryType(req.memoryTypeBits, hostVisible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                                          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                                                                    : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    HOST_VK(vkAllocateMemory(device, &ai, nullptr, &b->memory));
    HOST_VK(vkBindBufferMemory(device, b->buffer, b->memory, 0));
    if (hostVisible) HOST_VK(vkMapMemory(device, b->memory, 0, VK_WHOLE_SIZE, 0, &b->mapped));
    buffers_.push_back(std::move(b));
    return *buffers_.back();
}

VkCommandBuffer HostVulkan::begin() {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    HOST_VK(vkAllocateCommandBuffers(device, &ai, &cmd));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    HOST_VK(vkBeginCommandBuffer(cmd, &bi));
    return cmd;
}

VkCommandBuffer HostVulkan::beginReused(VkCommandBuffer cmd) {
    if (!cmd) return begin();
    HOST_VK(vkResetCommandBuffer(cmd, 0));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    HOST_VK(vkBeginCommandBuffer(cmd, &bi));
    return cmd;
}

VkFence HostVulkan::submit(const std::vector<VkCommandBuffer>& cmds) {
    for (VkCommandBuffer c : cmds) HOST_VK(vkEndCommandBuffer(c));
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    HOST_VK(vkCreateFence(device, &fi, nullptr, &fence));
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = static_cast<uint32_t>(cmds.size());
    si.pCommandBuffers = cmds.data();
    HOST_VK(vkQueueSubmit(queue, 1, &si, fence));
    return fence;
}

void HostVulkan::wait(VkFence fence) {
    VkResult r = vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX);
    vkDestroyFence(device, fence, nullptr);
    HOST_VK(r);
}

const Buffer& HostVulkan::recordReadback(VkCommandBuffer cmd, const Image& image, const ImageState& current) {
    VkDeviceSize size = VkDeviceSize(image.width) * image.height * texelBytes(image.format);
    createBuffer(size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
    const Buffer& out = *buffers_.back();
    imageBarrier(cmd, image.image, current, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT,
                 VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {image.width, image.height, 1};
    vkCmdCopyImageToBuffer(cmd, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, out.buffer, 1, &region);
    VkBufferMemoryBarrier b{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.buffer = out.buffer;
    b.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &b, 0, nullptr);
    return out;
}

const Buffer& HostVulkan::recordReadback(VkCommandBuffer cmd, const Buffer& src, VkDeviceSize offset, VkDeviceSize size,
                                         const BufferState& current) {
    createBuffer(size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
    const Buffer& out = *buffers_.back();
    VkBufferMemoryBarrier b{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    b.srcAccessMask = current.access;
    b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.buffer = src.buffer;
    b.offset = offset;
    b.size = size;
    vkCmdPipelineBarrier(cmd, current.stages ? current.stages : VkPipelineStageFlags(VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT),
                         VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 0, nullptr, 1, &b, 0, nullptr);
    VkBufferCopy copy{offset, 0, size};
    vkCmdCopyBuffer(cmd, src.buffer, out.buffer, 1, &copy);
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    b.buffer = out.buffer;
    b.offset = 0;
    b.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &b, 0, nullptr);
    return out;
}

std::vector<uint8_t> HostVulkan::bytes(const Buffer& readback) {
    const auto* p = static_cast<const uint8_t*>(readback.mapped);
    return std::vector<uint8_t>(p, p + readback.size);
}

std::vector<uint8_t> HostVulkan::readImage(const Image& image, const ImageState& current) {
    VkCommandBuffer cmd = begin();
    const Buffer& out = recordReadback(cmd, image, current);
    submitAndWait(cmd);
    return bytes(out);
}

void HostVulkan::recordUpload(VkCommandBuffer cmd, const Buffer& dst, VkDeviceSize offset, const void* data,
                              VkDeviceSize size) {
    createBuffer(size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, true);
    const Buffer& staging = *buffers_.back();
    std::memcpy(staging.mapped, data, size);
    VkBufferCopy copy{0, offset, size};
    vkCmdCopyBuffer(cmd, staging.buffer, dst.buffer, 1, &copy);
}

VkShaderModule HostVulkan::shaderModule(const uint32_t* code, size_t bytes) {
    VkShaderModuleCreateInfo ci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    ci.codeSize = bytes;
    ci.pCode = code;
    VkShaderModule m;
    HOST_VK(vkCreateShaderModule(device, &ci, nullptr, &m));
    modules_.push_back(m);
    return m;
}

// ---------------------------------------------------------------------------------------

FullscreenPass::FullscreenPass(HostVulkan& host, VkFormat format, const uint32_t* vert, size_t vertBytes,
                               const uint32_t* frag, size_t fragBytes, Binding binding)
    : host_(host), format_(format), binding_(binding) {
    VkDevice dev = host.device;
    VkAttachmentDescription att{};
    att.format = format;
    att.samples = VK_SAMPLE_COUNT_1_BIT;
    att.loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    att.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    att.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    att.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    att.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    att.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription sub{};
    sub.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    sub.colorAttachmentCount = 1;
    sub.pColorAttachments = &ref;
    // Earlier color-attachment writes and transfers (a readback of the target) before this
    // pass's layout transition and writes. Not compute: vkinfer's "after" barriers order
    // its own work before COLOR_ATTACHMENT_OUTPUT.
    VkSubpassDependency dep{};
    dep.srcSubpass = VK_SUBPASS_EXTERNAL;
    dep.dstSubpass = 0;
    dep.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    dep.srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    dep.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    dep.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT;
    VkRenderPassCreateInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    rp.attachmentCount = 1;
    rp.pAttachments = &att;
    rp.subpassCount = 1;
    rp.pSubpasses = &sub;
    rp.dependencyCount = 1;
    rp.pDependencies = &dep;
    HOST_VK(vkCreateRenderPass(dev, &rp, nullptr, &renderPass_));

    const VkDescriptorType type = binding == Binding::Sampler ? VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER
                                                              : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    VkDescriptorSetLayoutBinding b0{0, type, 1, VK_SHADER_STAGE_FRAGMENT_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo sl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    sl.bindingCount = binding == Binding::None ? 0 : 1;
    sl.pBindings = &b0;
    HOST_VK(vkCreateDescriptorSetLayout(dev, &sl, nullptr, &setLayout_));
    VkPushConstantRange push{VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16};
    VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pl.setLayoutCount = 1;
    pl.pSetLayouts = &setLayout_;
    pl.pushConstantRangeCount = 1;
    pl.pPushConstantRanges = &push;
    HOST_VK(vkCreatePipelineLayout(dev, &pl, nullptr, &layout_));

    VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                                 {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
    stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
    stages[0].module = host.shaderModule(vert, vertBytes);
    stages[0].pName = "main";
    stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
    stages[1].module = host.shaderModule(frag, fragBytes);
    stages[1].pName = "main";
    VkPipelineVertexInputStateCreateInfo vin{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
    VkPipelineInputAssemblyStateCreateInfo ia{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
    ia.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
    VkPipelineViewportStateCreateInfo vp{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
    vp.viewportCount = 1;
    vp.scissorCount = 1;
    VkPipelineRasterizationStateCreateInfo rs{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
    rs.polygonMode = VK_POLYGON_MODE_FILL;
    rs.cullMode = VK_CULL_MODE_NONE;
    rs.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
    rs.lineWidth = 1.0f;
    VkPipelineMultisampleStateCreateInfo ms{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
    ms.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
    VkPipelineColorBlendAttachmentState blend{};
    blend.colorWriteMask = VK_COLOR_COMPONENT_R_BIT | VK_COLOR_COMPONENT_G_BIT | VK_COLOR_COMPONENT_B_BIT |
                           VK_COLOR_COMPONENT_A_BIT;
    VkPipelineColorBlendStateCreateInfo cb{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
    cb.attachmentCount = 1;
    cb.pAttachments = &blend;
    VkDynamicState dyn[] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
    VkPipelineDynamicStateCreateInfo ds{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
    ds.dynamicStateCount = 2;
    ds.pDynamicStates = dyn;
    VkGraphicsPipelineCreateInfo gp{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
    gp.stageCount = 2;
    gp.pStages = stages;
    gp.pVertexInputState = &vin;
    gp.pInputAssemblyState = &ia;
    gp.pViewportState = &vp;
    gp.pRasterizationState = &rs;
    gp.pMultisampleState = &ms;
    gp.pColorBlendState = &cb;
    gp.pDynamicState = &ds;
    gp.layout = layout_;
    gp.renderPass = renderPass_;
    HOST_VK(vkCreateGraphicsPipelines(dev, VK_NULL_HANDLE, 1, &gp, nullptr, &pipeline_));

    if (binding == Binding::Sampler) {
        VkSamplerCreateInfo si{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
        si.magFilter = si.minFilter = VK_FILTER_NEAREST;
        si.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
        si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
        HOST_VK(vkCreateSampler(dev, &si, nullptr, &sampler_));
    }
    if (binding != Binding::None) {
        VkDescriptorPoolSize size{type, 16};
        VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        dp.maxSets = 16;
        dp.poolSizeCount = 1;
        dp.pPoolSizes = &size;
        HOST_VK(vkCreateDescriptorPool(dev, &dp, nullptr, &descriptorPool_));
    }
}

FullscreenPass::~FullscreenPass() {
    VkDevice dev = host_.device;
    vkDeviceWaitIdle(dev);
    for (auto& [view, fb] : framebuffers_) vkDestroyFramebuffer(dev, fb, nullptr);
    if (descriptorPool_) vkDestroyDescriptorPool(dev, descriptorPool_, nullptr);
    if (sampler_) vkDestroySampler(dev, sampler_, nullptr);
    vkDestroyPipeline(dev, pipeline_, nullptr);
    vkDestroyPipelineLayout(dev, layout_, nullptr);
    vkDestroyDescriptorSetLayout(dev, setLayout_, nullptr);
    vkDestroyRenderPass(dev, renderPass_, nullptr);
}

void FullscreenPass::bindState(VkCommandBuffer cmd, uint32_t width, uint32_t height, const float push[4],
                               Resource resource) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_);
    VkViewport viewport{0, 0, static_cast<float>(width), static_cast<float>(height), 0, 1};
    VkRect2D scissor{{0, 0}, {width, height}};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
    vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_FRAGMENT_BIT, 0, 16, push);
    if (binding_ != Binding::None) {
        if (binding_ == Binding::Sampler ? !resource.view : !resource.buffer)
            throw std::runtime_error("host: FullscreenPass::bindState needs the resource its descriptor names");
        VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        ai.descriptorPool = descriptorPool_;
        ai.descriptorSetCount = 1;
        ai.pSetLayouts = &setLayout_;
        VkDescriptorSet set;
        HOST_VK(vkAllocateDescriptorSets(host_.device, &ai, &set));
        VkDescriptorImageInfo ii{sampler_, resource.view, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL};
        VkDescriptorBufferInfo bi{resource.buffer, resource.offset, resource.size};
        VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = set;
        w.dstBinding = 0;
        w.descriptorCount = 1;
        if (binding_ == Binding::Sampler) {
            w.descriptorType = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
            w.pImageInfo = &ii;
        } else {
            w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            w.pBufferInfo = &bi;
        }
        vkUpdateDescriptorSets(host_.device, 1, &w, 0, nullptr);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, layout_, 0, 1, &set, 0, nullptr);
    }
}

void FullscreenPass::beginPass(VkCommandBuffer cmd, const Image& target) {
    if (target.format != format_) throw std::runtime_error("host: FullscreenPass target has another format");
    VkFramebuffer& fb = framebuffers_[target.view];
    if (!fb) {
        VkFramebufferCreateInfo fi{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
        fi.renderPass = renderPass_;
        fi.attachmentCount = 1;
        fi.pAttachments = &target.view;
        fi.width = target.width;
        fi.height = target.height;
        fi.layers = 1;
        HOST_VK(vkCreateFramebuffer(host_.device, &fi, nullptr, &fb));
    }
    VkRenderPassBeginInfo bi{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    bi.renderPass = renderPass_;
    bi.framebuffer = fb;
    bi.renderArea = {{0, 0}, {target.width, target.height}};
    vkCmdBeginRenderPass(cmd, &bi, VK_SUBPASS_CONTENTS_INLINE);
}

void FullscreenPass::record(VkCommandBuffer cmd, const Image& target, const float push[4], Resource resource) {
    beginPass(cmd, target);
    bindState(cmd, target.width, target.height, push, resource);
    draw(cmd);
    endPass(cmd);
}

Image imageOf(const SharedImage& s) {
    const HostImage h = s.image();
    Image i;
    i.image = h.image;
    i.view = h.view;
    i.format = h.format;
    i.usage = s.desc().usage;
    i.width = h.width;
    i.height = h.height;
    return i;
}

void imageBarrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, uint32_t srcFamily,
                  uint32_t dstFamily, VkPipelineStageFlags srcStages, VkAccessFlags srcAccess,
                  VkPipelineStageFlags dstStages, VkAccessFlags dstAccess) {
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = srcAccess;
    b.dstAccessMask = dstAccess;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = srcFamily;
    b.dstQueueFamilyIndex = dstFamily;
    b.image = image;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cmd, srcStages, dstStages, 0, 0, nullptr, 0, nullptr, 1, &b);
}

}  // namespace vkinfer::hostvk
