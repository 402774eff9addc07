// A test hook that makes a named Vulkan call fail as a real device or driver would
// (VK_ERROR_DEVICE_LOST from vkQueueSubmit, VK_ERROR_OUT_OF_DEVICE_MEMORY from
// vkAllocateMemory), so that the error paths behind them are tested on any device. Nothing
// arms it outside tests; disarmed it costs one relaxed atomic load per call site.
#pragma once

#include <vulkan/vulkan.h>

#include <string>

namespace vkinfer::vk {

// The next call named `call` after `skip` more of them returns `result` without reaching the
// driver. Call names: "vkQueueSubmit", "vkWaitForFences", "vkAllocateMemory".
void injectFailure(const std::string& call, VkResult result, int skip = 0);
void clearInjectedFailures();

// VK_SUCCESS, or the result armed for `call` (consuming it).
VkResult injectedResult(const char* call);

}  // namespace vkinfer::vk
