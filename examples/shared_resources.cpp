// Shared resources: another Vulkan device reads vkinfer's output memory in place (zero copy).
//
// Two Vulkan devices live in this program, as they would in an application whose renderer
// (or video pipeline, or another process) consumes inference results:
//
//   the engine   a separate vkinfer Context (its own VkInstance, VkDevice and queue) running
//                ESPCN x2 with SessionOptions::shareableIO, so that its input and output
//                buffers are allocated as exportable memory;
//   the host     this program's own VkInstance and VkDevice, created on the physical device
//                with the engine's UUID, with VK_KHR_external_memory_fd.
//
// The engine runs the bundled test input, exports the output buffer's memory as an opaque
// file descriptor (exportTensorMemory), and the host imports that fd into its own device
// (VkImportMemoryFdInfoKHR, dedicated allocation, as exported), copies it into a host-visible
// buffer and checks that the bytes equal the session's own output. No CPU copy of the tensor
// crosses between the two devices: they share the memory.
//
//   example_shared_resources data/espcn_x2
//
// Exits 0 on success. With VKINFER_VALIDATE=1 both the engine and the host's instance run
// the Khronos validation layer with synchronization validation; any message fails.
//
// File descriptors: the fd from exportTensorMemory is ours. Importing it successfully hands
// it to the host's Vulkan implementation (we must not close it; freeing the imported memory
// releases it). Had the import failed, it would still be ours to close.
#include <unistd.h>
#include <vkinfer/interop.h>
#include <vkinfer/vkinfer.h>
#include <vulkan/vulkan.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

#define CHECK_VK(call)                                                                      \
    do {                                                                                    \
        VkResult r_ = (call);                                                               \
        if (r_ != VK_SUCCESS) {                                                             \
            std::fprintf(stderr, "%s failed: VkResult %d\n", #call, static_cast<int>(r_)); \
            std::exit(1);                                                                   \
        }                                                                                   \
    } while (0)

bool report(const vkinfer::Status& s, const char* what) {
    if (s.ok()) return true;
    std::fprintf(stderr, "%s: %s\n", what, s.toString().c_str());
    return false;
}

// Validation messages reported on the host's instance (counted and printed).
int gValidationMessages = 0;

VKAPI_ATTR VkBool32 VKAPI_CALL onValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                   VkDebugUtilsMessageTypeFlagsEXT,
                                                   const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
    ++gValidationMessages;
    std::fprintf(stderr, "validation (host): %s\n", data && data->pMessage ? data->pMessage : "");
    return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT messengerInfo() {
    VkDebugUtilsMessengerCreateInfoEXT info{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    info.pfnUserCallback = onValidationMessage;
    return info;
}

std::string uuidString(const std::array<uint8_t, 16>& u) {
    std::string s;
    char buf[4];
    for (size_t i = 0; i < u.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
        std::snprintf(buf, sizeof(buf), "%02x", u[i]);
        s += buf;
    }
    return s;
}

// The host application's Vulkan objects.
struct Host {
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    uint32_t family = 0;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    std::string name;
};

// The host's instance and device, on the physical device whose UUID is `uuid`.
Host createHost(const std::array<uint8_t, 16>& uuid, bool validate) {
    Host h;
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vkinfer shared resources example";
    app.apiVersion = VK_API_VERSION_1_2;
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
    CHECK_VK(vkCreateInstance(&ici, nullptr, &h.instance));
    if (validate) {
        auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(h.instance, "vkCreateDebugUtilsMessengerEXT"));
        if (!create) {
            std::fprintf(stderr, "vkCreateDebugUtilsMessengerEXT is missing\n");
            std::exit(1);
        }
        VkDebugUtilsMessengerCreateInfoEXT mi = messengerInfo();
        CHECK_VK(create(h.instance, &mi, nullptr, &h.messenger));
    }

    // Contexts are matched across devices and APIs by VkPhysicalDeviceIDProperties::deviceUUID.
    uint32_t n = 0;
    CHECK_VK(vkEnumeratePhysicalDevices(h.instance, &n, nullptr));
    std::vector<VkPhysicalDevice> devices(n);
    CHECK_VK(vkEnumeratePhysicalDevices(h.instance, &n, devices.data()));
    for (VkPhysicalDevice d : devices) {
        VkPhysicalDeviceIDProperties ids{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
        VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
        props.pNext = &ids;
        vkGetPhysicalDeviceProperties2(d, &props);
        if (std::memcmp(ids.deviceUUID, uuid.data(), VK_UUID_SIZE) == 0) {
            h.physical = d;
            h.name = props.properties.deviceName;
        }
    }
    if (!h.physical) {
        std::fprintf(stderr, "no physical device of the host's instance has the engine's UUID\n");
        std::exit(1);
    }

    // The host side asks its own driver too: can it import opaque-fd buffer memory?
    VkPhysicalDeviceExternalBufferInfo ebi{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_EXTERNAL_BUFFER_INFO};
    ebi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    ebi.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkExternalBufferProperties ebp{VK_STRUCTURE_TYPE_EXTERNAL_BUFFER_PROPERTIES};
    vkGetPhysicalDeviceExternalBufferProperties(h.physical, &ebi, &ebp);
    if (!(ebp.externalMemoryProperties.externalMemoryFeatures & VK_EXTERNAL_MEMORY_FEATURE_IMPORTABLE_BIT)) {
        std::fprintf(stderr, "'%s' cannot import opaque-fd buffer memory\n", h.name.c_str());
        std::exit(1);
    }

    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(h.physical, &nq, nullptr);
    std::vector<VkQueueFamilyProperties> families(nq);
    vkGetPhysicalDeviceQueueFamilyProperties(h.physical, &nq, families.data());
    bool found = false;
    for (uint32_t f = 0; f < nq && !found; ++f)
        if (families[f].queueFlags & (VK_QUEUE_GRAPHICS_BIT | VK_QUEUE_COMPUTE_BIT | VK_QUEUE_TRANSFER_BIT)) {
            h.family = f;
            found = true;
        }
    if (!found) {
        std::fprintf(stderr, "'%s' has no queue that can copy buffers\n", h.name.c_str());
        std::exit(1);
    }
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = h.family;
    qci.queueCount = 1;
    qci.pQueuePriorities = &priority;
    const char* deviceExtensions[] = {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME};  // importing fds
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = 1;
    dci.ppEnabledExtensionNames = deviceExtensions;
    CHECK_VK(vkCreateDevice(h.physical, &dci, nullptr, &h.device));
    vkGetDeviceQueue(h.device, h.family, 0, &h.queue);
    VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pci.queueFamilyIndex = h.family;
    CHECK_VK(vkCreateCommandPool(h.device, &pci, nullptr, &h.pool));
    return h;
}

void destroyHost(Host& h) {
    vkDestroyCommandPool(h.device, h.pool, nullptr);
    vkDestroyDevice(h.device, nullptr);
    if (h.messenger) {
        auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            vkGetInstanceProcAddr(h.instance, "vkDestroyDebugUtilsMessengerEXT"));
        if (destroy) destroy(h.instance, h.messenger, nullptr);
    }
    vkDestroyInstance(h.instance, nullptr);
    h = Host{};
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s MODEL_DIR (with model.onnx and test_data_set_0)\n", argv[0]);
        return 2;
    }
    const std::string dir = argv[1];
    const bool validate = vkinfer::validationRequestedByEnvironment();
    auto model = vkinfer::Model::load(dir + "/model.onnx");
    if (!report(model.status(), "loading the model")) return 1;
    auto data = vkinfer::loadTestDataSet(dir + "/test_data_set_0", *model);
    if (!report(data.status(), "loading test data")) return 1;

    // ---- 1. The engine: its own context, a session whose IO buffers are exportable --------
    auto context = vkinfer::Context::create();  // validation follows VKINFER_VALIDATE
    if (!report(context.status(), "creating the engine's context")) return 1;
    // Always ask at run time what the device can share (and fall back where it cannot).
    vkinfer::InteropCapabilities caps = vkinfer::queryInteropCapabilities(*context);
    std::printf("engine device: %s, uuid %s\n", context->device().name.c_str(), uuidString(caps.deviceUuid).c_str());
    std::printf("  export opaque fd %s, dma-buf %s, timeline semaphore fd %s\n", caps.exportMemoryOpaqueFd ? "yes" : "no",
                caps.exportMemoryDmaBuf ? "yes" : "no",
                caps.exportTimelineSemaphoreFd ? "yes" : "no (wait for tickets on the host)");
    if (!caps.exportMemoryOpaqueFd) {
        std::fprintf(stderr, "this device cannot export buffer memory as opaque fds\n");
        return 1;
    }

    vkinfer::SessionOptions options;
    options.shareableIO = true;  // input and output buffers allocated as exportable memory
    auto session = vkinfer::Session::create(*context, *model, options);
    if (!report(session.status(), "creating the session")) return 1;
    // Sharing refers to the buffers of a prepared plan: prepare it for the input's shape.
    vkinfer::InputShapes shapes;
    for (const auto& in : data->inputs) shapes.emplace_back(in.name, in.tensor.shape());
    if (!report(session->prepare(shapes), "preparing the session")) return 1;

    // Session::run waits for the GPU: when it returns, the output memory holds the result.
    // (With submit(), wait for the ticket first: Session::wait / isDone, or the exported
    // timeline semaphore where the device can export it.)
    auto outputs = session->run(data->inputs);
    if (!report(outputs.status(), "running the model")) return 1;
    const vkinfer::NamedTensor& output = (*outputs)[0];
    vkinfer::Comparison reference = vkinfer::compareTensors(output.tensor, data->outputs[0].tensor);

    // ---- 2. Export the output buffer's memory (frame slot 0) as an opaque fd --------------
    auto exported = vkinfer::exportTensorMemory(*session, output.name);
    if (!report(exported.status(), "exporting the output memory")) return 1;
    std::printf("exported '%s': fd %d, %llu bytes at offset %llu of a %llu-byte allocation, memory type %u\n",
                output.name.c_str(), exported->fd, static_cast<unsigned long long>(exported->bytes),
                static_cast<unsigned long long>(exported->offset),
                static_cast<unsigned long long>(exported->allocationSize), exported->memoryTypeIndex);

    // ---- 3. The host: its own device on the same physical device (same UUID) ---------------
    Host host = createHost(exported->deviceUuid, validate);
    std::printf("host device: %s (its own VkInstance and VkDevice)\n", host.name.c_str());

    // ---- 4. Import the fd. Vulkan's rules for an opaque fd created by Vulkan: a buffer like
    // the exporting one (same size and usage, external-memory flag), the same allocation size
    // and memory type, and a dedicated allocation when the export was one.
    VkExternalMemoryBufferCreateInfo external{VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO};
    external.handleTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.pNext = &external;
    bci.size = exported->bytes;
    bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkBuffer shared = VK_NULL_HANDLE;
    CHECK_VK(vkCreateBuffer(host.device, &bci, nullptr, &shared));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(host.device, shared, &req);
    if (!(req.memoryTypeBits & (1u << exported->memoryTypeIndex)) || req.size > exported->allocationSize) {
        std::fprintf(stderr, "the host's buffer cannot use the exported memory\n");
        close(exported->fd);  // not imported: still ours
        return 1;
    }
    VkMemoryDedicatedAllocateInfo dedicated{VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO};
    dedicated.buffer = shared;
    VkImportMemoryFdInfoKHR import{VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR};
    import.pNext = exported->dedicated ? &dedicated : nullptr;
    import.handleType = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
    import.fd = exported->fd;
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.pNext = &import;
    mai.allocationSize = exported->allocationSize;
    mai.memoryTypeIndex = exported->memoryTypeIndex;
    VkDeviceMemory sharedMemory = VK_NULL_HANDLE;
    VkResult imported = vkAllocateMemory(host.device, &mai, nullptr, &sharedMemory);
    if (imported != VK_SUCCESS) {
        std::fprintf(stderr, "importing the fd failed: VkResult %d\n", static_cast<int>(imported));
        close(exported->fd);  // a failed import leaves the fd with us
        return 1;
    }
    // From here on the fd belongs to the host's Vulkan implementation: never close it.
    CHECK_VK(vkBindBufferMemory(host.device, shared, sharedMemory, exported->offset));

    // ---- 5. Read it back: copy the shared buffer into a host-visible one ------------------
    VkBufferCreateInfo rci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    rci.size = exported->bytes;
    rci.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer readback = VK_NULL_HANDLE;
    CHECK_VK(vkCreateBuffer(host.device, &rci, nullptr, &readback));
    vkGetBufferMemoryRequirements(host.device, readback, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(host.physical, &mp);
    const VkMemoryPropertyFlags hostFlags = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = UINT32_MAX;
    for (uint32_t i = 0; i < mp.memoryTypeCount && type == UINT32_MAX; ++i)
        if ((req.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & hostFlags) == hostFlags) type = i;
    if (type == UINT32_MAX) {
        std::fprintf(stderr, "no host-visible memory type\n");
        return 1;
    }
    VkMemoryAllocateInfo rai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    rai.allocationSize = req.size;
    rai.memoryTypeIndex = type;
    VkDeviceMemory readbackMemory = VK_NULL_HANDLE;
    CHECK_VK(vkAllocateMemory(host.device, &rai, nullptr, &readbackMemory));
    CHECK_VK(vkBindBufferMemory(host.device, readback, readbackMemory, 0));

    VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = host.pool;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    CHECK_VK(vkAllocateCommandBuffers(host.device, &cai, &cmd));
    VkCommandBufferBeginInfo cbi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    cbi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    CHECK_VK(vkBeginCommandBuffer(cmd, &cbi));
    // The engine's writes finished before run() returned (its fence); on this device the
    // shared memory is simply read by a transfer, then by the CPU.
    VkBufferCopy copy{0, 0, exported->bytes};
    vkCmdCopyBuffer(cmd, shared, readback, 1, &copy);
    VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0, nullptr, 0,
                         nullptr);
    CHECK_VK(vkEndCommandBuffer(cmd));
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    CHECK_VK(vkCreateFence(host.device, &fci, nullptr, &fence));
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    CHECK_VK(vkQueueSubmit(host.queue, 1, &si, fence));
    CHECK_VK(vkWaitForFences(host.device, 1, &fence, VK_TRUE, UINT64_MAX));
    void* mapped = nullptr;
    CHECK_VK(vkMapMemory(host.device, readbackMemory, 0, VK_WHOLE_SIZE, 0, &mapped));
    const bool identical = exported->bytes == output.tensor.byteSize() &&
                           std::memcmp(mapped, output.tensor.data(), output.tensor.byteSize()) == 0;
    vkUnmapMemory(host.device, readbackMemory);

    // ---- 6. Clean up the host's objects (freeing the imported memory releases the fd). The
    // engine's session and context go when `session` and `context` leave scope.
    vkDestroyFence(host.device, fence, nullptr);
    vkFreeCommandBuffers(host.device, host.pool, 1, &cmd);
    vkDestroyBuffer(host.device, readback, nullptr);
    vkFreeMemory(host.device, readbackMemory, nullptr);
    vkDestroyBuffer(host.device, shared, nullptr);
    vkFreeMemory(host.device, sharedMemory, nullptr);
    destroyHost(host);
    const std::vector<std::string> engineMessages = context->takeValidationMessages();
    for (const auto& m : engineMessages) std::fprintf(stderr, "validation (engine): %s\n", m.c_str());

    std::printf("host read %llu bytes of '%s' through the shared memory: %s Session::run's output\n",
                static_cast<unsigned long long>(exported->bytes), output.name.c_str(),
                identical ? "identical to" : "DIFFERENT FROM");
    std::printf("Session::run vs reference: %lld mismatches, max error %.3g (%s)\n",
                static_cast<long long>(reference.mismatches), reference.maxAbsError, reference.pass ? "ok" : "MISMATCH");
    std::printf("validation: %s, %d host message(s), %zu engine message(s)\n", validate ? "on" : "off",
                gValidationMessages, engineMessages.size());
    const bool ok = identical && reference.pass && gValidationMessages == 0 && engineMessages.empty();
    std::printf("%s\n", ok ? "shared resources: OK" : "shared resources: FAILED");
    return ok ? 0 : 1;
}
