// The feature structures vkinfer reads and enables, chained for vkGetPhysicalDeviceFeatures2
// and vkCreateDevice.
#pragma once

#include <vulkan/vulkan.h>

namespace vkinfer::vk {

struct FeatureChain {
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceFeatures2 core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};

    FeatureChain() { link(); }
    FeatureChain(const FeatureChain& o) : v12(o.v12), v11(o.v11), core(o.core) { link(); }
    FeatureChain& operator=(const FeatureChain& o) {
        v12 = o.v12;
        v11 = o.v11;
        core = o.core;
        link();
        return *this;
    }
    // What the physical device supports.
    static FeatureChain supported(VkPhysicalDevice phys) {
        FeatureChain c;
        vkGetPhysicalDeviceFeatures2(phys, &c.core);
        return c;
    }

private:
    void link() {
        core.pNext = &v11;
        v11.pNext = &v12;
        v12.pNext = nullptr;
    }
};

}  // namespace vkinfer::vk
