// VK_CHECK: calls a Vulkan function and, on failure, throws Error(VulkanError) carrying the
// VkResult, the call's text, and the file and line.
#pragma once

#include <vulkan/vulkan.h>

#include "core/error.h"

namespace vkinfer::vk {

const char* resultName(VkResult r);

[[noreturn]] void throwVulkanError(VkResult r, const char* call, const char* file, int line);

}  // namespace vkinfer::vk

#define VK_CHECK(call)                                                                   \
    do {                                                                                 \
        VkResult vk_check_result_ = (call);                                              \
        if (vk_check_result_ != VK_SUCCESS)                                              \
            ::vkinfer::vk::throwVulkanError(vk_check_result_, #call, __FILE__, __LINE__); \
    } while (0)

// For a result obtained apart from its call (fault injection, a call made under a lock):
// `callName` is what the message names.
#define VK_CHECK_RESULT(result, callName)                                                \
    do {                                                                                 \
        VkResult vk_check_result_ = (result);                                            \
        if (vk_check_result_ != VK_SUCCESS)                                              \
            ::vkinfer::vk::throwVulkanError(vk_check_result_, callName, __FILE__, __LINE__); \
    } while (0)
