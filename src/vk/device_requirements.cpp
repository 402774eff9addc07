#include "vk/device_requirements.h"

#include <algorithm>

#include "vk/instance.h"

namespace vkinfer::vk {

namespace {

constexpr const char* kCore = "VkPhysicalDeviceFeatures";
constexpr const char* kV11 = "VkPhysicalDeviceVulkan11Features";
constexpr const char* kV12 = "VkPhysicalDeviceVulkan12Features";
constexpr const char* kCoopNv = "VkPhysicalDeviceCooperativeMatrixFeaturesNV";
constexpr const char* kCoopKhr = "VkPhysicalDeviceCooperativeMatrixFeaturesKHR";
constexpr const char* kExtension = "device extension";

}  // namespace

const std::vector<Use>& featureUses() {
    static const std::vector<Use> uses = {
        {"shaderInt64", kCore, false,
         "int64 tensors in GPU kernels (Gather/Scatter indices, ArgMax outputs, int64 Cast and arithmetic)"},
        {"shaderInt16", kCore, false, "int16/uint16 arithmetic kernels"},
        {"shaderStorageImageWriteWithoutFormat", kCore, false,
         "B8G8R8A8 output images in recordInference (other formats have typed writers)"},
        {"storageBuffer16BitAccess", kV11, false,
         "float16 and int16 tensors: Precision::Float16 (--precision fp16), float16 model inputs and outputs"},
        {"shaderFloat16", kV12, false, "float16 arithmetic: Precision::Float16, cooperative-matrix kernels"},
        {"shaderInt8", kV12, false, "int8/uint8/bool arithmetic kernels"},
        {"storageBuffer8BitAccess", kV12, false, "int8, uint8 and bool tensors"},
        {"timelineSemaphore", kV12, false,
         "the session's timeline semaphore: exportTimelineSemaphore, waiting on imported timeline semaphores"},
        {"vulkanMemoryModel", kV12, false, "cooperative-matrix kernels (with VK_KHR_ or VK_NV_cooperative_matrix)"},
        {"vulkanMemoryModelDeviceScope", kV12, false,
         "atomics at device scope (the run-time index checks' status word) where vulkanMemoryModel is enabled"},
        {"cooperativeMatrix", kCoopKhr, false,
         "tensor-core convolution and matrix-multiply kernels in float16 (with VK_KHR_cooperative_matrix; preferred)"},
        {"cooperativeMatrix", kCoopNv, false,
         "tensor-core convolution and matrix-multiply kernels in float16 (with VK_NV_cooperative_matrix)"},
    };
    return uses;
}

const std::vector<Use>& extensionUses() {
    static const std::vector<Use> uses = {
        {VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME, kExtension, false,
         "shared resources: SessionOptions::shareableIO, exportTensorMemory, importTensorMemory (opaque fds)"},
        {VK_EXT_EXTERNAL_MEMORY_DMA_BUF_EXTENSION_NAME, kExtension, false,
         "tensor memory as dma-buf fds (MemoryHandleType::DmaBuf), where buffers support it"},
        {VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME, kExtension, false,
         "exportTimelineSemaphore, exportSignalSemaphore and importWaitSemaphore (opaque fds)"},
        {VK_KHR_EXTERNAL_FENCE_FD_EXTENSION_NAME, kExtension, false,
         "exportFence and importWaitFence (sync or opaque fds)"},
        {kCooperativeMatrixKhrExtension, kExtension, false,
         "tensor-core kernels (with its cooperativeMatrix, vulkanMemoryModel and shaderFloat16; preferred)"},
        {VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME, kExtension, false,
         "tensor-core kernels (with its cooperativeMatrix, vulkanMemoryModel and shaderFloat16)"},
    };
    return uses;
}

bool featureOfUse(const Use& use, Feature* out) {
    for (size_t i = 0; i < kFeatureCount; ++i) {
        Feature f = static_cast<Feature>(i);
        if (use.name == featureName(f) && use.where == featureStruct(f)) {
            *out = f;
            return true;
        }
    }
    return false;
}

void FeatureChainStorage::link(bool withCooperativeMatrixNv, bool withCooperativeMatrixKhr) {
    core.pNext = &v11;
    v11.pNext = &v12;
    void** tail = &v12.pNext;
    if (withCooperativeMatrixNv) *tail = &coopNv, tail = &coopNv.pNext;
    if (withCooperativeMatrixKhr) *tail = &coopKhr, tail = &coopKhr.pNext;
    *tail = nullptr;
}

FeatureSet featuresOf(const VkPhysicalDeviceFeatures& f) {
    FeatureSet s;
    s.set(Feature::ShaderInt64, f.shaderInt64);
    s.set(Feature::ShaderInt16, f.shaderInt16);
    s.set(Feature::ShaderFloat64, f.shaderFloat64);
    s.set(Feature::StorageImageReadWithoutFormat, f.shaderStorageImageReadWithoutFormat);
    s.set(Feature::StorageImageWriteWithoutFormat, f.shaderStorageImageWriteWithoutFormat);
    s.set(Feature::StorageImageExtendedFormats, f.shaderStorageImageExtendedFormats);
    return s;
}

FeatureSet featuresOf(const VkPhysicalDeviceVulkan11Features& f) {
    FeatureSet s;
    s.set(Feature::StorageBuffer16BitAccess, f.storageBuffer16BitAccess);
    s.set(Feature::UniformAndStorageBuffer16BitAccess, f.uniformAndStorageBuffer16BitAccess);
    s.set(Feature::StoragePushConstant16, f.storagePushConstant16);
    return s;
}

FeatureSet featuresOf(const VkPhysicalDeviceVulkan12Features& f) {
    FeatureSet s;
    s.set(Feature::ShaderFloat16, f.shaderFloat16);
    s.set(Feature::ShaderInt8, f.shaderInt8);
    s.set(Feature::StorageBuffer8BitAccess, f.storageBuffer8BitAccess);
    s.set(Feature::UniformAndStorageBuffer8BitAccess, f.uniformAndStorageBuffer8BitAccess);
    s.set(Feature::StoragePushConstant8, f.storagePushConstant8);
    s.set(Feature::VulkanMemoryModel, f.vulkanMemoryModel);
    s.set(Feature::VulkanMemoryModelDeviceScope, f.vulkanMemoryModelDeviceScope);
    s.set(Feature::BufferDeviceAddress, f.bufferDeviceAddress);
    return s;
}

namespace {

FeatureSet unite(FeatureSet a, const FeatureSet& b) {
    for (size_t i = 0; i < kFeatureCount; ++i)
        if (b.has(static_cast<Feature>(i))) a.set(static_cast<Feature>(i));
    return a;
}

}  // namespace

FeatureSet featuresInChain(const void* pNext, bool* timelineSemaphore) {
    FeatureSet s;
    bool timeline = false;
    for (auto* at = static_cast<const VkBaseInStructure*>(pNext); at; at = at->pNext) {
        // (Not a case below: the headers' VkStructureType has no such enumerator.)
        if (at->sType == kStructureCooperativeMatrixFeaturesKhr) {
            if (reinterpret_cast<const CooperativeMatrixFeaturesKhr*>(at)->cooperativeMatrix)
                s.set(Feature::CooperativeMatrixKHR);
            continue;
        }
        switch (at->sType) {
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2:
                s = unite(s, featuresOf(reinterpret_cast<const VkPhysicalDeviceFeatures2*>(at)->features));
                break;
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES:
                s = unite(s, featuresOf(*reinterpret_cast<const VkPhysicalDeviceVulkan11Features*>(at)));
                break;
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES: {
                const auto* f = reinterpret_cast<const VkPhysicalDeviceVulkan12Features*>(at);
                s = unite(s, featuresOf(*f));
                timeline |= f->timelineSemaphore;
                break;
            }
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES: {
                const auto* f = reinterpret_cast<const VkPhysicalDevice16BitStorageFeatures*>(at);
                if (f->storageBuffer16BitAccess) s.set(Feature::StorageBuffer16BitAccess);
                if (f->uniformAndStorageBuffer16BitAccess) s.set(Feature::UniformAndStorageBuffer16BitAccess);
                if (f->storagePushConstant16) s.set(Feature::StoragePushConstant16);
                break;
            }
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES: {
                const auto* f = reinterpret_cast<const VkPhysicalDevice8BitStorageFeatures*>(at);
                if (f->storageBuffer8BitAccess) s.set(Feature::StorageBuffer8BitAccess);
                if (f->uniformAndStorageBuffer8BitAccess) s.set(Feature::UniformAndStorageBuffer8BitAccess);
                if (f->storagePushConstant8) s.set(Feature::StoragePushConstant8);
                break;
            }
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES: {
                const auto* f = reinterpret_cast<const VkPhysicalDeviceShaderFloat16Int8Features*>(at);
                if (f->shaderFloat16) s.set(Feature::ShaderFloat16);
                if (f->shaderInt8) s.set(Feature::ShaderInt8);
                break;
            }
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_MEMORY_MODEL_FEATURES: {
                const auto* f = reinterpret_cast<const VkPhysicalDeviceVulkanMemoryModelFeatures*>(at);
                if (f->vulkanMemoryModel) s.set(Feature::VulkanMemoryModel);
                if (f->vulkanMemoryModelDeviceScope) s.set(Feature::VulkanMemoryModelDeviceScope);
                break;
            }
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES:
                timeline |= reinterpret_cast<const VkPhysicalDeviceTimelineSemaphoreFeatures*>(at)->timelineSemaphore;
                break;
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES:
                if (reinterpret_cast<const VkPhysicalDeviceBufferDeviceAddressFeatures*>(at)->bufferDeviceAddress)
                    s.set(Feature::BufferDeviceAddress);
                break;
            case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV:
                if (reinterpret_cast<const VkPhysicalDeviceCooperativeMatrixFeaturesNV*>(at)->cooperativeMatrix)
                    s.set(Feature::CooperativeMatrixNV);
                break;
            default: break;
        }
    }
    if (timelineSemaphore) *timelineSemaphore = timeline;
    return s;
}

EnablePlan planDeviceFeatures(VkPhysicalDevice phys, bool offerKhrCooperativeMatrix) {
    EnablePlan plan;
    for (const auto& use : extensionUses())
        if (hasDeviceExtension(phys, use.name.c_str())) plan.supportedExtensions.push_back(use.name);
    auto offered = [&](const char* ext) {
        return std::find(plan.supportedExtensions.begin(), plan.supportedExtensions.end(), ext) !=
               plan.supportedExtensions.end();
    };
    const bool coopNv = offered(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    const bool coopKhr = offerKhrCooperativeMatrix && offered(kCooperativeMatrixKhrExtension);

    FeatureChainStorage have;
    have.link(coopNv, coopKhr);
    vkGetPhysicalDeviceFeatures2(phys, &have.core);
    plan.supported = featuresInChain(&have.core);
    if (!coopNv) plan.supported.set(Feature::CooperativeMatrixNV, false);
    if (!coopKhr) plan.supported.set(Feature::CooperativeMatrixKHR, false);

    plan.chain = std::make_unique<FeatureChainStorage>();
    FeatureChainStorage& want = *plan.chain;
    const auto& core = have.core.features;
    want.core.features.shaderInt64 = core.shaderInt64;
    want.core.features.shaderInt16 = core.shaderInt16;
    want.core.features.shaderStorageImageWriteWithoutFormat = core.shaderStorageImageWriteWithoutFormat;
    want.v11.storageBuffer16BitAccess = have.v11.storageBuffer16BitAccess;
    want.v12.shaderFloat16 = have.v12.shaderFloat16;
    want.v12.shaderInt8 = have.v12.shaderInt8;
    want.v12.storageBuffer8BitAccess = have.v12.storageBuffer8BitAccess;
    want.v12.timelineSemaphore = have.v12.timelineSemaphore;
    // The cooperative-matrix kernels need the memory model, float16 and an extension's feature
    // together; enable each extension only when all of them are there. Both may be enabled:
    // the kernels are compiled for NV and translated to KHR (vk/coopmat_khr.h) where KHR is
    // enabled.
    const bool matrixBasics = have.v12.vulkanMemoryModel && have.v12.shaderFloat16 && have.v11.storageBuffer16BitAccess;
    const bool tensorCoresNv = coopNv && have.coopNv.cooperativeMatrix && matrixBasics;
    const bool tensorCoresKhr = coopKhr && have.coopKhr.cooperativeMatrix && matrixBasics;
    want.v12.vulkanMemoryModel = tensorCoresNv || tensorCoresKhr;
    // With the memory model on, every shader's atomics at device scope (glslang's default scope:
    // the index checks' atomicOr) need this too (VUID-RuntimeSpirv-vulkanMemoryModel-06265; the
    // layer reported it on NVIDIA for every Gather, Scatter and Resize with run-time checks).
    want.v12.vulkanMemoryModelDeviceScope = want.v12.vulkanMemoryModel && have.v12.vulkanMemoryModelDeviceScope;
    want.coopNv.cooperativeMatrix = tensorCoresNv;
    want.coopKhr.cooperativeMatrix = tensorCoresKhr;
    want.link(tensorCoresNv, tensorCoresKhr);

    for (const auto& ext : plan.supportedExtensions)
        if ((ext != VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME || tensorCoresNv) &&
            (ext != kCooperativeMatrixKhrExtension || tensorCoresKhr))
            plan.extensions.push_back(ext);
    plan.features = featuresInChain(&want.core, &plan.timelineSemaphore);
    return plan;
}

}  // namespace vkinfer::vk
