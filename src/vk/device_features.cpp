#include "vk/device_features.h"

#include <fmt/format.h>

#include "vk/spirv_walk.h"

namespace vkinfer::vk {

namespace {

struct FeatureInfo {
    const char* name;
    const char* structure;
    const char* extension;
};

constexpr FeatureInfo kFeatures[kFeatureCount] = {
    {"shaderInt64", "VkPhysicalDeviceFeatures", nullptr},
    {"shaderInt16", "VkPhysicalDeviceFeatures", nullptr},
    {"shaderFloat64", "VkPhysicalDeviceFeatures", nullptr},
    {"shaderStorageImageReadWithoutFormat", "VkPhysicalDeviceFeatures", nullptr},
    {"shaderStorageImageWriteWithoutFormat", "VkPhysicalDeviceFeatures", nullptr},
    {"shaderStorageImageExtendedFormats", "VkPhysicalDeviceFeatures", nullptr},
    {"storageBuffer16BitAccess", "VkPhysicalDeviceVulkan11Features", nullptr},
    {"uniformAndStorageBuffer16BitAccess", "VkPhysicalDeviceVulkan11Features", nullptr},
    {"storagePushConstant16", "VkPhysicalDeviceVulkan11Features", nullptr},
    {"shaderFloat16", "VkPhysicalDeviceVulkan12Features", nullptr},
    {"shaderInt8", "VkPhysicalDeviceVulkan12Features", nullptr},
    {"storageBuffer8BitAccess", "VkPhysicalDeviceVulkan12Features", nullptr},
    {"uniformAndStorageBuffer8BitAccess", "VkPhysicalDeviceVulkan12Features", nullptr},
    {"storagePushConstant8", "VkPhysicalDeviceVulkan12Features", nullptr},
    {"vulkanMemoryModel", "VkPhysicalDeviceVulkan12Features", nullptr},
    {"vulkanMemoryModelDeviceScope", "VkPhysicalDeviceVulkan12Features", nullptr},
    {"bufferDeviceAddress", "VkPhysicalDeviceVulkan12Features", nullptr},
    {"cooperativeMatrix", "VkPhysicalDeviceCooperativeMatrixFeaturesNV", "VK_NV_cooperative_matrix"},
    {"cooperativeMatrix", "VkPhysicalDeviceCooperativeMatrixFeaturesKHR", "VK_KHR_cooperative_matrix"},
};

// SPIR-V capability enumerants (SPIR-V 1.6 spec, section 3.31) and the device feature each
// needs in Vulkan ("Capabilities" table of the Vulkan spec, appendix "Spir-V Capabilities").
enum : uint32_t {
    kOpCapability = 17,
    kMatrix = 0,
    kShader = 1,
    kFloat16 = 9,
    kFloat64 = 10,
    kInt64 = 11,
    kInt16 = 22,
    kInt8 = 39,
    kSampled1D = 43,
    kImage1D = 44,
    kSampledBuffer = 46,
    kImageBuffer = 47,
    kImageQuery = 50,
    kStorageImageExtendedFormats = 49,
    kDerivativeControl = 51,
    kStorageImageReadWithoutFormat = 55,
    kStorageImageWriteWithoutFormat = 56,
    kGroupNonUniform = 61,
    kGroupNonUniformQuad = 68,
    kStorageBuffer16BitAccess = 4433,
    kUniformAndStorageBuffer16BitAccess = 4434,
    kStoragePushConstant16 = 4435,
    kStorageBuffer8BitAccess = 4448,
    kUniformAndStorageBuffer8BitAccess = 4449,
    kStoragePushConstant8 = 4450,
    kVulkanMemoryModel = 5345,
    kVulkanMemoryModelDeviceScope = 5346,
    kPhysicalStorageBufferAddresses = 5347,
    kCooperativeMatrixNV = 5357,
    kCooperativeMatrixKHR = 6022,
};

}  // namespace

const char* featureName(Feature f) { return kFeatures[static_cast<size_t>(f)].name; }
const char* featureStruct(Feature f) { return kFeatures[static_cast<size_t>(f)].structure; }
const char* featureExtension(Feature f) { return kFeatures[static_cast<size_t>(f)].extension; }

std::string describeFeature(Feature f) {
    if (const char* ext = featureExtension(f)) return fmt::format("{} ({}, {})", featureName(f), featureStruct(f), ext);
    return fmt::format("{} ({})", featureName(f), featureStruct(f));
}

std::vector<Feature> FeatureSet::missing(const FeatureSet& needed) const {
    std::vector<Feature> out;
    for (size_t i = 0; i < kFeatureCount; ++i) {
        Feature f = static_cast<Feature>(i);
        if (needed.has(f) && !has(f)) out.push_back(f);
    }
    return out;
}

KernelNeeds spirvNeeds(const uint32_t* code, size_t words) {
    KernelNeeds needs;
    // Capabilities come first after the 5-word header (SPIR-V's logical layout); stop at the
    // first other instruction.
    std::vector<uint32_t> capabilities;
    const std::string problem = forEachSpirvInstruction(code, words, [&](const SpirvInstruction& in) {
        if (in.op != kOpCapability) return false;
        if (in.count < 1) {
            needs.valid = false;
            return false;
        }
        capabilities.push_back(in.operands[0]);
        return true;
    });
    if (!problem.empty()) needs.valid = false;
    if (!needs.valid) return needs;
    for (uint32_t cap : capabilities) {
        switch (cap) {
            case kMatrix:
            case kShader:
            case kSampled1D:
            case kImage1D:
            case kSampledBuffer:
            case kImageBuffer:
            case kImageQuery:
            case kDerivativeControl:
                break;  // every Vulkan device
            case kFloat16: needs.features.set(Feature::ShaderFloat16); break;
            case kFloat64: needs.features.set(Feature::ShaderFloat64); break;
            case kInt64: needs.features.set(Feature::ShaderInt64); break;
            case kInt16: needs.features.set(Feature::ShaderInt16); break;
            case kInt8: needs.features.set(Feature::ShaderInt8); break;
            case kStorageImageExtendedFormats: needs.features.set(Feature::StorageImageExtendedFormats); break;
            case kStorageImageReadWithoutFormat: needs.features.set(Feature::StorageImageReadWithoutFormat); break;
            case kStorageImageWriteWithoutFormat: needs.features.set(Feature::StorageImageWriteWithoutFormat); break;
            case kStorageBuffer16BitAccess: needs.features.set(Feature::StorageBuffer16BitAccess); break;
            case kUniformAndStorageBuffer16BitAccess:
                needs.features.set(Feature::UniformAndStorageBuffer16BitAccess);
                break;
            case kStoragePushConstant16: needs.features.set(Feature::StoragePushConstant16); break;
            case kStorageBuffer8BitAccess: needs.features.set(Feature::StorageBuffer8BitAccess); break;
            case kUniformAndStorageBuffer8BitAccess:
                needs.features.set(Feature::UniformAndStorageBuffer8BitAccess);
                break;
            case kStoragePushConstant8: needs.features.set(Feature::StoragePushConstant8); break;
            case kVulkanMemoryModel: needs.features.set(Feature::VulkanMemoryModel); break;
            case kVulkanMemoryModelDeviceScope: needs.features.set(Feature::VulkanMemoryModelDeviceScope); break;
            case kPhysicalStorageBufferAddresses: needs.features.set(Feature::BufferDeviceAddress); break;
            case kCooperativeMatrixNV: needs.features.set(Feature::CooperativeMatrixNV); break;
            case kCooperativeMatrixKHR: needs.features.set(Feature::CooperativeMatrixKHR); break;
            default:
                if (cap >= kGroupNonUniform && cap <= kGroupNonUniformQuad) {
                    // GroupNonUniform = BASIC (bit 0), Vote = bit 1, ... Quad = bit 7.
                    needs.subgroupOperations |= 1u << (cap - kGroupNonUniform);
                } else {
                    needs.unknownCapabilities.push_back(cap);
                }
        }
    }
    return needs;
}

}  // namespace vkinfer::vk
