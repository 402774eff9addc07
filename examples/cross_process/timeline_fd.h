// Timeline semaphores shared between processes as opaque fds (VK_KHR_external_semaphore_fd on
// both devices, timelineSemaphore enabled), and a submission that waits on one and signals
// another: what the semaphore path of the cross-process example (vulkan_device.h) and of the
// cross-process image test (tests/interop/image_process_test.cpp and its peer) use. Failures
// throw std::runtime_error naming the call.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

namespace vkinfer::crossprocess {

// A timeline semaphore at 0 whose payload can be exported as an opaque fd.
VkSemaphore createExportableTimeline(VkDevice device);
// The semaphore's payload as an opaque fd, owned by the caller (send it, then close it).
int exportSemaphoreFd(VkDevice device, VkSemaphore semaphore);
// A timeline semaphore sharing the payload behind `fd` (imported permanently). On success the fd
// belongs to Vulkan; on failure nothing is left and the fd is still the caller's.
VkSemaphore importTimelineFd(VkDevice device, int fd);
// Submits `cmd` (ended), waiting at all commands for `wait` >= waitValue (none when null) and
// signaling `signal` = signalValue (none when null), then `fence` (may be null).
void submitWithTimelines(VkQueue queue, VkCommandBuffer cmd, VkFence fence, VkSemaphore wait, uint64_t waitValue,
                         VkSemaphore signal, uint64_t signalValue);

}  // namespace vkinfer::crossprocess
