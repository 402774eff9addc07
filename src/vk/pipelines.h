// Compute pipelines keyed by (kernel, workgroup size, specialization constants, binding
// types), created on first use and shared by every session of a context.
#pragma once

#include <vulkan/vulkan.h>

#include <array>
#include <map>
#include <vector>
#include <mutex>
#include <string>

#include "core/kernel_table.h"
#include "vk/device.h"

namespace vkinfer::vk {

struct Pipeline {
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
};

class PipelineCache {
public:
    // validated: the instance runs the validation layer. Debian 12's layer (1.3.239) predates
    // SPV_KHR_cooperative_matrix and cannot check the KHR form, so the NV form is kept then
    // where the device has it.
    explicit PipelineCache(Device& device, bool validated = false);
    ~PipelineCache();
    PipelineCache(const PipelineCache&) = delete;
    PipelineCache& operator=(const PipelineCache&) = delete;

    // Thread-safe. Throws Error naming the kernel on failure. Binding i of the kernel's one
    // descriptor set has type descriptorTypes[i]; spec holds specialization constants 3, 4, ...
    // (0-2 are the workgroup size).
    Pipeline get(kernels::KernelId kernel, const std::vector<VkDescriptorType>& descriptorTypes,
                 const std::array<uint32_t, 3>& localSize, const std::vector<uint32_t>& spec);
    // The same with `storageBuffers` storage-buffer bindings (every planned dispatch).
    Pipeline get(kernels::KernelId kernel, size_t storageBuffers, const std::array<uint32_t, 3>& localSize,
                 const std::vector<uint32_t>& spec);
    size_t size() const { return pipelines_.size(); }
    // Whether the tensor-core kernels can be created here, in either form.
    bool cooperativeMatrices() const { return khrMatrices_ || nvMatrices_; }
    // Throws Unsupported naming `who` (e.g. "node 'x' (Gather)"), the kernel and each device
    // feature its SPIR-V declares that the device has not enabled. Every pipeline creation
    // checks this too, so no shader module is made for a device that cannot run it.
    void requireKernelFeatures(kernels::KernelId kernel, const std::string& who) const;

private:
    struct Layout {
        VkDescriptorSetLayout set = VK_NULL_HANDLE;
        VkPipelineLayout pipeline = VK_NULL_HANDLE;
    };
    Layout layoutFor(const std::vector<VkDescriptorType>& types);
    VkSampler sampler();
    VkShaderModule moduleFor(kernels::KernelId kernel);
    struct Code {
        const uint32_t* words;
        size_t count;
    };
    // The SPIR-V a kernel is created from on this device: its NV cooperative matrices in
    // their KHR form where the device runs those (vk/coopmat_khr.h).
    Code codeFor(const kernels::KernelBlob& blob) const;

    Device& device_;
    bool khrMatrices_ = false;  // translate NV cooperative-matrix kernels to KHR
    bool nvMatrices_ = false;   // the NV form runs here (a fallback for a refused translation)
    VkPipelineCache cache_ = VK_NULL_HANDLE;
    std::mutex mutex_;
    std::map<std::vector<VkDescriptorType>, Layout> layouts_;
    VkSampler sampler_ = VK_NULL_HANDLE;  // nearest, clamp: texelFetch-style reads of host images
    std::map<kernels::KernelId, VkShaderModule> modules_;
    std::map<std::string, Pipeline> pipelines_;
};

}  // namespace vkinfer::vk
