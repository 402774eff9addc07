#include "runtime/prepared_plan.h"

#include <string>

#include "vk/check.h"

namespace vkinfer::rt {

PreparedPlan::PreparedPlan(detail::ContextImpl& ctx, plan::CompiledPlan plan, const SessionOptions& options,
                           const vk::DeviceQueue& queue)
    : ctx_(ctx), queue_(queue), plan_(std::move(plan)), options_(options),
      timestamps_(options, queue.timestampBits, plan_.dispatches.size()) {
    const vk::Device& dev = *ctx_.device;
    if (options_.framesInFlight < 1 || options_.framesInFlight > 16)
        fail(ErrorCode::InvalidArgument, "framesInFlight must be between 1 and 16 (got {})", options_.framesInFlight);
    // Before anything is created: every kernel runs on this device as enabled.
    for (const auto& d : plan_.dispatches) {
        std::string who = d.node >= 0 ? plan_.graph.nodes[d.node].describe() : std::string("dispatch '") + d.label + "'";
        ctx_.pipelines->requireKernelFeatures(d.kernel, who);
    }
    // The destructor does not run for a constructor that throws (a failed allocation, say):
    // release what was created so that the session stays usable for other shapes.
    try {
        weights_.allocate(dev, plan_.allocations[plan::kWeightsAlloc].size);
        VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pi.queueFamilyIndex = queue_.family;
        pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        VK_CHECK(vkCreateCommandPool(dev.handle(), &pi, nullptr, &commandPool_));
        for (const auto& d : plan_.dispatches)
            pipelines_.push_back(ctx_.pipelines->get(d.kernel, d.bindings.size(), d.localSize, d.spec));
        slots_.resize(options_.framesInFlight);
        weights_.upload(*ctx_.device, queue_, plan_, commandPool_, options_.framesInFlight);
    } catch (...) {
        release();
        throw;
    }
}

PreparedPlan::~PreparedPlan() { release(); }

void PreparedPlan::release() {
    VkDevice dev = ctx_.device->handle();
    // Our own submissions are fenced. Work the host recorded is the host's to finish before
    // it destroys the session (docs/INTEGRATION.md): vkDeviceWaitIdle on its device would
    // need the host to stop submitting from every other thread meanwhile. A lost device
    // returns at once from both waits.
    if (ctx_.device->owned()) {
        vkDeviceWaitIdle(dev);
    } else {
        for (auto& s : slots_)
            if (s && s->submitted) vkWaitForFences(dev, 1, &s->fence, VK_TRUE, UINT64_MAX);
    }
    for (auto& s : slots_)
        if (s) destroyFrameSlot(dev, *s);
    slots_.clear();
    if (commandPool_) vkDestroyCommandPool(dev, commandPool_, nullptr);
    commandPool_ = VK_NULL_HANDLE;
}

FrameSlot& PreparedPlan::slot(uint32_t i) {
    if (i >= slots_.size())
        fail(ErrorCode::InvalidArgument, "frame {} is out of range: the session has {} frame slot{} (framesInFlight)", i,
             slots_.size(), slots_.size() == 1 ? "" : "s");
    if (!slots_[i]) {
        auto s = std::make_unique<FrameSlot>();
        try {
            createFrameSlot(*s, i, ctx_, plan_, pipelines_, timestamps_, options_.shareableIO);
            writeFrameSlotDescriptors(*s, ctx_, plan_, weights_.buffer());
        } catch (...) {  // e.g. the arena does not fit: leave nothing behind
            destroyFrameSlot(ctx_.device->handle(), *s);
            throw;
        }
        slots_[i] = std::move(s);
    }
    return *slots_[i];
}

VkBuffer PreparedPlan::buffer(const FrameSlot& s, int alloc) const {
    if (alloc == plan::kWeightsAlloc) return weights_.buffer().handle();
    return ioBuffer(s, alloc).handle();
}

void PreparedPlan::submit(FrameSlot& s, const std::vector<const Tensor*>& inputs, uint64_t ticket,
                          const std::vector<ExternalWait>& waits, VkSemaphore signalTimeline) {
    VkDevice dev = ctx_.device->handle();
    queue_.submitHandle("Session::run/submit");  // fails, changing nothing, where the host gave no queue
    reuseSlot(dev, s);
    if (!s.commandsRecorded) recordSlotRun(dev, commandPool_, s, plan_, pipelines_, timestamps_);
    submitSlot(*ctx_.device, queue_, s, plan_, inputs, ticket, waits, signalTimeline);
}

void PreparedPlan::submitRecording(FrameSlot& s, const SlotRecorder& record, uint64_t ticket,
                                   const std::vector<ExternalWait>& waits, VkSemaphore signalTimeline) {
    VkDevice dev = ctx_.device->handle();
    queue_.submitHandle("submitInference");  // fails, changing nothing, where the host gave no queue
    reuseSlot(dev, s);
    if (!s.ioCommands) s.ioCommands = allocatePrimaryCommandBuffer(dev, commandPool_);
    // A recording that failed halfway left the buffer recording: the reset discards it.
    VK_CHECK(vkResetCommandBuffer(s.ioCommands, 0));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(s.ioCommands, &bi));
    const bool stamped = timestamps_.enabled();
    if (stamped) vkCmdResetQueryPool(s.ioCommands, s.queries, 0, timestamps_.count());
    record(s.ioCommands, stamped ? s.queries : VK_NULL_HANDLE, timestamps_.profile() ? s.queries : VK_NULL_HANDLE);
    VK_CHECK(vkEndCommandBuffer(s.ioCommands));
    submitCommands(*ctx_.device, queue_, s, s.ioCommands, ticket, waits, signalTimeline);
}

void PreparedPlan::refreshSlot(FrameSlot& s) {
    waitIdle(s);
    writeFrameSlotDescriptors(s, ctx_, plan_, weights_.buffer());
    for (size_t i = 0; i < plan_.graph.inputs.size(); ++i)  // an imported input is read in place
        if (s.imported[plan_.inputAlloc(static_cast<int>(i))]) s.stagingHoldsInput[i] = 0;
    s.commandsRecorded = false;  // the copies name the buffers too
}

}  // namespace vkinfer::rt
