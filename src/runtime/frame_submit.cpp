#include "runtime/frame_submit.h"

#include <chrono>
#include <cstring>
#include <mutex>

#include "core/host_alloc.h"
#include "runtime/index_status.h"
#include "vk/check.h"
#include "vk/fault_injection.h"

namespace vkinfer::rt {

namespace {

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void waitForSlot(VkDevice dev, FrameSlot& s) {
    if (!s.submitted) return;
    VkResult r = vk::injectedResult("vkWaitForFences");
    if (r == VK_SUCCESS) r = vkWaitForFences(dev, 1, &s.fence, VK_TRUE, UINT64_MAX);
    VK_CHECK_RESULT(r, "vkWaitForFences (frame slot's last submission)");
}

void reuseSlot(VkDevice dev, FrameSlot& s) {
    waitForSlot(dev, s);  // the slot's staging and buffers are free once its last run finished
    if (s.submitted) {
        VK_CHECK(vkResetFences(dev, 1, &s.fence));
        s.submitted = false;
    }
}

void submitSlot(const vk::Device& device, const vk::DeviceQueue& queue, FrameSlot& s, const plan::CompiledPlan& plan,
                const std::vector<const Tensor*>& inputs, uint64_t ticket, const std::vector<ExternalWait>& waits,
                VkSemaphore signalTimeline) {
    for (size_t i = 0; i < inputs.size(); ++i)
        if (inputs[i]) std::memcpy(s.inputStaging[i].mapped(), inputs[i]->data(), inputs[i]->byteSize());
    submitCommands(device, queue, s, s.commands, ticket, waits, signalTimeline);
    for (size_t k = 0; k < plan.graph.outputs.size(); ++k)
        s.outputStaged[k] = !s.imported[plan.outputAlloc(static_cast<int>(k))];
}

void submitCommands(const vk::Device& device, const vk::DeviceQueue& queue, FrameSlot& s, VkCommandBuffer commands,
                    uint64_t ticket, const std::vector<ExternalWait>& waits, VkSemaphore signalTimeline) {
    std::vector<VkSemaphore> waitSems;
    std::vector<uint64_t> waitValues;
    std::vector<VkPipelineStageFlags> waitStages;
    for (const auto& w : waits) {
        waitSems.push_back(w.semaphore);
        waitValues.push_back(w.value);
        waitStages.push_back(VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT);
    }
    VkTimelineSemaphoreSubmitInfo timeline{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
    timeline.waitSemaphoreValueCount = static_cast<uint32_t>(waitValues.size());
    timeline.pWaitSemaphoreValues = waitValues.data();
    timeline.signalSemaphoreValueCount = signalTimeline ? 1 : 0;
    timeline.pSignalSemaphoreValues = &ticket;
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.pNext = (signalTimeline || !waits.empty()) && device.enabled().timelineSemaphore ? &timeline : nullptr;
    si.waitSemaphoreCount = static_cast<uint32_t>(waitSems.size());
    si.pWaitSemaphores = waitSems.data();
    si.pWaitDstStageMask = waitStages.data();
    si.commandBufferCount = 1;
    si.pCommandBuffers = &commands;
    si.signalSemaphoreCount = signalTimeline ? 1 : 0;
    si.pSignalSemaphores = &signalTimeline;
    {
        VkResult r = vk::injectedResult("vkQueueSubmit");
        std::lock_guard<std::mutex> lock(*queue.lock);
        if (r == VK_SUCCESS) r = vkQueueSubmit(queue.submitHandle("Session::run/submit"), 1, &si, s.fence);
        VK_CHECK_RESULT(r, "vkQueueSubmit (inference)");
    }
    s.submitted = true;
    s.ticket = ticket;
}

std::vector<NamedTensor> readStagedOutputs(const plan::CompiledPlan& plan, const FrameSlot& s) {
    std::vector<NamedTensor> outputs;
    for (size_t k = 0; k < plan.graph.outputs.size(); ++k) {
        if (!s.outputStaged[k]) continue;  // sent to a host image/buffer, or imported memory
        const auto& v = plan.graph.values[plan.graph.outputs[k]];
        Tensor t = allocateTensor(v.dtype, v.shape, fmt::format("output '{}'", plan.outputNames[k]));
        std::memcpy(t.data(), s.outputStaging[k].mapped(), t.byteSize());
        outputs.push_back({plan.outputNames[k], std::move(t)});
    }
    return outputs;
}

std::vector<NamedTensor> collectSlot(const detail::ContextImpl& ctx, const plan::CompiledPlan& plan,
                                     const TimestampLayout& timestamps, FrameSlot& s, RunStats* stats) {
    waitForSlot(ctx.device->handle(), s);
    checkIndexStatus(plan, s);
    auto t0 = std::chrono::steady_clock::now();
    auto outputs = readStagedOutputs(plan, s);
    if (!stats) return outputs;
    stats->downloadMs = msSince(t0);
    timestamps.readGpuTimes(ctx, s.queries, *stats);
    return outputs;
}

}  // namespace vkinfer::rt
