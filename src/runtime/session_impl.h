// The state behind vkinfer::Session, shared by session.cpp and the interop entry points.
#pragma once

#include <vulkan/vulkan.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/context_impl.h"
#include "runtime/prepared_plan.h"
#include "vkinfer/session.h"

namespace vkinfer::detail {

struct SessionImpl {
    Context context;
    Model model;
    SessionOptions options;
    KernelPolicy kernelPolicy;  // options.kernels with the environment's overrides (core/environment.h)
    std::map<std::string, std::unique_ptr<rt::PreparedPlan>> plans;  // keyed by input shapes
    std::map<std::string, uint64_t> planLastUse;                     // same keys: useClock at last use
    uint64_t useClock = 0;
    uint64_t plansCompiled = 0;

    uint64_t lastTicket = 0;
    uint32_t nextFrame = 0;
    std::map<uint64_t, rt::PreparedPlan*> outstanding;        // ticket -> plan it ran
    std::vector<rt::PreparedPlan*> framePlan;                 // per frame: plan of its last use
    std::vector<std::vector<std::optional<Tensor>>> staged;   // per frame, per input: stageInput()

    // Signaled with each ticket's value (created on first need where timelines exist).
    VkSemaphore timeline = VK_NULL_HANDLE;
    bool timelineExportable = false;
    // Imported semaphores the next submission waits on; destroyed once it has finished.
    std::vector<rt::PreparedPlan::ExternalWait> pendingWaits;
    std::vector<std::pair<VkSemaphore, uint64_t>> retiredWaits;  // semaphore, ticket after which it is free
    // Timeline semaphores imported once (importTimelineSemaphore), by ImportedTimeline::index;
    // destroyed with the session.
    std::vector<VkSemaphore> importedTimelines;
    // Imported fences (importWaitFence) the next submission waits for on the CPU, then destroys.
    std::vector<VkFence> pendingFenceWaits;
    // What exportFence / exportSignalSemaphore made, kept until `done` (a private fence of the
    // empty submission after theirs) has signaled: a Vulkan object may not be destroyed while a
    // submission that signals it is pending.
    struct ExportedSignal {
        VkFence fence = VK_NULL_HANDLE;
        VkSemaphore semaphore = VK_NULL_HANDLE;
        VkFence done = VK_NULL_HANDLE;
    };
    std::vector<ExportedSignal> exportedSignals;
    // Destroys the exported signals whose submissions have finished (all of them, waiting, when
    // `wait`).
    void releaseExportedSignals(bool wait);
    // Waits on the CPU for, and destroys, the imported fences (before a submission).
    void waitImportedFences();

    SessionImpl(Context c, Model m, SessionOptions o);
    ~SessionImpl();

    ContextImpl& ctx() { return *context.impl(); }
    // The queue the session runs on (SessionOptions::queue).
    const vk::DeviceQueue& queue() const { return context.impl()->device->queue(options.queue); }
    PlanOptions planOptions() const;
    // The prepared plan for these (resolved) shapes, compiling it on first use.
    // Inputs listed by passes::valueInputs are part of the key and bound by value. Inputs
    // flagged in `defaulted` (by index; they have a default and the run leaves them out) are
    // planned with their defaults as constants, keyed by name alone.
    rt::PreparedPlan& planFor(const InputShapes& shapes, bool* compiled = nullptr,
                              const std::vector<NamedTensor>& values = {}, const std::vector<bool>& defaulted = {});
    // The inputs (by graph-input index) whose values key plans (passes::valueInputs).
    std::vector<size_t> valueInputIndices;
    // Input tensors in graph-input order, validated against the model; fills `shapes`.
    std::vector<const Tensor*> orderInputs(const std::vector<NamedTensor>& inputs, InputShapes* shapes) const;
    // The plan whose slot `frame` shared memory refers to (exportTensorMemory,
    // importTensorMemory, inputs left out of submit because they were imported): the plan the
    // frame last ran, else the only prepared one; null when there is none or several.
    rt::PreparedPlan* sharedPlan(uint32_t frame);
    // The shared plan of slot `frame` when graph input `input` reads memory that slot imported
    // (importTensorMemory: the input is read in place and left out of submit and recordings),
    // else null.
    rt::PreparedPlan* importedInputPlan(uint32_t frame, size_t input);
    VkSemaphore timelineSemaphore();
    uint64_t submit(rt::PreparedPlan& plan, uint32_t frame, const std::vector<const Tensor*>& inputs);
    // The bookkeeping of every submission (Session::submit, submitInference) around
    // `submitSlot`, which submits slot `frame` of `plan` as `ticket`, waiting on pendingWaits and
    // signaling the timeline: the previous ticket of the slot ends, imported fences are waited
    // for first, the waits retire with the ticket. Returns the ticket.
    uint64_t submitWith(rt::PreparedPlan& plan, uint32_t frame,
                        const std::function<void(rt::FrameSlot&, uint64_t ticket)>& submitSlot);
    void releaseFinishedWaits();
    // Drops least recently used plans until a new one fits SessionOptions::maxCachedPlans.
    void evictPlansBeyondLimit();
};

}  // namespace vkinfer::detail
