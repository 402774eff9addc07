// Which queue family and queue inference runs on, decided from described queue families
// alone (QueueFamilyInfo, context.h): pure C++, unit-tested without a GPU
// (tests/plan/queue_choice_test.cpp). vk/device.cpp and interop/host_device.cpp read the
// families and call these; nothing else decides a queue.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vkinfer/context.h"

namespace vkinfer::vk {

// The families a device vkinfer creates (Context::create) gets queues in.
struct ContextQueuePlan {
    uint32_t main = 0;              // SessionQueue::Context
    std::optional<uint32_t> async;  // SessionQueue::AsyncCompute: a compute family without graphics
};

// main: a compute family without graphics with timestamps, else a compute family with
// timestamps, else a compute family without graphics, else the first compute family (the
// choice vkinfer always made: timestamps give RunStats::gpuMs). async: a compute family
// without graphics, with timestamps where one has them. Throws Unsupported naming the device
// when no family has compute.
ContextQueuePlan chooseContextQueues(const std::vector<QueueFamilyInfo>& families, const std::string& device);

// What each SessionQueue gives.
struct QueueAssignment {
    QueueInfo context;
    QueueInfo async;
};

// On a device vkinfer created with `plan`'s queues.
QueueAssignment assignContextQueues(const std::vector<QueueFamilyInfo>& families, const ContextQueuePlan& plan,
                                    const std::string& device);

// On the host's device: HostDevice::queueFamilyIndex, and HostDevice::computeQueueFamilyIndex
// when the host named one (`sameQueue`: it gave the same VkQueue for both). Throws
// InvalidArgument for a family the device lacks and Unsupported for one without compute.
QueueAssignment assignHostQueues(const std::vector<QueueFamilyInfo>& families, uint32_t hostFamily,
                                 std::optional<uint32_t> computeFamily, bool sameQueue, const std::string& device);

// "queue family 2 (compute, transfer; no graphics)".
std::string describeQueueFamily(const std::vector<QueueFamilyInfo>& families, uint32_t family);

}  // namespace vkinfer::vk
