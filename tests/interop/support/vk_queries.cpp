#include "interop/support/vk_queries.h"

#include <cstring>
#include <vector>

namespace vkinfer::testing {

uint32_t instanceLayerSpecVersion(const char* name) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> layers(n);
    vkEnumerateInstanceLayerProperties(&n, layers.data());
    for (const auto& l : layers)
        if (std::strcmp(l.layerName, name) == 0) return l.specVersion == 0 ? 1 : l.specVersion;
    return 0;
}

bool hasInstanceLayer(const char* name) { return instanceLayerSpecVersion(name) != 0; }

bool hasDeviceExtension(VkPhysicalDevice phys, const char* name) {
    uint32_t n = 0;
    vkEnumerateDeviceExtensionProperties(phys, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> exts(n);
    vkEnumerateDeviceExtensionProperties(phys, nullptr, &n, exts.data());
    for (const auto& e : exts)
        if (std::strcmp(e.extensionName, name) == 0) return true;
    return false;
}

}  // namespace vkinfer::testing
