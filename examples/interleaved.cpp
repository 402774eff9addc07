// Interleaved execution: vkinfer records into the host's own command buffer.
//
// This program plays a renderer. It creates its own Vulkan instance and device (one
// graphics + compute queue), "renders" a frame into an RGBA8 image (here: a gradient
// uploaded with a buffer-to-image copy; a real renderer would draw it), and has vkinfer
// upscale that image 2x with ESPCN *in the same command buffer*: vkinfer reads the image
// directly (no CPU round trip) and writes a storage image the renderer can sample or copy.
// The renderer submits once and waits on its own fence: vkinfer never submits.
//
//   example_interleaved data/espcn_x2
//
// The result is checked against Session::run on a separate vkinfer Context (the same
// pre- and post-processing done on the CPU) within 1 LSB. Exits 0 on success. With
// VKINFER_VALIDATE=1 the program enables the Khronos validation layer with synchronization
// validation on its own instance and fails on any message it reports.
#include <vkinfer/interop.h>
#include <vkinfer/vkinfer.h>
#include <vulkan/vulkan.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

#define CHECK_VK(call)                                                                  \
    do {                                                                                \
        VkResult r_ = (call);                                                           \
        if (r_ != VK_SUCCESS) {                                                         \
            std::fprintf(stderr, "%s failed: VkResult %d\n", #call, static_cast<int>(r_)); \
            std::exit(1);                                                               \
        }                                                                               \
    } while (0)

bool report(const vkinfer::Status& s, const char* what) {
    if (s.ok()) return true;
    std::fprintf(stderr, "%s: %s\n", what, s.toString().c_str());
    return false;
}

// Validation messages reported on this program's instance (counted and printed).
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

// The renderer's Vulkan objects: what any Vulkan application already has.
struct Renderer {
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    uint32_t family = 0;
    VkQueue queue = VK_NULL_HANDLE;
    // What the device was created with: vkinfer's requirements (feature chain, extensions).
    std::unique_ptr<vkinfer::DeviceRequirements> requirements;
    std::vector<std::string> extensions;

    uint32_t memoryType(uint32_t bits, VkMemoryPropertyFlags flags) const {
        VkPhysicalDeviceMemoryProperties mp;
        vkGetPhysicalDeviceMemoryProperties(physical, &mp);
        for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
            if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & flags) == flags) return i;
        std::fprintf(stderr, "no suitable memory type\n");
        std::exit(1);
    }
};

Renderer createRenderer(bool validate) {
    Renderer r;
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vkinfer interleaved example";
    app.apiVersion = VK_API_VERSION_1_2;  // vkinfer needs 1.2
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    const char* layers[] = {"VK_LAYER_KHRONOS_validation"};
    const char* extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
    VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    VkDebugUtilsMessengerCreateInfoEXT creationMessenger = messengerInfo();
    if (validate) {
        // Validation is the host's: vkinfer's commands in this device are checked by the
        // layer on this instance, like the renderer's own.
        ici.enabledLayerCount = 1;
        ici.ppEnabledLayerNames = layers;
        ici.enabledExtensionCount = 2;
        ici.ppEnabledExtensionNames = extensions;
        features.enabledValidationFeatureCount = 1;
        features.pEnabledValidationFeatures = enables;
        features.pNext = &creationMessenger;  // sees instance creation and destruction
        ici.pNext = &features;
    }
    CHECK_VK(vkCreateInstance(&ici, nullptr, &r.instance));
    if (validate) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(r.instance, "vkCreateDebugUtilsMessengerEXT"));
        VkDebugUtilsMessengerCreateInfoEXT mi = messengerInfo();
        if (!create) {
            std::fprintf(stderr, "vkCreateDebugUtilsMessengerEXT is missing\n");
            std::exit(1);
        }
        CHECK_VK(create(r.instance, &mi, nullptr, &r.messenger));
    }

    // The first device with a queue family that does graphics and compute (a renderer's
    // usual "universal" queue; vkinfer only needs compute).
    uint32_t n = 0;
    CHECK_VK(vkEnumeratePhysicalDevices(r.instance, &n, nullptr));
    std::vector<VkPhysicalDevice> devices(n);
    CHECK_VK(vkEnumeratePhysicalDevices(r.instance, &n, devices.data()));
    bool found = false;
    for (VkPhysicalDevice d : devices) {
        uint32_t nq = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(d, &nq, nullptr);
        std::vector<VkQueueFamilyProperties> families(nq);
        vkGetPhysicalDeviceQueueFamilyProperties(d, &nq, families.data());
        for (uint32_t f = 0; f < nq && !found; ++f)
            if ((families[f].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) ==
                (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT)) {
                r.physical = d;
                r.family = f;
                found = true;
            }
        if (found) break;
    }
    if (!found) {
        std::fprintf(stderr, "no Vulkan device with a graphics + compute queue\n");
        std::exit(1);
    }

    // Features and extensions: what vkinfer uses on this device (queryDeviceRequirements),
    // plus what the renderer itself needs (ORed into the same structures).
    auto req = vkinfer::queryDeviceRequirements(r.physical);
    if (!report(req.status(), "querying what vkinfer uses on the device")) std::exit(1);
    r.requirements = std::make_unique<vkinfer::DeviceRequirements>(std::move(req).value());
    VkPhysicalDeviceVulkan12Features have12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 have{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    have.pNext = &have12;
    vkGetPhysicalDeviceFeatures2(r.physical, &have);
    r.requirements->features12().timelineSemaphore = have12.timelineSemaphore;  // the renderer's own wish
    r.extensions = r.requirements->extensions();

    float priority = 1.0f;
    VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = r.family;
    qi.queueCount = 1;
    qi.pQueuePriorities = &priority;
    const std::vector<const char*>& extensionNames = r.requirements->extensionNames();
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = r.requirements->featureChain();  // the core features travel in the chain
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qi;
    dci.enabledExtensionCount = static_cast<uint32_t>(extensionNames.size());
    dci.ppEnabledExtensionNames = extensionNames.data();
    CHECK_VK(vkCreateDevice(r.physical, &dci, nullptr, &r.device));
    vkGetDeviceQueue(r.device, r.family, 0, &r.queue);
    return r;
}

struct Image {
    VkImage image = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
};

Image createImage(const Renderer& r, uint32_t w, uint32_t h, VkImageUsageFlags usage) {
    Image img;
    VkImageCreateInfo ci{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    ci.imageType = VK_IMAGE_TYPE_2D;
    ci.format = VK_FORMAT_R8G8B8A8_UNORM;
    ci.extent = {w, h, 1};
    ci.mipLevels = 1;
    ci.arrayLayers = 1;
    ci.samples = VK_SAMPLE_COUNT_1_BIT;
    ci.tiling = VK_IMAGE_TILING_OPTIMAL;
    ci.usage = usage;
    ci.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    CHECK_VK(vkCreateImage(r.device, &ci, nullptr, &img.image));
    VkMemoryRequirements req;
    vkGetImageMemoryRequirements(r.device, img.image, &req);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = r.memoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
    CHECK_VK(vkAllocateMemory(r.device, &ai, nullptr, &img.memory));
    CHECK_VK(vkBindImageMemory(r.device, img.image, img.memory, 0));
    VkImageViewCreateInfo vi{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
    vi.image = img.image;
    vi.viewType = VK_IMAGE_VIEW_TYPE_2D;
    vi.format = VK_FORMAT_R8G8B8A8_UNORM;
    vi.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    CHECK_VK(vkCreateImageView(r.device, &vi, nullptr, &img.view));
    return img;
}

struct HostBuffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void* mapped = nullptr;
};

HostBuffer createHostBuffer(const Renderer& r, VkDeviceSize size, VkBufferUsageFlags usage) {
    HostBuffer b;
    VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    ci.size = size;
    ci.usage = usage;
    CHECK_VK(vkCreateBuffer(r.device, &ci, nullptr, &b.buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(r.device, b.buffer, &req);
    VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size;
    ai.memoryTypeIndex =
        r.memoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    CHECK_VK(vkAllocateMemory(r.device, &ai, nullptr, &b.memory));
    CHECK_VK(vkBindBufferMemory(r.device, b.buffer, b.memory, 0));
    CHECK_VK(vkMapMemory(r.device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
    return b;
}

void imageBarrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, VkPipelineStageFlags src,
                  VkAccessFlags srcAccess, VkPipelineStageFlags dst, VkAccessFlags dstAccess) {
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = srcAccess;
    b.dstAccessMask = dstAccess;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cmd, src, dst, 0, 0, nullptr, 0, nullptr, 1, &b);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s MODEL_DIR (with model.onnx: an image-to-image model, e.g. data/espcn_x2)\n",
                     argv[0]);
        return 2;
    }
    const bool validate = vkinfer::validationRequestedByEnvironment();  // VKINFER_VALIDATE=1
    const uint32_t W = 64, H = 48;  // the frame; the dynamic model takes its size from the image

    auto model = vkinfer::Model::load(std::string(argv[1]) + "/model.onnx");
    if (!report(model.status(), "loading the model")) return 1;
    const std::string inputName = model->inputs().at(0).name, outputName = model->outputs().at(0).name;

    // --- The renderer's own Vulkan setup ------------------------------------------------
    Renderer r = createRenderer(validate);
    VkCommandPool pool;
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.queueFamilyIndex = r.family;
    CHECK_VK(vkCreateCommandPool(r.device, &pci, nullptr, &pool));
    // The rendered frame (sampled by vkinfer) and the upscaled result (a storage image
    // vkinfer writes; the renderer would sample it, here it copies it out).
    Image frame = createImage(r, W, H, VK_IMAGE_USAGE_TRANSFER_DST_BIT | VK_IMAGE_USAGE_SAMPLED_BIT);
    Image upscaled = createImage(r, 2 * W, 2 * H,
                                 VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
    HostBuffer upload = createHostBuffer(r, VkDeviceSize(W) * H * 4, VK_BUFFER_USAGE_TRANSFER_SRC_BIT);
    HostBuffer readback = createHostBuffer(r, VkDeviceSize(4) * W * H * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT);

    // "Rendering": a smooth gradient with some structure, as RGBA8 bytes.
    auto* px = static_cast<uint8_t*>(upload.mapped);
    for (uint32_t y = 0; y < H; ++y)
        for (uint32_t x = 0; x < W; ++x) {
            float u = x / float(W - 1), v = y / float(H - 1);
            uint8_t* p = px + 4 * (size_t(y) * W + x);
            p[0] = uint8_t(std::lround(255 * u));
            p[1] = uint8_t(std::lround(255 * v));
            p[2] = uint8_t(std::lround(255 * (0.5f + 0.5f * std::sin(6.2831853f * (u + 0.5f * v)))));
            p[3] = 255;
        }

    // --- Hand the device to vkinfer ------------------------------------------------------
    // vkinfer gets the handles and what was enabled; it creates its pipelines, buffers and
    // descriptor pools on this device and destroys them with the context and session.
    vkinfer::HostDevice host;
    host.instance = r.instance;
    host.physicalDevice = r.physical;
    host.device = r.device;
    host.queueFamilyIndex = r.family;
    host.queue = r.queue;  // optional: used once to upload the weights (else: the first recording does)
    host.apiVersion = VK_API_VERSION_1_2;  // what the instance was created with
    host.enabledExtensions = r.extensions;
    host.enabledFeatureChain = r.requirements->featureChain();  // what vkCreateDevice got
    int status = 1;
    {
        auto context = vkinfer::wrapHostDevice(host);
        if (!report(context.status(), "wrapping the renderer's device")) return 1;
        auto session = vkinfer::Session::create(*context, *model);
        if (!report(session.status(), "creating the session")) return 1;

        // --- One frame: render, upscale, copy out; one command buffer ---------------------
        VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        cai.commandPool = pool;
        cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        cai.commandBufferCount = 1;
        VkCommandBuffer cmd;
        CHECK_VK(vkAllocateCommandBuffers(r.device, &cai, &cmd));
        VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
        CHECK_VK(vkBeginCommandBuffer(cmd, &bi));

        // The renderer's work: the frame ends up written by a transfer.
        imageBarrier(cmd, frame.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                     VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT);
        VkBufferImageCopy region{};
        region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        region.imageExtent = {W, H, 1};
        vkCmdCopyBufferToImage(cmd, upload.buffer, frame.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &region);

        // vkinfer's work, recorded right here. The renderer declares how it left each image
        // ("before") and how it uses it next ("after"); vkinfer records the barriers and
        // layout transitions between those and its own compute work.
        vkinfer::ImageInput in;
        in.image = {frame.image, frame.view, VK_FORMAT_R8G8B8A8_UNORM, W, H};
        in.access = vkinfer::ImageAccess::Sampled;
        in.before = {VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT};
        // Next, the renderer would sample the frame in a fragment shader (e.g. a picture-in-picture).
        in.after = {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                    VK_ACCESS_SHADER_READ_BIT};
        // pixel -> tensor: (pixel - mean) * scale; espcn_x2 takes RGB in [0, 1] as is.
        vkinfer::ImageOutput out;
        out.image = {upscaled.image, upscaled.view, VK_FORMAT_R8G8B8A8_UNORM, 2 * W, 2 * H};
        out.before = {};  // UNDEFINED: every pixel is overwritten
        out.after = {VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT};
        vkinfer::RecordIO io;
        io.imageInputs = {{inputName, in}};
        io.imageOutputs = {{outputName, out}};
        if (!report(vkinfer::recordInference(*session, cmd, io), "recording the inference")) return 1;
        // The command buffer's compute bindings are vkinfer's now; graphics state is untouched.

        // The renderer's work again: copy the result out (it would usually sample it).
        region.imageExtent = {2 * W, 2 * H, 1};
        vkCmdCopyImageToBuffer(cmd, upscaled.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer, 1, &region);
        VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0, nullptr, 0,
                             nullptr);
        CHECK_VK(vkEndCommandBuffer(cmd));

        // One submission, the renderer's own fence.
        VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        VkFence fence;
        CHECK_VK(vkCreateFence(r.device, &fci, nullptr, &fence));
        VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        si.commandBufferCount = 1;
        si.pCommandBuffers = &cmd;
        CHECK_VK(vkQueueSubmit(r.queue, 1, &si, fence));
        CHECK_VK(vkWaitForFences(r.device, 1, &fence, VK_TRUE, UINT64_MAX));
        vkDestroyFence(r.device, fence, nullptr);

        // --- Check against a separate vkinfer context ------------------------------------
        // The same pre-processing on the CPU: RGBA8 unorm -> float, RGB planes of [1, 3, H, W].
        vkinfer::Tensor input(vkinfer::DataType::Float32, {1, 3, H, W});
        for (uint32_t i = 0; i < W * H; ++i)
            for (int c = 0; c < 3; ++c) input.as<float>()[c * W * H + i] = px[4 * i + c] / 255.0f;
        auto refContext = vkinfer::Context::create();  // validates itself under VKINFER_VALIDATE=1
        if (!report(refContext.status(), "creating the reference context")) return 1;
        auto refSession = vkinfer::Session::create(*refContext, *model);
        if (!report(refSession.status(), "creating the reference session")) return 1;
        auto ref = refSession->run({{inputName, input}});
        if (!report(ref.status(), "running the reference")) return 1;
        const vkinfer::Tensor& t = ref->at(0).tensor;
        if (t.shape() != std::vector<int64_t>{1, 3, 2 * H, 2 * W}) {
            std::fprintf(stderr, "reference output is %s, expected 1x3x%ux%u\n", vkinfer::shapeToString(t.shape()).c_str(),
                         2 * H, 2 * W);
            return 1;
        }
        // The same post-processing: clamp to [0, 1], 8 bits, alpha 1.
        const auto* got = static_cast<const uint8_t*>(readback.mapped);
        const size_t plane = size_t(4) * W * H;
        int worst = 0;
        size_t over = 0;
        for (size_t i = 0; i < plane; ++i)
            for (int c = 0; c < 4; ++c) {
                float v = c < 3 ? std::clamp(t.as<float>()[c * plane + i], 0.0f, 1.0f) : 1.0f;
                int d = std::abs(int(got[4 * i + c]) - int(std::lround(v * 255.0f)));
                worst = std::max(worst, d);
                over += d > 1;
            }
        std::printf("device: %s\n", refContext->device().name.c_str());
        std::printf("interleaved: %ux%u -> %ux%u upscaled in the renderer's command buffer; vs. separate context: "
                    "max difference %d LSB, %zu values over 1 LSB\n",
                    W, H, 2 * W, 2 * H, worst, over);
        status = over == 0 ? 0 : 1;
        // The session and contexts go before the renderer destroys its device.
    }

    vkDestroyImageView(r.device, frame.view, nullptr);
    vkDestroyImage(r.device, frame.image, nullptr);
    vkFreeMemory(r.device, frame.memory, nullptr);
    vkDestroyImageView(r.device, upscaled.view, nullptr);
    vkDestroyImage(r.device, upscaled.image, nullptr);
    vkFreeMemory(r.device, upscaled.memory, nullptr);
    for (HostBuffer* b : {&upload, &readback}) {
        vkDestroyBuffer(r.device, b->buffer, nullptr);
        vkFreeMemory(r.device, b->memory, nullptr);
    }
    vkDestroyCommandPool(r.device, pool, nullptr);
    vkDestroyDevice(r.device, nullptr);
    if (r.messenger) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(r.instance, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(r.instance, r.messenger, nullptr);
    }
    vkDestroyInstance(r.instance, nullptr);

    if (validate) std::printf("validation (with synchronization validation): %d messages\n", gValidationMessages);
    if (gValidationMessages > 0) return 1;
    if (status == 0) std::printf("ok\n");
    return status;
}
