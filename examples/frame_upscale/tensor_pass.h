// Shared pattern: converts the rendered frame into the model's input layout (float
// [1, 3, H, W], RGB in [0, 1]) with a compute shader writing a storage buffer: the buffer
// whose memory the upscaler's context imported.
#pragma once

#include "passes.h"

namespace demo {

class TensorPass {
public:
    TensorPass(const VulkanHost& host, uint32_t maxSets);
    VkDescriptorSet createSet(VkImageView scene, VkBuffer tensor) {
        return pass_.createSet({{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, scene, VK_NULL_HANDLE},
                                {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_NULL_HANDLE, tensor}});
    }
    // The scene must be in SHADER_READ_ONLY_OPTIMAL, visible to compute shaders.
    void record(VkCommandBuffer cmd, uint32_t width, uint32_t height, VkDescriptorSet set);

private:
    ComputePass pass_;
};

}  // namespace demo
