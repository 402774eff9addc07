// Times one GEMM kernel built for VK_NV_cooperative_matrix2's workgroup-scope matrices
// (gemm_wg.comp, compiled against GL_NV_cooperative_matrix and translated here by the engine's
// translateCoopmatNvToKhr, src/vk/coopmat_khr.h) on C[M x N] = A[M x K] B[K x N], float16 in and
// out, and checks sampled outputs against a CPU product. An experiment (README.md here): it
// answers whether the driver's workgroup-scope GEMM gets nearer cuBLAS than the project's
// subgroup-scope tiles before the engine is taught to compile and enable it.
//
//   cm2_gemm_probe --info
//   cm2_gemm_probe KERNEL.spv BM BN WG M N K [ITERS] [--b-nk]
//
// M, N and K must be multiples of BM, BN and the kernel's K slice (the kernel has no bounds
// checks). --b-nk: B is stored N x K (kernels of gemm_tensor.py --b-nk); a kernel that reads
// it otherwise fails the check. Prints the median dispatch time of ITERS (default 20) and its
// TFLOP/s, and exits 1 on a wrong output or a Vulkan error naming the call.
// Debian 12's Vulkan headers predate both cooperative-matrix extensions used here, so their
// structures are declared below from the registry (sType values and layouts as in vulkan_core.h).
#include <vulkan/vulkan.h>

#include "core/half.h"
#include "io/whole_file.h"
#include "vk/coopmat_khr.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

constexpr auto kCoopMatFeaturesKhr = static_cast<VkStructureType>(1000506000);
constexpr auto kCoopMat2FeaturesNv = static_cast<VkStructureType>(1000593000);
constexpr auto kFlexibleDimensionsPropertiesNv = static_cast<VkStructureType>(1000593001);
constexpr auto kCoopMat2PropertiesNv = static_cast<VkStructureType>(1000593002);

struct CoopMatFeaturesKhr {
    VkStructureType sType = kCoopMatFeaturesKhr;
    void* pNext = nullptr;
    VkBool32 cooperativeMatrix = VK_FALSE;
    VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};
struct CoopMat2FeaturesNv {
    VkStructureType sType = kCoopMat2FeaturesNv;
    void* pNext = nullptr;
    VkBool32 workgroupScope = VK_FALSE;
    VkBool32 flexibleDimensions = VK_FALSE;
    VkBool32 reductions = VK_FALSE;
    VkBool32 conversions = VK_FALSE;
    VkBool32 perElementOperations = VK_FALSE;
    VkBool32 tensorAddressing = VK_FALSE;
    VkBool32 blockLoads = VK_FALSE;
};
struct CoopMat2PropertiesNv {
    VkStructureType sType = kCoopMat2PropertiesNv;
    void* pNext = nullptr;
    uint32_t workgroupScopeMaxWorkgroupSize = 0;
    uint32_t flexibleDimensionsMaxDimension = 0;
    uint32_t workgroupScopeReservedSharedMemory = 0;
};
struct FlexibleDimensionsPropertiesNv {
    VkStructureType sType = kFlexibleDimensionsPropertiesNv;
    void* pNext = nullptr;
    uint32_t mGranularity, nGranularity, kGranularity;
    uint32_t aType, bType, cType, resultType;
    VkBool32 saturatingAccumulation;
    uint32_t scope;
    uint32_t workgroupInvocations;
};
using GetFlexibleDimensions = VkResult(VKAPI_PTR*)(VkPhysicalDevice, uint32_t*, FlexibleDimensionsPropertiesNv*);

void check(VkResult r, const char* call) {
    if (r != VK_SUCCESS) throw std::runtime_error(std::string(call) + " failed: VkResult " + std::to_string(r));
}
#define VK(call) check(call, #call)

const char* typeName(uint32_t t) {
    switch (t) {
    case 0: return "f16";
    case 1: return "f32";
    case 3: return "s8";
    case 5: return "s32";
    case 7: return "u8";
    case 9: return "u32";
    case 1000141000: return "bf16";
    default: return "other";
    }
}

struct Gpu {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    uint32_t family = 0;
    float timestampNs = 1;

    Gpu() {
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.pApplicationName = "cm2_gemm_probe";
        app.apiVersion = VK_API_VERSION_1_3;
        VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        ici.pApplicationInfo = &app;
        VK(vkCreateInstance(&ici, nullptr, &instance));
        uint32_t count = 0;
        VK(vkEnumeratePhysicalDevices(instance, &count, nullptr));
        if (count == 0) throw std::runtime_error("vkEnumeratePhysicalDevices: no Vulkan device");
        std::vector<VkPhysicalDevice> all(count);
        VK(vkEnumeratePhysicalDevices(instance, &count, all.data()));
        physical = all[0];
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(physical, &props);
        timestampNs = props.limits.timestampPeriod;
        std::printf("device: %s (driver %u.%u)\n", props.deviceName, props.driverVersion >> 22,
                    (props.driverVersion >> 14) & 0xFF);
    }
    ~Gpu() {
        if (device) vkDestroyDevice(device, nullptr);
        vkDestroyInstance(instance, nullptr);
    }

    bool hasExtension(const char* name) const {
        uint32_t count = 0;
        vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, nullptr);
        std::vector<VkExtensionProperties> ext(count);
        vkEnumerateDeviceExtensionProperties(physical, nullptr, &count, ext.data());
        return std::any_of(ext.begin(), ext.end(), [&](auto& e) { return std::strcmp(e.extensionName, name) == 0; });
    }

    void printInfo() const {
        CoopMat2FeaturesNv f2;
        CoopMatFeaturesKhr f1;
        f1.pNext = &f2;
        VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f1};
        vkGetPhysicalDeviceFeatures2(physical, &features);
        std::printf("VK_KHR_cooperative_matrix %d (feature %u), VK_NV_cooperative_matrix2 %d\n",
                    hasExtension("VK_KHR_cooperative_matrix"), f1.cooperativeMatrix,
                    hasExtension("VK_NV_cooperative_matrix2"));
        std::printf("features: workgroup scope %u, flexible dimensions %u, reductions %u, conversions %u, "
                    "per-element %u, tensor addressing %u, block loads %u\n",
                    f2.workgroupScope, f2.flexibleDimensions, f2.reductions, f2.conversions,
                    f2.perElementOperations, f2.tensorAddressing, f2.blockLoads);
        CoopMat2PropertiesNv p2;
        VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &p2};
        vkGetPhysicalDeviceProperties2(physical, &props);
        std::printf("workgroup scope: at most %u invocations, dimensions up to %u, %u bytes of shared memory "
                    "reserved; maxComputeSharedMemorySize %u\n",
                    p2.workgroupScopeMaxWorkgroupSize, p2.flexibleDimensionsMaxDimension,
                    p2.workgroupScopeReservedSharedMemory, props.properties.limits.maxComputeSharedMemorySize);
        auto get = reinterpret_cast<GetFlexibleDimensions>(
            vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV"));
        if (!get) return;
        uint32_t count = 0;
        get(physical, &count, nullptr);
        std::vector<FlexibleDimensionsPropertiesNv> dims(count);
        get(physical, &count, dims.data());
        for (auto& d : dims)
            std::printf("flexible: granularity %ux%ux%u %s x %s + %s -> %s, scope %u, %u invocations\n",
                        d.mGranularity, d.nGranularity, d.kGranularity, typeName(d.aType), typeName(d.bType),
                        typeName(d.cType), typeName(d.resultType), d.scope, d.workgroupInvocations);
    }

    void createDevice() {
        // Without the extensions (lavapipe) only a plain kernel runs: how the probe itself is
        // tested (gemm_plain.comp).
        const bool coopmat2 = hasExtension("VK_KHR_cooperative_matrix") && hasExtension("VK_NV_cooperative_matrix2");
        if (!coopmat2) std::printf("warning: no VK_NV_cooperative_matrix2: only a kernel without matrices runs\n");
        uint32_t count = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, nullptr);
        std::vector<VkQueueFamilyProperties> families(count);
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &count, families.data());
        family = 0;
        while (family < count && !(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
        if (family == count) throw std::runtime_error("no compute queue family");

        // Workgroup scope, flexible dimensions and tensor addressing (gemm_tensor.py's loads),
        // each where offered.
        CoopMat2FeaturesNv offered;
        VkPhysicalDeviceFeatures2 query{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &offered};
        if (coopmat2) vkGetPhysicalDeviceFeatures2(physical, &query);
        CoopMat2FeaturesNv f2;
        f2.workgroupScope = offered.workgroupScope;
        f2.flexibleDimensions = offered.flexibleDimensions;
        f2.tensorAddressing = offered.tensorAddressing;
        CoopMatFeaturesKhr f1;
        f1.cooperativeMatrix = VK_TRUE;
        f1.pNext = &f2;
        VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
        if (coopmat2) v12.pNext = &f1;
        v12.shaderFloat16 = v12.vulkanMemoryModel = VK_TRUE;
        VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &v12};
        v11.storageBuffer16BitAccess = VK_TRUE;
        float priority = 1;
        VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        qci.queueFamilyIndex = family;
        qci.queueCount = 1;
        qci.pQueuePriorities = &priority;
        const char* extensions[] = {"VK_KHR_cooperative_matrix", "VK_NV_cooperative_matrix2"};
        VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &v11};
        dci.queueCreateInfoCount = 1;
        dci.pQueueCreateInfos = &qci;
        dci.enabledExtensionCount = coopmat2 ? 2 : 0;
        dci.ppEnabledExtensionNames = extensions;
        VK(vkCreateDevice(physical, &dci, nullptr, &device));
        vkGetDeviceQueue(device, family, 0, &queue);
    }

    uint32_t memoryType(uint32_t bits, VkMemoryPropertyFlags want) const {
        VkPhysicalDeviceMemoryProperties mp;
        vkGetPhysicalDeviceMemoryProperties(physical, &mp);
        for (uint32_t i = 0; i < mp.memoryTypeCount; ++i)
            if ((bits & (1u << i)) && (mp.memoryTypes[i].propertyFlags & want) == want) return i;
        return UINT32_MAX;
    }
};

// A storage buffer in device-local, host-visible memory (NVIDIA's resizable BAR), else in
// host memory with a warning: timings from host memory measure PCIe.
struct Buffer {
    VkDevice device;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void* mapped = nullptr;
    Buffer(const Gpu& gpu, VkDeviceSize bytes) : device(gpu.device) {
        VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        bci.size = bytes;
        bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
        VK(vkCreateBuffer(device, &bci, nullptr, &buffer));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device, buffer, &req);
        const auto coherent = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        uint32_t type = gpu.memoryType(req.memoryTypeBits, coherent | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
        if (type == UINT32_MAX) {
            std::printf("warning: no device-local host-visible memory; timing host memory\n");
            type = gpu.memoryType(req.memoryTypeBits, coherent);
            if (type == UINT32_MAX) throw std::runtime_error("no host-visible coherent memory for a storage buffer");
        }
        VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        mai.allocationSize = req.size;
        mai.memoryTypeIndex = type;
        VK(vkAllocateMemory(device, &mai, nullptr, &memory));
        VK(vkBindBufferMemory(device, buffer, memory, 0));
        VK(vkMapMemory(device, memory, 0, VK_WHOLE_SIZE, 0, &mapped));
    }
    ~Buffer() {
        vkDestroyBuffer(device, buffer, nullptr);
        vkFreeMemory(device, memory, nullptr);
    }
    uint16_t* halves() { return static_cast<uint16_t*>(mapped); }
};

std::vector<uint32_t> readSpirv(const char* path) {
    const std::string bytes = vkinfer::io::readWholeFile(path, "kernel file");
    std::vector<uint32_t> words(bytes.size() / 4);
    std::memcpy(words.data(), bytes.data(), words.size() * 4);
    if (bytes.size() < 20 || bytes.size() % 4 || words[0] != 0x07230203u)
        throw std::runtime_error(std::string(path) + ": not a SPIR-V module (" + std::to_string(bytes.size()) +
                                 " bytes)");
    return words;
}

uint32_t positive(const char* s, const char* what) {
    char* end = nullptr;
    unsigned long v = std::strtoul(s, &end, 10);
    if (!end || *end || v == 0 || v > (1u << 20)) throw std::runtime_error(std::string(what) + ": not a size: " + s);
    return static_cast<uint32_t>(v);
}

int run(int argc, char** argv) {
    // --b-nk (last): B is stored N x K, K contiguous (gemm_tensor.py --b-nk kernels).
    const bool bNK = argc > 2 && std::strcmp(argv[argc - 1], "--b-nk") == 0;
    if (bNK) --argc;
    Gpu gpu;
    if (argc == 2 && std::strcmp(argv[1], "--info") == 0) {
        gpu.printInfo();
        return 0;
    }
    if (argc < 8 || argc > 9) {
        std::fprintf(stderr, "usage: cm2_gemm_probe --info | KERNEL.spv BM BN WG M N K [ITERS] [--b-nk]\n");
        return 2;
    }
    const uint32_t bm = positive(argv[2], "BM"), bn = positive(argv[3], "BN"), wg = positive(argv[4], "WG");
    const uint32_t M = positive(argv[5], "M"), N = positive(argv[6], "N"), K = positive(argv[7], "K");
    const uint32_t iters = argc == 9 ? positive(argv[8], "ITERS") : 20;
    if (M % bm || N % bn) throw std::runtime_error("M and N must be multiples of BM and BN");
    (void)wg;  // the kernel's local size is compiled in; WG is printed for the record
    gpu.createDevice();
    VkDevice dev = gpu.device;

    Buffer a(gpu, 2ull * M * K), b(gpu, 2ull * K * N), c(gpu, 2ull * M * N);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> uni(-1.f, 1.f);
    std::vector<float> af(size_t(M) * K), bf(size_t(K) * N);
    // The CPU product uses the float16 values the GPU reads.
    for (size_t i = 0; i < af.size(); ++i) af[i] = vkinfer::halfToFloat(a.halves()[i] = vkinfer::floatToHalf(uni(rng)));
    for (size_t i = 0; i < bf.size(); ++i) bf[i] = vkinfer::halfToFloat(b.halves()[i] = vkinfer::floatToHalf(uni(rng)));
    std::memset(c.mapped, 0xFF, 2ull * M * N);  // NaNs: an output never written fails the check

    auto code = readSpirv(argv[1]);
    if (vkinfer::vk::usesCooperativeMatrixNv(code.data(), code.size())) {
        auto khr = vkinfer::vk::translateCoopmatNvToKhr(code.data(), code.size());
        if (khr.words.empty()) throw std::runtime_error(std::string(argv[1]) + ": translation to KHR: " + khr.error);
        code = std::move(khr.words);
    }
    VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smci.codeSize = code.size() * 4;
    smci.pCode = code.data();
    VkShaderModule module;
    VK(vkCreateShaderModule(dev, &smci, nullptr, &module));
    VkDescriptorSetLayoutBinding bindings[3];
    for (uint32_t i = 0; i < 3; ++i)
        bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dslci.bindingCount = 3;
    dslci.pBindings = bindings;
    VkDescriptorSetLayout setLayout;
    VK(vkCreateDescriptorSetLayout(dev, &dslci, nullptr, &setLayout));
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, 6 * 4};
    VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    plci.setLayoutCount = 1;
    plci.pSetLayouts = &setLayout;
    plci.pushConstantRangeCount = 1;
    plci.pPushConstantRanges = &range;
    VkPipelineLayout layout;
    VK(vkCreatePipelineLayout(dev, &plci, nullptr, &layout));
    VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT, module,
                  "main", nullptr};
    cpci.layout = layout;
    VkPipeline pipeline;
    VK(vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline));

    VkDescriptorPoolSize poolSize{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
    VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpci.maxSets = 1;
    dpci.poolSizeCount = 1;
    dpci.pPoolSizes = &poolSize;
    VkDescriptorPool pool;
    VK(vkCreateDescriptorPool(dev, &dpci, nullptr, &pool));
    VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsai.descriptorPool = pool;
    dsai.descriptorSetCount = 1;
    dsai.pSetLayouts = &setLayout;
    VkDescriptorSet set;
    VK(vkAllocateDescriptorSets(dev, &dsai, &set));
    VkDescriptorBufferInfo infos[3] = {
        {a.buffer, 0, VK_WHOLE_SIZE}, {b.buffer, 0, VK_WHOLE_SIZE}, {c.buffer, 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet writes[3];
    for (uint32_t i = 0; i < 3; ++i) {
        writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[i].dstSet = set;
        writes[i].dstBinding = i;
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &infos[i];
    }
    vkUpdateDescriptorSets(dev, 3, writes, 0, nullptr);

    VkQueryPoolCreateInfo qpci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qpci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qpci.queryCount = 2 * (iters + 1);
    VkQueryPool queries;
    VK(vkCreateQueryPool(dev, &qpci, nullptr, &queries));
    VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpi.queueFamilyIndex = gpu.family;
    VkCommandPool cmdPool;
    VK(vkCreateCommandPool(dev, &cpi, nullptr, &cmdPool));
    VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cbai.commandPool = cmdPool;
    cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cbai.commandBufferCount = 1;
    VkCommandBuffer cmd;
    VK(vkAllocateCommandBuffers(dev, &cbai, &cmd));

    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK(vkBeginCommandBuffer(cmd, &begin));
    vkCmdResetQueryPool(cmd, queries, 0, qpci.queryCount);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
    const uint32_t push[6] = {M, N, K, K, bNK ? K : N, N};  // M, N, K, lda, ldb, ldc
    vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
    // The first dispatch warms caches and clocks and is not counted; each later one waits for
    // the one before (its writes), so the timestamps bracket one GEMM each.
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_SHADER_WRITE_BIT,
                            VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_SHADER_READ_BIT};
    for (uint32_t i = 0; i <= iters; ++i) {
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries, 2 * i);
        vkCmdDispatch(cmd, N / bn, M / bm, 1);
        vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, 2 * i + 1);
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                             &barrier, 0, nullptr, 0, nullptr);
    }
    VK(vkEndCommandBuffer(cmd));
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    VK(vkQueueSubmit(gpu.queue, 1, &submit, VK_NULL_HANDLE));
    VK(vkQueueWaitIdle(gpu.queue));
    std::vector<uint64_t> stamps(qpci.queryCount);
    VK(vkGetQueryPoolResults(dev, queries, 0, qpci.queryCount, stamps.size() * 8, stamps.data(), 8,
                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
    std::vector<double> us;
    for (uint32_t i = 1; i <= iters; ++i) us.push_back((stamps[2 * i + 1] - stamps[2 * i]) * gpu.timestampNs / 1e3);
    std::sort(us.begin(), us.end());
    const double median = us[us.size() / 2];

    // Sampled outputs against the CPU product, float32 sums of the same float16 inputs.
    std::uniform_int_distribution<uint32_t> rowOf(0, M - 1), colOf(0, N - 1);
    double worst = 0, scale = 0;
    int bad = 0;
    for (int s = 0; s < 4096; ++s) {
        uint32_t m = s < 4 ? (s & 1) * (M - 1) : rowOf(rng), n = s < 4 ? (s >> 1) * (N - 1) : colOf(rng);
        double ref = 0;
        for (uint32_t k = 0; k < K; ++k)
            ref += double(af[size_t(m) * K + k]) * bf[bNK ? size_t(n) * K + k : size_t(k) * N + n];
        double got = vkinfer::halfToFloat(c.halves()[size_t(m) * N + n]);
        double err = std::fabs(got - ref);
        if (!(err <= 1e-2 + 2e-3 * std::fabs(ref))) ++bad;  // float16 output rounding is 4.9e-4 |ref|
        worst = std::max(worst, std::isnan(err) ? INFINITY : err);
        scale = std::max(scale, std::fabs(ref));
    }
    std::printf("%s BM %u BN %u WG %u: %ux%ux%u median %.2f us (min %.2f) %.1f TFLOP/s; check %s (max error %.4g, "
                "max |ref| %.3g)\n",
                argv[1], bm, bn, wg, M, N, K, median, us.front(), 2.0 * M * N * K / (median * 1e6),
                bad ? "FAIL" : "pass",
                worst, scale);

    vkDestroyCommandPool(dev, cmdPool, nullptr);
    vkDestroyQueryPool(dev, queries, nullptr);
    vkDestroyDescriptorPool(dev, pool, nullptr);
    vkDestroyPipeline(dev, pipeline, nullptr);
    vkDestroyPipelineLayout(dev, layout, nullptr);
    vkDestroyDescriptorSetLayout(dev, setLayout, nullptr);
    vkDestroyShaderModule(dev, module, nullptr);
    return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cm2_gemm_probe: %s\n", e.what());
        return 1;
    }
}
