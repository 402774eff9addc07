// Compute pipelines keyed by (kernel, workgroup size, specialization constants, binding
// count), created on first use and shared by every session of a context.
#pragma once

#include <vulkan/vulkan.h>

#include <map>
#include <mutex>
#include <string>

#include "ops/dispatch.h"
#include "vk/device.h"

namespace vkinfer::vk {

struct Pipeline {
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
};

class PipelineCache {
public:
    explicit PipelineCache(Device& device);
    ~PipelineCache();
    PipelineCache(const PipelineCache&) = delete;
    PipelineCache& operator=(const PipelineCache&) = delete;

    // Thread-safe. Throws Error naming the kernel on failure.
    Pipeline get(const ops::Dispatch& d);
    size_t size() const { return pipelines_.size(); }

private:
    struct Layout {
        VkDescriptorSetLayout set = VK_NULL_HANDLE;
        VkPipelineLayout pipeline = VK_NULL_HANDLE;
    };
    Layout layoutFor(uint32_t bindings);
    VkShaderModule moduleFor(const std::string& kernel);

    Device& device_;
    VkPipelineCache cache_ = VK_NULL_HANDLE;
    std::mutex mutex_;
    std::map<uint32_t, Layout> layouts_;
    std::map<std::string, VkShaderModule> modules_;
    std::map<std::string, Pipeline> pipelines_;
};

}  // namespace vkinfer::vk
