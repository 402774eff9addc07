// A compiled plan with its GPU resources: buffers for every allocation, weights uploaded,
// pipelines and descriptor sets, and the command buffer recorded once and replayed.
#pragma once

#include <vulkan/vulkan.h>

#include <vector>

#include "plan/compile.h"
#include "runtime/context_impl.h"
#include "vk/device.h"
#include "vk/pipelines.h"
#include "vkinfer/session.h"

namespace vkinfer::rt {

class PreparedPlan {
public:
    PreparedPlan(detail::ContextImpl& ctx, plan::CompiledPlan plan, bool timestamps);
    ~PreparedPlan();
    PreparedPlan(const PreparedPlan&) = delete;
    PreparedPlan& operator=(const PreparedPlan&) = delete;

    const plan::CompiledPlan& plan() const { return plan_; }

    // Records every dispatch with its planned barriers into `cmd` (no transfers, no
    // boundary barriers): the part shared by the engine's own command buffer and a host's.
    void recordDispatches(VkCommandBuffer cmd) const;

    // inputs[i] is graph input i. Copies into staging, submits, waits, reads back.
    std::vector<NamedTensor> run(const std::vector<const Tensor*>& inputs, RunStats* stats);

    VkBuffer buffer(int alloc) const { return buffers_[alloc].handle(); }

private:
    void uploadWeights();
    void createDescriptors();
    void recordRun();
    void submitAndWait(VkCommandBuffer cmd);

    detail::ContextImpl& ctx_;
    plan::CompiledPlan plan_;
    bool timestamps_;
    std::vector<vk::Buffer> buffers_;          // per allocation
    std::vector<vk::Buffer> inputStaging_;
    std::vector<vk::Buffer> outputStaging_;
    std::vector<vk::Pipeline> pipelines_;      // per dispatch
    VkDescriptorPool descriptorPool_ = VK_NULL_HANDLE;
    std::vector<VkDescriptorSet> sets_;        // per dispatch
    VkCommandPool commandPool_ = VK_NULL_HANDLE;
    VkCommandBuffer runCommands_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
    VkQueryPool queryPool_ = VK_NULL_HANDLE;
};

}  // namespace vkinfer::rt
