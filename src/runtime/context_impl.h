#pragma once

#include <memory>

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

    ~ContextImpl() {
        // Order: pipelines and device before the instance.
        pipelines.reset();
        device.reset();
        instance.reset();
    }
};

}  // namespace vkinfer::detail
