// Small Vulkan queries shared by the host-side test harnesses (host_vulkan, shared_util, the
// fd peer): they play the host application, so they use Vulkan directly, not vkinfer's code.
#pragma once

#include <vulkan/vulkan.h>

namespace vkinfer::testing {

// The Vulkan header version instance layer `name` was built against; 0 when it is absent.
uint32_t instanceLayerSpecVersion(const char* name);
bool hasInstanceLayer(const char* name);
bool hasDeviceExtension(VkPhysicalDevice phys, const char* name);

}  // namespace vkinfer::testing
