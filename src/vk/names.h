// Names of Vulkan enumerants for messages ("VK_FORMAT_R32_SFLOAT", not "format 100").
#pragma once

#include <vulkan/vulkan.h>

#include <string>

namespace vkinfer::vk {

// "VK_FORMAT_R8G8B8A8_UNORM (37)"; an unknown value reads "VkFormat 123456".
std::string formatName(VkFormat format);

}  // namespace vkinfer::vk
