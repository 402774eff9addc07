// What vkinfer enables on a device: the one list behind both the device vkinfer creates
// itself and vkinfer::queryDeviceRequirements (interop.h), which tells a host what to enable
// before it creates its own device.
#pragma once

#include <vulkan/vulkan.h>

#include <memory>
#include <string>
#include <vector>

#include "vk/device_features.h"

namespace vkinfer::vk {

// A feature or extension vkinfer uses, and what for.
struct Use {
    std::string name;      // "shaderInt64", "VK_KHR_external_memory_fd"
    std::string where;     // "VkPhysicalDeviceFeatures", ..., or "device extension"
    bool required = false;
    std::string enables;
};

// The uses, in the order the docs table lists them.
const std::vector<Use>& featureUses();
const std::vector<Use>& extensionUses();
// The Feature behind a featureUses() entry (by name and structure).
bool featureOfUse(const Use& use, Feature* out);

// VK_KHR_cooperative_matrix arrived in Vulkan headers 1.3.255; Debian 12 ships 1.3.239, so its
// two structures are spelled out here (the ABI the extension fixes).
inline constexpr const char* kCooperativeMatrixKhrExtension = "VK_KHR_cooperative_matrix";
inline constexpr auto kStructureCooperativeMatrixFeaturesKhr = static_cast<VkStructureType>(1000506000);
inline constexpr auto kStructureCooperativeMatrixPropertiesKhr = static_cast<VkStructureType>(1000506001);
struct CooperativeMatrixFeaturesKhr {
    VkStructureType sType = kStructureCooperativeMatrixFeaturesKhr;
    void* pNext = nullptr;
    VkBool32 cooperativeMatrix = VK_FALSE;
    VkBool32 cooperativeMatrixRobustBufferAccess = VK_FALSE;
};
struct CooperativeMatrixPropertiesKhr {
    VkStructureType sType = kStructureCooperativeMatrixPropertiesKhr;
    void* pNext = nullptr;
    uint32_t MSize = 0, NSize = 0, KSize = 0;
    VkComponentTypeNV AType{}, BType{}, CType{}, ResultType{};  // VkComponentTypeKHR: the same values
    VkBool32 saturatingAccumulation = VK_FALSE;
    VkScopeNV scope{};                                         // VkScopeKHR: the same values
};

// Feature structures chained for vkGetPhysicalDeviceFeatures2 / VkDeviceCreateInfo::pNext.
// Heap-allocated by its owner so that the chain's pointers stay valid when the owner moves.
struct FeatureChainStorage {
    VkPhysicalDeviceFeatures2 core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceCooperativeMatrixFeaturesNV coopNv{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
    CooperativeMatrixFeaturesKhr coopKhr;
    // Links core -> v11 -> v12 [-> coopNv] [-> coopKhr].
    void link(bool withCooperativeMatrixNv, bool withCooperativeMatrixKhr = false);
};

// What to enable on `phys`: every feature and extension of the uses that the device offers.
struct EnablePlan {
    std::unique_ptr<FeatureChainStorage> chain;
    std::vector<std::string> extensions;
    FeatureSet features;           // what `chain` enables
    bool timelineSemaphore = false;
    FeatureSet supported;          // what the device offers (of the features vkinfer knows)
    std::vector<std::string> supportedExtensions;  // of extensionUses()
};
// offerKhrCooperativeMatrix false: VK_KHR_cooperative_matrix is left out even where the device
// offers it (a validation layer older than the extension rejects its feature structure).
EnablePlan planDeviceFeatures(VkPhysicalDevice phys, bool offerKhrCooperativeMatrix = true);

// The features a VkDeviceCreateInfo::pNext chain enables (VkPhysicalDeviceFeatures2, the
// Vulkan 1.1/1.2/1.3 structures, the 16-bit, 8-bit, float16/int8, memory-model, timeline and
// cooperative-matrix structures; others are skipped).
FeatureSet featuresInChain(const void* pNext, bool* timelineSemaphore = nullptr);
FeatureSet featuresOf(const VkPhysicalDeviceFeatures& f);
FeatureSet featuresOf(const VkPhysicalDeviceVulkan11Features& f);
FeatureSet featuresOf(const VkPhysicalDeviceVulkan12Features& f);

}  // namespace vkinfer::vk
