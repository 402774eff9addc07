#include "vk/pipelines.h"

#include <cstdlib>
#include <string_view>
#include <vector>

#include "core/environment.h"
#include "core/kernel_table.h"
#include "vk/check.h"
#include "vk/coopmat_khr.h"
#include "vk/device_features.h"
#include "vk/spirv_shared_memory.h"

namespace vkinfer::vk {

PipelineCache::PipelineCache(Device& device, bool validated) : device_(device) {
    const auto& on = device_.enabled().features;
    nvMatrices_ = on.has(Feature::CooperativeMatrixNV) && device_.info().cooperativeMatrix16x16x16Nv;
    // The KHR form where the device offers it: on the H200 NVIDIA's driver runs it 1-7% faster
    // than the NV form of the same kernels (docs/BENCHMARKS.md). VKINFER_COOPMAT=nv keeps the
    // NV form where both are there, to compare them; so does the validation layer.
    const bool preferNv = (env::preferNvCooperativeMatrix() || validated) && nvMatrices_;
    khrMatrices_ = on.has(Feature::CooperativeMatrixKHR) && device_.info().cooperativeMatrix16x16x16Khr && !preferNv;
    VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    VK_CHECK(vkCreatePipelineCache(device_.handle(), &info, nullptr, &cache_));
}

PipelineCache::~PipelineCache() {
    VkDevice dev = device_.handle();
    for (auto& [k, p] : pipelines_) vkDestroyPipeline(dev, p.pipeline, nullptr);
    for (auto& [k, m] : modules_) vkDestroyShaderModule(dev, m, nullptr);
    for (auto& [k, l] : layouts_) {
        vkDestroyPipelineLayout(dev, l.pipeline, nullptr);
        vkDestroyDescriptorSetLayout(dev, l.set, nullptr);
    }
    if (sampler_) vkDestroySampler(dev, sampler_, nullptr);
    vkDestroyPipelineCache(dev, cache_, nullptr);
}

VkSampler PipelineCache::sampler() {
    if (sampler_) return sampler_;
    VkSamplerCreateInfo si{VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    si.magFilter = VK_FILTER_NEAREST;
    si.minFilter = VK_FILTER_NEAREST;
    si.mipmapMode = VK_SAMPLER_MIPMAP_MODE_NEAREST;
    si.addressModeU = si.addressModeV = si.addressModeW = VK_SAMPLER_ADDRESS_MODE_CLAMP_TO_EDGE;
    si.maxLod = 0.0f;
    VK_CHECK(vkCreateSampler(device_.handle(), &si, nullptr, &sampler_));
    return sampler_;
}

PipelineCache::Layout PipelineCache::layoutFor(const std::vector<VkDescriptorType>& types) {
    auto it = layouts_.find(types);
    if (it != layouts_.end()) return it->second;
    std::vector<VkDescriptorSetLayoutBinding> b(types.size());
    VkSampler immutable = VK_NULL_HANDLE;
    for (uint32_t i = 0; i < types.size(); ++i) {
        b[i].binding = i;
        b[i].descriptorType = types[i];
        b[i].descriptorCount = 1;
        b[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
        if (types[i] == VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER) {
            immutable = sampler();
            b[i].pImmutableSamplers = &immutable;
        }
    }
    Layout l;
    VkDescriptorSetLayoutCreateInfo si{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    si.bindingCount = static_cast<uint32_t>(b.size());
    si.pBindings = b.data();
    VK_CHECK(vkCreateDescriptorSetLayout(device_.handle(), &si, nullptr, &l.set));
    // One push-constant range of the 128 bytes every device guarantees, shared by all kernels.
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(kernels::kMaxPushConstantBytes)};
    VkPipelineLayoutCreateInfo pi{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pi.setLayoutCount = 1;
    pi.pSetLayouts = &l.set;
    pi.pushConstantRangeCount = 1;
    pi.pPushConstantRanges = &range;
    VK_CHECK(vkCreatePipelineLayout(device_.handle(), &pi, nullptr, &l.pipeline));
    layouts_[types] = l;
    return l;
}

namespace {

// Parsed once per code (a table entry or its translation; neither changes nor moves).
const KernelNeeds& needsOf(const uint32_t* code, size_t words) {
    static std::mutex mutex;
    static std::map<const uint32_t*, KernelNeeds> cache;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(code);
    if (it == cache.end()) it = cache.emplace(code, spirvNeeds(code, words)).first;
    return it->second;
}

// The KHR form of a kernel with NV cooperative matrices, translated once per process (a pure
// function of the immutable table); nullptr for other kernels.
const CoopmatTranslation* khrFormOf(const kernels::KernelBlob& blob) {
    static std::mutex mutex;
    static std::map<std::string_view, CoopmatTranslation> cache;
    if (!usesCooperativeMatrixNv(blob.code, blob.words)) return nullptr;
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache.find(blob.name);
    if (it == cache.end()) it = cache.emplace(blob.name, translateCoopmatNvToKhr(blob.code, blob.words)).first;
    return &it->second;
}

}  // namespace

PipelineCache::Code PipelineCache::codeFor(const kernels::KernelBlob& blob) const {
    if (khrMatrices_) {
        if (const CoopmatTranslation* t = khrFormOf(blob)) {
            if (!t->words.empty()) return {t->words.data(), t->words.size()};
            if (!nvMatrices_)
                fail(ErrorCode::Internal, "kernel '{}': its cooperative matrices could not be translated to "
                                          "VK_KHR_cooperative_matrix: {}", blob.name, t->error);
        }
    }
    return {blob.code, blob.words};
}

void PipelineCache::requireKernelFeatures(kernels::KernelId id, const std::string& who) const {
    if (id == kernels::KernelId::none) fail(ErrorCode::Internal, "{}: no kernel", who);
    const kernels::KernelBlob& blob = kernels::blob(id);
    const std::string_view kernel = blob.name;
    const Code code = codeFor(blob);
    const KernelNeeds& needs = needsOf(code.words, code.count);
    std::vector<Feature> missing = device_.enabled().features.missing(needs.features);
    if (!missing.empty()) {
        std::string list;
        for (Feature f : missing) list += (list.empty() ? "" : ", ") + describeFeature(f);
        bool offered = true;
        for (Feature f : missing) offered &= device_.supported().has(f);
        std::string why = !offered ? fmt::format("device '{}' does not offer", device_.info().name)
                          : device_.owned()
                              ? fmt::format("is not enabled on device '{}'", device_.info().name)
                              : std::string("the host did not enable on its device (vkinfer::queryDeviceRequirements "
                                            "lists what to enable)");
        fail(ErrorCode::Unsupported, "{}: kernel '{}' needs {}, which {}", who, kernel, list, why);
    }
    uint32_t lackingOps = needs.subgroupOperations & ~device_.subgroupOperations();
    if (lackingOps)
        fail(ErrorCode::Unsupported, "{}: kernel '{}' needs subgroup operations {:#x} that device '{}' lacks", who,
             kernel, lackingOps, device_.info().name);
}

VkShaderModule PipelineCache::moduleFor(kernels::KernelId kernel) {
    auto it = modules_.find(kernel);
    if (it != modules_.end()) return it->second;
    requireKernelFeatures(kernel, "pipeline creation");
    const Code code = codeFor(kernels::blob(kernel));
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = code.count * sizeof(uint32_t);
    info.pCode = code.words;
    VkShaderModule m;
    VK_CHECK(vkCreateShaderModule(device_.handle(), &info, nullptr, &m));
    modules_[kernel] = m;
    return m;
}

Pipeline PipelineCache::get(kernels::KernelId kernel, size_t storageBuffers, const std::array<uint32_t, 3>& localSize,
                            const std::vector<uint32_t>& spec) {
    return get(kernel, std::vector<VkDescriptorType>(storageBuffers, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER), localSize, spec);
}

Pipeline PipelineCache::get(kernels::KernelId kernel, const std::vector<VkDescriptorType>& types,
                            const std::array<uint32_t, 3>& localSize, const std::vector<uint32_t>& spec) {
    std::string key = std::string(kernels::kernelName(kernel)) + "|";
    for (auto t : types) key += std::to_string(static_cast<int>(t)) + ".";
    for (uint32_t v : localSize) key += "," + std::to_string(v);
    for (uint32_t v : spec) key += ":" + std::to_string(v);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = pipelines_.find(key);
    if (it != pipelines_.end()) return it->second;

    Layout layout = layoutFor(types);
    std::vector<uint32_t> values(localSize.begin(), localSize.end());
    values.insert(values.end(), spec.begin(), spec.end());
    std::vector<VkSpecializationMapEntry> entries(values.size());
    for (uint32_t i = 0; i < values.size(); ++i) entries[i] = {i, i * 4u, 4};
    VkSpecializationInfo si{static_cast<uint32_t>(entries.size()), entries.data(), values.size() * 4, values.data()};
    // Declarations past the device's shared memory are invalid usage the driver need not
    // report (a selection that took more than the device has, or a kernel asked for with
    // constants no selection gives): refused here, naming the kernel and both sizes.
    const kernels::KernelBlob& blob = kernels::blob(kernel);
    const SharedMemoryBytes shared = spirvSharedMemoryBytes(blob.code, blob.words, values);
    if (shared.bytes && *shared.bytes > device_.info().sharedMemoryBytes)
        fail(ErrorCode::Internal,
             "kernel '{}' declares {} bytes of shared memory with its specialization constants; the device "
             "offers {} (maxComputeSharedMemorySize)",
             kernels::kernelName(kernel), *shared.bytes, device_.info().sharedMemoryBytes);

    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = moduleFor(kernel);
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = &si;
    info.layout = layout.pipeline;
    Pipeline p{VK_NULL_HANDLE, layout.pipeline, layout.set};
    VkResult r = vkCreateComputePipelines(device_.handle(), cache_, 1, &info, nullptr, &p.pipeline);
    if (r != VK_SUCCESS)
        throw Error(Status(ErrorCode::VulkanError,
                           fmt::format("vkCreateComputePipelines for kernel '{}' returned {}", kernels::kernelName(kernel),
                                       resultName(r)),
                           static_cast<int32_t>(r)));
    pipelines_[key] = p;
    return p;
}

}  // namespace vkinfer::vk
