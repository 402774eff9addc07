// Building blocks of the demo's passes: a full-screen graphics pipeline in its own render
// pass (one RGBA8 color attachment), and a compute pipeline. Both take their descriptor
// bindings and push-constant size from the caller, and allocate descriptor sets from their
// own pool.
#pragma once

#include <vulkan/vulkan.h>

#include <map>
#include <vector>

#include "vulkan_host.h"

namespace demo {

// A descriptor of a pass: a combined image sampler (nearest, clamp to edge; the shaders use
// texelFetch) reading an image in SHADER_READ_ONLY_OPTIMAL, or a storage buffer.
struct PassBinding {
    VkDescriptorType type = VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    VkImageView view = VK_NULL_HANDLE;
    VkBuffer buffer = VK_NULL_HANDLE;
};

class PipelineBase {
public:
    PipelineBase(const VulkanHost& host, VkShaderStageFlags stage, const std::vector<VkDescriptorType>& bindings,
                 uint32_t pushBytes, uint32_t maxSets);
    virtual ~PipelineBase();
    PipelineBase(const PipelineBase&) = delete;
    PipelineBase& operator=(const PipelineBase&) = delete;

    // A descriptor set naming `resources` (one per binding, in order); valid while the pass lives.
    VkDescriptorSet createSet(const std::vector<PassBinding>& resources);

protected:
    const VulkanHost& host_;
    VkShaderStageFlags stage_;
    std::vector<VkDescriptorType> bindings_;
    uint32_t pushBytes_;
    VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
    VkPipeline pipeline_ = VK_NULL_HANDLE;
    VkDescriptorPool descriptorPool_ = VK_NULL_HANDLE;
    VkSampler sampler_ = VK_NULL_HANDLE;
};

// The render pass leaves its target in COLOR_ATTACHMENT_OPTIMAL, written at
// COLOR_ATTACHMENT_OUTPUT. Its entry dependency orders earlier uses of the target in this
// queue (sampled by fragment or compute shaders, copied by transfers, written as an
// attachment) before the layout transition; later uses need their own barrier.
class FullscreenPass : public PipelineBase {
public:
    FullscreenPass(const VulkanHost& host, const uint32_t* frag, size_t fragBytes,
                   const std::vector<VkDescriptorType>& bindings, uint32_t pushBytes, uint32_t maxSets);
    ~FullscreenPass() override;

    // Begins the pass on `target`, binds the pipeline, viewport, push constants and the
    // set, draws one full-screen triangle and ends the pass.
    void record(VkCommandBuffer cmd, const GpuImage& target, const void* push, VkDescriptorSet set = VK_NULL_HANDLE);

private:
    VkRenderPass renderPass_ = VK_NULL_HANDLE;
    std::map<VkImageView, VkFramebuffer> framebuffers_;
};

class ComputePass : public PipelineBase {
public:
    ComputePass(const VulkanHost& host, const uint32_t* comp, size_t compBytes,
                const std::vector<VkDescriptorType>& bindings, uint32_t pushBytes, uint32_t maxSets);
    void record(VkCommandBuffer cmd, uint32_t groupsX, uint32_t groupsY, const void* push, VkDescriptorSet set);
};

}  // namespace demo
