#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "vk/device.h"
#include "vk/instance.h"
#include "vk/pipelines.h"
#include "vkinfer/context.h"

namespace vkinfer::detail {

struct ContextImpl {
    std::unique_ptr<vk::Instance> instance;
    std::unique_ptr<vk::Device> device;
    std::unique_ptr<vk::PipelineCache> pipelines;
    DeviceInfo info;

    bool validation() const { return instance && instance->validation(); }
    // Throws Error(ValidationError) with every message reported since the last check.
    void checkValidation(const char* during);
    // The alignment plans for this device must use.
    uint32_t planAlignment(uint32_t requested) const;

    // Device loss is final (Vulkan: the logical device cannot be used again): once a call
    // reports it, every later call fails fast naming the first, instead of waiting on
    // fences that never signal or reading memory whose contents are undefined.
    bool lost() const;
    void markLost(const std::string& call, const std::string& message);
    void throwIfLost(const char* call) const;

    mutable std::mutex lostMutex;
    std::string lostDuring;  // "Session::run: vkQueueSubmit (inference) returned VK_ERROR_DEVICE_LOST ..."

    ~ContextImpl() {
        // Order: pipelines and device before the instance.
        pipelines.reset();
        device.reset();
        instance.reset();
    }
};

}  // namespace vkinfer::detail
