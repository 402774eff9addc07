// What the driver made of each embedded kernel: its pipeline executable statistics
// (VK_KHR_pipeline_executable_properties), such as NVIDIA's "Register Count" and "Shared
// Memory Size". A kernel at the register file's limit (255 on NVIDIA) spills or runs fewer
// workgroups per multiprocessor; this is where to look before tuning its tiles
// (docs/BENCHMARKS.md, "How to measure").
//
//   vkinfer_kernel_stats [--device N] [--local-size X] [--nv] [--ir DIR] [NAME_PART...]
//
// Prints one line per embedded variant whose name contains any NAME_PART (all without one)
// and that the device can create, its workgroup X invocations wide (default 256; the driver's
// register budget depends on it: at most 65536 / X on NVIDIA); the kernel's own
// specialization constants keep their defaults. The device gets what a session enables, and
// the tensor-core kernels their KHR form where it runs them, as sessions create them (--nv:
// the NV form, as VKINFER_COOPMAT=nv). Exit 2 where the device lacks the extension.
// --ir DIR also writes the driver's internal representations of each kernel (the same
// extension: compiler stages, machine code, where the driver gives any) to
// DIR/KERNEL.EXECUTABLE.NAME.txt (or .bin where one is not text), and says how many it gave.
#include <vulkan/vulkan.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernel_table.h"
#include "vk/coopmat_khr.h"
#include "vk/device_requirements.h"
#include "vk/instance.h"

namespace {

[[noreturn]] void die(const char* call, VkResult r) {
    std::fprintf(stderr, "vkinfer_kernel_stats: %s returned %d\n", call, static_cast<int>(r));
    std::exit(1);
}
#define CHECK(call)                             \
    do {                                        \
        VkResult r_ = (call);                   \
        if (r_ != VK_SUCCESS) die(#call, r_);   \
    } while (0)

std::string statistic(const VkPipelineExecutableStatisticKHR& s) {
    switch (s.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: return s.value.b32 ? "true" : "false";
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: return std::to_string(s.value.i64);
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: return std::to_string(s.value.u64);
        default: return std::to_string(s.value.f64);
    }
}

constexpr const char* kUsage =
    "usage: vkinfer_kernel_stats [--device N] [--local-size X] [--nv] [--ir DIR] [NAME_PART...]\n"
    "  the driver's statistics (registers, shared memory, ...) of every embedded kernel whose name\n"
    "  contains a NAME_PART (all without one), created as sessions create them\n"
    "  --device N       Vulkan device index (default 0)\n"
    "  --local-size X   invocations a workgroup, 1 to 1024 (default 256)\n"
    "  --nv             the NV form of the tensor-core kernels instead of their KHR form\n"
    "  --ir DIR         also write the driver's internal representations of each kernel to DIR";

// The value of option `name` in [low, high], or exit 1 naming it.
uint32_t numberArgument(const char* name, const char* text, uint32_t low, uint32_t high) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(text, &end, 10);
    if (end == text || *end != '\0' || v < low || v > high) {
        std::fprintf(stderr, "vkinfer_kernel_stats: %s wants a number from %u to %u, not '%s'\n", name, low, high, text);
        std::exit(1);
    }
    return static_cast<uint32_t>(v);
}

// A name made safe for a file name: letters, digits, '_', '-' and '.' kept, the rest '_'.
std::string fileSafe(std::string_view text) {
    std::string out(text);
    for (char& c : out)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') c = '_';
    return out;
}

// Writes executable `ei`'s internal representations under `dir` and says how many there were.
void writeRepresentations(VkDevice device, PFN_vkGetPipelineExecutableInternalRepresentationsKHR get,
                          const VkPipelineExecutableInfoKHR& ei, const std::string& dir, std::string_view kernel,
                          uint32_t executable) {
    uint32_t n = 0;
    CHECK(get(device, &ei, &n, nullptr));
    std::vector<VkPipelineExecutableInternalRepresentationKHR> reps(
        n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR});
    CHECK(get(device, &ei, &n, reps.data()));  // sizes first
    std::vector<std::vector<char>> data(n);
    for (uint32_t i = 0; i < n; ++i) {
        data[i].resize(reps[i].dataSize);
        reps[i].pData = data[i].data();
    }
    CHECK(get(device, &ei, &n, reps.data()));
    for (uint32_t i = 0; i < n; ++i) {
        const std::string path = dir + "/" + fileSafe(kernel) + "." + std::to_string(executable) + "." +
                                 fileSafe(reps[i].name) + (reps[i].isText ? ".txt" : ".bin");
        std::ofstream file(path, std::ios::binary);
        file.write(data[i].data(), static_cast<std::streamsize>(reps[i].dataSize));
        file.close();
        if (!file) {
            std::fprintf(stderr, "vkinfer_kernel_stats: could not write %s\n", path.c_str());
            std::exit(1);
        }
        std::printf("  internal representation '%s' (%zu bytes): %s\n", reps[i].name, reps[i].dataSize, path.c_str());
    }
    if (n == 0) std::printf("  the driver gives no internal representation\n");
}

}  // namespace

int main(int argc, char** argv) {
    uint32_t deviceIndex = 0, localSize = 256;
    bool keepNv = false;
    std::string irDir;
    std::vector<std::string_view> parts;
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        if (a == "--device" || a == "--local-size") {
            if (i + 1 == argc) {
                std::fprintf(stderr, "vkinfer_kernel_stats: %s wants a value\n%s\n", argv[i], kUsage);
                return 1;
            }
            if (a == "--device") deviceIndex = numberArgument(argv[i], argv[i + 1], 0, 1023);
            else localSize = numberArgument(argv[i], argv[i + 1], 1, 1024);
            ++i;
        } else if (a == "--nv") {
            keepNv = true;
        } else if (a == "--ir") {
            if (i + 1 == argc) {
                std::fprintf(stderr, "vkinfer_kernel_stats: --ir wants a directory\n%s\n", kUsage);
                return 1;
            }
            irDir = argv[++i];
            std::error_code ec;
            std::filesystem::create_directories(irDir, ec);
            if (ec) {
                std::fprintf(stderr, "vkinfer_kernel_stats: cannot create '%s': %s\n", irDir.c_str(), ec.message().c_str());
                return 1;
            }
        } else if (a == "-h" || a == "--help") {
            std::puts(kUsage);
            return 0;
        } else if (a.starts_with("-")) {
            std::fprintf(stderr, "vkinfer_kernel_stats: unknown option '%s'\n%s\n", argv[i], kUsage);
            return 1;
        } else {
            parts.push_back(a);
        }
    }
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    VkInstance instance;
    CHECK(vkCreateInstance(&ici, nullptr, &instance));
    uint32_t count = 0;
    vkEnumeratePhysicalDevices(instance, &count, nullptr);
    std::vector<VkPhysicalDevice> devices(count);
    vkEnumeratePhysicalDevices(instance, &count, devices.data());
    if (deviceIndex >= count) {
        std::fprintf(stderr, "vkinfer_kernel_stats: no device %u (%u found)\n", deviceIndex, count);
        return 1;
    }
    VkPhysicalDevice phys = devices[deviceIndex];
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(phys, &props);
    if (!vkinfer::vk::hasDeviceExtension(phys, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
        std::fprintf(stderr, "vkinfer_kernel_stats: device '%s' does not offer %s\n", props.deviceName,
                     VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
        return 2;
    }

    // What a session would enable (vk/device_requirements.h), and the statistics.
    vkinfer::vk::EnablePlan plan = vkinfer::vk::planDeviceFeatures(phys);
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pe{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    pe.pipelineExecutableInfo = VK_TRUE;
    pe.pNext = plan.chain->core.pNext;
    plan.chain->core.pNext = &pe;
    std::vector<const char*> extensions = {VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME};
    for (const std::string& e : plan.extensions) extensions.push_back(e.c_str());
    // As vk/pipelines.cpp: the KHR form of the tensor-core kernels where the device runs it.
    const bool khr = !keepNv && plan.features.has(vkinfer::vk::Feature::CooperativeMatrixKHR);
    float priority = 1;
    VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    queue.queueCount = 1;
    queue.pQueuePriorities = &priority;
    VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &plan.chain->core;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &queue;
    dci.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
    dci.ppEnabledExtensionNames = extensions.data();
    VkDevice device;
    CHECK(vkCreateDevice(phys, &dci, nullptr, &device));
    auto executables = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
        vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR"));
    auto statistics = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
        vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR"));
    auto representations = reinterpret_cast<PFN_vkGetPipelineExecutableInternalRepresentationsKHR>(
        vkGetDeviceProcAddr(device, "vkGetPipelineExecutableInternalRepresentationsKHR"));

    // One layout for all: six storage buffers (the most any kernel binds) and the largest
    // push block Vulkan guarantees.
    std::vector<VkDescriptorSetLayoutBinding> bindings(6);
    for (uint32_t i = 0; i < bindings.size(); ++i)
        bindings[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo dsl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dsl.bindingCount = static_cast<uint32_t>(bindings.size());
    dsl.pBindings = bindings.data();
    VkDescriptorSetLayout setLayout;
    CHECK(vkCreateDescriptorSetLayout(device, &dsl, nullptr, &setLayout));
    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, 128};
    VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &setLayout;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &push;
    VkPipelineLayout layout;
    CHECK(vkCreatePipelineLayout(device, &pli, nullptr, &layout));

    std::printf("device '%s', workgroups of %u\n", props.deviceName, localSize);
    const uint32_t size[3] = {localSize, 1, 1};
    VkSpecializationMapEntry entries[3] = {{0, 0, 4}, {1, 4, 4}, {2, 8, 4}};
    VkSpecializationInfo spec{3, entries, sizeof(size), size};
    int matched = 0, shown = 0;
    for (const vkinfer::kernels::KernelBlob& k : vkinfer::kernels::table()) {
        bool wanted = parts.empty();
        for (std::string_view p : parts) wanted |= k.name.find(p) != std::string_view::npos;
        if (!wanted || !k.code) continue;
        ++matched;
        std::vector<uint32_t> code(k.code, k.code + k.words);
        if (khr && vkinfer::vk::usesCooperativeMatrixNv(k.code, k.words)) {
            vkinfer::vk::CoopmatTranslation t = vkinfer::vk::translateCoopmatNvToKhr(k.code, k.words);
            if (t.words.empty()) {
                std::printf("%.*s: no KHR form (%s)\n", static_cast<int>(k.name.size()), k.name.data(), t.error.c_str());
                continue;
            }
            code = std::move(t.words);
        }
        VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        mi.codeSize = code.size() * 4;
        mi.pCode = code.data();
        VkShaderModule module;
        if (vkCreateShaderModule(device, &mi, nullptr, &module) != VK_SUCCESS) continue;
        VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        ci.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
        if (!irDir.empty()) ci.flags |= VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
        ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT,
                    module, "main", &spec};
        ci.layout = layout;
        VkPipeline pipeline;
        VkResult r = vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &ci, nullptr, &pipeline);
        vkDestroyShaderModule(device, module, nullptr);
        if (r != VK_SUCCESS) {
            std::printf("%.*s: not created here (%d)\n", static_cast<int>(k.name.size()), k.name.data(),
                        static_cast<int>(r));
            continue;
        }
        VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
        info.pipeline = pipeline;
        uint32_t n = 0;
        CHECK(executables(device, &info, &n, nullptr));
        for (uint32_t x = 0; x < n; ++x) {
            VkPipelineExecutableInfoKHR ei{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
            ei.pipeline = pipeline;
            ei.executableIndex = x;
            uint32_t s = 0;
            CHECK(statistics(device, &ei, &s, nullptr));
            std::vector<VkPipelineExecutableStatisticKHR> stats(s, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
            CHECK(statistics(device, &ei, &s, stats.data()));
            std::string line(k.name);
            for (const auto& st : stats) line += std::string(" | ") + st.name + " " + statistic(st);
            std::puts(line.c_str());
            if (!irDir.empty()) writeRepresentations(device, representations, ei, irDir, k.name, x);
        }
        vkDestroyPipeline(device, pipeline, nullptr);
        ++shown;
    }
    vkDestroyPipelineLayout(device, layout, nullptr);
    vkDestroyDescriptorSetLayout(device, setLayout, nullptr);
    vkDestroyDevice(device, nullptr);
    vkDestroyInstance(instance, nullptr);
    if (shown == 0) {
        if (matched == 0) std::fprintf(stderr, "vkinfer_kernel_stats: no embedded kernel's name contains what was asked\n");
        else std::fprintf(stderr, "vkinfer_kernel_stats: none of the %d kernels asked for could be created\n", matched);
        return 1;
    }
    return 0;
}
