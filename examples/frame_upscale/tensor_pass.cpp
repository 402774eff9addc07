#include "tensor_pass.h"

namespace demo {

namespace {
const uint32_t kToTensorComp[] =
#include "to_tensor.comp.inc"
    ;
}  // namespace

TensorPass::TensorPass(const VulkanHost& host, uint32_t maxSets)
    : pass_(host, kToTensorComp, sizeof(kToTensorComp),
            {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER}, 2 * sizeof(uint32_t),
            maxSets) {}

void TensorPass::record(VkCommandBuffer cmd, uint32_t width, uint32_t height, VkDescriptorSet set) {
    uint32_t push[2] = {width, height};
    pass_.record(cmd, (width + 15) / 16, (height + 15) / 16, push, set);
}

}  // namespace demo
