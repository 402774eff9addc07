// The device features vkinfer's kernels and runtime may need, as data: what a kernel's
// SPIR-V declares (its OpCapability instructions), and what a device has enabled. Pure C++
// (no Vulkan calls), so that the check "does this plan run on that device" is unit-tested
// without a GPU.
#pragma once

#include <bitset>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace vkinfer::vk {

enum class Feature : uint8_t {
    // VkPhysicalDeviceFeatures
    ShaderInt64,
    ShaderInt16,
    ShaderFloat64,
    StorageImageReadWithoutFormat,
    StorageImageWriteWithoutFormat,
    StorageImageExtendedFormats,
    // VkPhysicalDeviceVulkan11Features
    StorageBuffer16BitAccess,
    UniformAndStorageBuffer16BitAccess,
    StoragePushConstant16,
    // VkPhysicalDeviceVulkan12Features
    ShaderFloat16,
    ShaderInt8,
    StorageBuffer8BitAccess,
    UniformAndStorageBuffer8BitAccess,
    StoragePushConstant8,
    VulkanMemoryModel,
    VulkanMemoryModelDeviceScope,
    BufferDeviceAddress,
    // VkPhysicalDeviceCooperativeMatrixFeaturesNV (VK_NV_cooperative_matrix)
    CooperativeMatrixNV,
    // VkPhysicalDeviceCooperativeMatrixFeaturesKHR (VK_KHR_cooperative_matrix)
    CooperativeMatrixKHR,
    Count,
};
constexpr size_t kFeatureCount = static_cast<size_t>(Feature::Count);

// "shaderInt64", "storageBuffer16BitAccess", ...
const char* featureName(Feature f);
// The structure that holds it: "VkPhysicalDeviceFeatures", "VkPhysicalDeviceVulkan12Features", ...
const char* featureStruct(Feature f);
// The device extension the feature belongs to, or null for core features.
const char* featureExtension(Feature f);

class FeatureSet {
public:
    bool has(Feature f) const { return bits_.test(static_cast<size_t>(f)); }
    void set(Feature f, bool on = true) { bits_.set(static_cast<size_t>(f), on); }
    // The features of `needed` that this set lacks, in enum order.
    std::vector<Feature> missing(const FeatureSet& needed) const;
    bool operator==(const FeatureSet&) const = default;

private:
    std::bitset<kFeatureCount> bits_;
};

// What a compute kernel's SPIR-V needs from the device.
struct KernelNeeds {
    FeatureSet features;
    uint32_t subgroupOperations = 0;          // VkSubgroupFeatureFlags bits (GroupNonUniform* capabilities)
    std::vector<uint32_t> unknownCapabilities;  // capabilities this table does not know (tests keep it empty)
    bool valid = true;                          // false: not a SPIR-V module (bad magic, truncated)
};

// Reads the OpCapability instructions of a SPIR-V module.
KernelNeeds spirvNeeds(const uint32_t* code, size_t words);

// "shaderInt64 (VkPhysicalDeviceFeatures)", or with its extension for extension features.
std::string describeFeature(Feature f);

}  // namespace vkinfer::vk
