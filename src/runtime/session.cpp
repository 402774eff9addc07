#include "vkinfer/session.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>

#include "core/environment.h"
#include "core/error.h"
#include "core/wording.h"
#include "runtime/model_data.h"
#include "passes/specialize.h"
#include "runtime/device_guard.h"
#include "runtime/index_status.h"
#include "runtime/session_impl.h"
#include "vk/check.h"

namespace vkinfer {

namespace detail {

SessionImpl::SessionImpl(Context c, Model m, SessionOptions o)
    : context(std::move(c)), model(std::move(m)), options(o) {
    kernelPolicy = env::applyToKernelPolicy(options.kernels);
    if (options.framesInFlight < 1 || options.framesInFlight > 16)
        fail(ErrorCode::InvalidArgument, "SessionOptions::framesInFlight must be between 1 and 16 (got {})",
             options.framesInFlight);
    framePlan.assign(options.framesInFlight, nullptr);
    const auto& g = model.data()->graph;
    for (int v : passes::valueInputs(g))
        for (size_t i = 0; i < g.inputs.size(); ++i)
            if (g.inputs[i].value == v) valueInputIndices.push_back(i);
    staged.assign(options.framesInFlight, std::vector<std::optional<Tensor>>(model.inputs().size()));
}

SessionImpl::~SessionImpl() {
    plans.clear();  // waits for the plans' own submissions
    VkDevice dev = ctx().device->handle();
    releaseExportedSignals(true);
    for (VkFence f : pendingFenceWaits) vkDestroyFence(dev, f, nullptr);  // never submitted: free now
    for (auto& w : pendingWaits)
        if (w.retires) vkDestroySemaphore(dev, w.semaphore, nullptr);
    for (auto& [sem, after] : retiredWaits) vkDestroySemaphore(dev, sem, nullptr);
    for (VkSemaphore sem : importedTimelines) vkDestroySemaphore(dev, sem, nullptr);
    if (timeline) vkDestroySemaphore(dev, timeline, nullptr);
}

PlanOptions SessionImpl::planOptions() const {
    PlanOptions po;
    po.sync = options.sync;
    po.precision = options.precision;
    po.alignment = context.impl()->planAlignment(po.alignment);
    const auto& dev = *context.impl()->device;
    const DeviceInfo& info = context.impl()->info;
    po.device.gpu = info.type != "CPU";
    po.device.subgroupSize = info.subgroupSize;
    po.device.sharedMemoryBytes = info.sharedMemoryBytes;
    po.device.float16Arithmetic = dev.enabled().has(vk::Feature::ShaderFloat16);
    // Tensor cores: an extension and its feature enabled, with the 16x16x16 float16 -> float32
    // shape among those its driver reports (the pipeline cache knows which form it creates).
    po.device.cooperativeMatrix16 = context.impl()->pipelines->cooperativeMatrices() &&
                                    dev.enabled().has(vk::Feature::VulkanMemoryModel) &&
                                    dev.enabled().has(vk::Feature::ShaderFloat16);
    po.device.storageBufferOffsetAlignment = static_cast<uint32_t>(info.minStorageBufferOffsetAlignment);
    po.kernels = kernelPolicy;
    return po;
}

rt::PreparedPlan& SessionImpl::planFor(const InputShapes& shapes, bool* compiled, const std::vector<NamedTensor>& values,
                                       const std::vector<bool>& defaulted) {
    std::string key;
    for (const auto& [name, shape] : shapes) key += name + "=" + shapeToString(shape) + ";";
    for (size_t i = 0; i < defaulted.size(); ++i)
        if (defaulted[i]) key += model.inputs()[i].name + "#default;";
    for (const auto& v : values) {
        key += v.name + "#";
        for (size_t i = 0; i < v.tensor.byteSize(); ++i) key += fmt::format("{:02x}", static_cast<unsigned>(v.tensor.data()[i]));
        key += ";";
    }
    auto it = plans.find(key);
    if (compiled) *compiled = it == plans.end();
    if (it != plans.end()) {
        planLastUse[key] = ++useClock;
        return *it->second;
    }
    evictPlansBeyondLimit();
    if (options.precision == Precision::Float16) {  // float16 buffers, converted to float32 in the kernels
        const vk::Device& device = *ctx().device;
        device.require(vk::Feature::StorageBuffer16BitAccess, "float16 precision");
        device.require(vk::Feature::ShaderFloat16, "float16 precision");
    }
    std::vector<NamedTensor> constants = values;
    for (auto& d : detail::defaultValues(*model.data(), defaulted)) constants.push_back(std::move(d));
    auto compiledPlan = plan::compilePlan(model.data()->graph, shapes, planOptions(), constants);
    auto prepared = std::make_unique<rt::PreparedPlan>(ctx(), std::move(compiledPlan), options, queue());
    ctx().checkValidation("plan preparation");
    ++plansCompiled;
    planLastUse[key] = ++useClock;
    return *plans.emplace(key, std::move(prepared)).first->second;
}

void SessionImpl::evictPlansBeyondLimit() {
    if (options.maxCachedPlans == 0) return;
    while (plans.size() >= options.maxCachedPlans) {
        // The least recently used plan that nothing outside the session refers to: no ticket
        // outstanding, never recorded into a host command buffer (the host may still be
        // executing it), no memory shared with another device or API.
        auto victim = plans.end();
        for (auto p = plans.begin(); p != plans.end(); ++p) {
            const rt::PreparedPlan* plan = p->second.get();
            if (plan->pinned) continue;
            if (std::any_of(outstanding.begin(), outstanding.end(), [&](const auto& o) { return o.second == plan; }))
                continue;
            if (victim == plans.end() || planLastUse[p->first] < planLastUse[victim->first]) victim = p;
        }
        if (victim == plans.end()) return;  // all in use: exceed the limit rather than break them
        for (auto& f : framePlan)
            if (f == victim->second.get()) f = nullptr;
        planLastUse.erase(victim->first);
        plans.erase(victim);  // waits for its own (finished) submissions and frees its memory
    }
}

std::vector<const Tensor*> SessionImpl::orderInputs(const std::vector<NamedTensor>& inputs, InputShapes* shapes) const {
    const auto& decls = model.inputs();
    std::vector<const Tensor*> ordered(decls.size(), nullptr);
    for (const auto& in : inputs) {
        auto it = std::find_if(decls.begin(), decls.end(), [&](const TensorDesc& d) { return d.name == in.name; });
        if (it == decls.end()) {
            std::string names;
            for (const auto& d : decls) names += (names.empty() ? "'" : ", '") + d.name + "'";
            fail(ErrorCode::InvalidArgument, "the model has no input named '{}' (its inputs: {})", in.name, names);
        }
        size_t i = static_cast<size_t>(it - decls.begin());
        if (ordered[i]) fail(ErrorCode::InvalidArgument, "input '{}' is given twice", in.name);
        if (in.tensor.dtype() != it->dtype)
            fail(ErrorCode::InvalidArgument, "input '{}' must be {} but {} tensor was given", in.name,
                 dataTypeName(it->dtype), withArticle(dataTypeName(in.tensor.dtype())));
        ordered[i] = &in.tensor;
        shapes->emplace_back(in.name, in.tensor.shape());
    }
    return ordered;
}

rt::PreparedPlan* SessionImpl::sharedPlan(uint32_t frame) {
    if (frame < framePlan.size() && framePlan[frame]) return framePlan[frame];
    if (plans.size() == 1) return plans.begin()->second.get();
    return nullptr;
}

rt::PreparedPlan* SessionImpl::importedInputPlan(uint32_t frame, size_t input) {
    rt::PreparedPlan* shared = sharedPlan(frame);
    if (!shared || !shared->slot(frame).imported[shared->plan().inputAlloc(static_cast<int>(input))]) return nullptr;
    return shared;
}

VkSemaphore SessionImpl::timelineSemaphore() {
    if (timeline || !ctx().device->enabled().timelineSemaphore) return timeline;
    VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
    type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
    type.initialValue = lastTicket;
    VkExportSemaphoreCreateInfo exportInfo{VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO};
    exportInfo.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
    timelineExportable = ctx().device->enabled().externalSemaphoreFd && ctx().info.timelineSemaphoreExport;
    if (timelineExportable) type.pNext = &exportInfo;
    VkSemaphoreCreateInfo ci{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    ci.pNext = &type;
    VK_CHECK(vkCreateSemaphore(ctx().device->handle(), &ci, nullptr, &timeline));
    return timeline;
}

void SessionImpl::releaseFinishedWaits() {
    // An imported semaphore may be destroyed once the submission that waited on it is done.
    VkDevice dev = ctx().device->handle();
    auto done = [&](uint64_t ticket) {
        auto it = outstanding.find(ticket);
        return it == outstanding.end();
    };
    retiredWaits.erase(std::remove_if(retiredWaits.begin(), retiredWaits.end(),
                                      [&](const auto& r) {
                                          if (!done(r.second)) return false;
                                          vkDestroySemaphore(dev, r.first, nullptr);
                                          return true;
                                      }),
                       retiredWaits.end());
}

uint64_t SessionImpl::submit(rt::PreparedPlan& plan, uint32_t frame, const std::vector<const Tensor*>& inputs) {
    return submitWith(plan, frame, [&](rt::FrameSlot& slot, uint64_t ticket) {
        plan.submit(slot, inputs, ticket, pendingWaits, timelineSemaphore());
    });
}

uint64_t SessionImpl::submitWith(rt::PreparedPlan& plan, uint32_t frame,
                                 const std::function<void(rt::FrameSlot&, uint64_t ticket)>& submitSlot) {
    rt::FrameSlot& slot = plan.slot(frame);
    // Reusing the slot ends the previous ticket that ran there (its outputs get overwritten).
    if (slot.submitted) outstanding.erase(slot.ticket);
    uint64_t ticket = lastTicket + 1;
    waitImportedFences();
    submitSlot(slot, ticket);
    lastTicket = ticket;
    for (auto& w : pendingWaits)
        if (w.retires) retiredWaits.emplace_back(w.semaphore, ticket);
    pendingWaits.clear();
    outstanding[ticket] = &plan;
    framePlan[frame] = &plan;
    return ticket;
}

}  // namespace detail

Result<Session> Session::create(const Context& context, const Model& model, const SessionOptions& options) {
    return guardResult<Session>([&] {
        if (!context.impl()) fail(ErrorCode::InvalidArgument, "Session::create: the context is empty");
        if (!model.data()) fail(ErrorCode::InvalidArgument, "Session::create: the model is empty");
        context.impl()->throwIfLost("Session::create");
        // Shareable buffers are allocated per frame slot at first use; a device that cannot
        // export them is reported now rather than at export or run.
        if (options.shareableIO) {
            const auto& dev = *context.impl()->device;
            if (!dev.info().externalMemoryFd)
                fail(ErrorCode::Unsupported, "SessionOptions::shareableIO: device '{}' cannot export buffer memory as "
                                             "fds (no VK_KHR_external_memory_fd with exportable buffers)",
                     dev.info().name);
            dev.require(dev.enabled().externalMemoryFd, VK_KHR_EXTERNAL_MEMORY_FD_EXTENSION_NAME,
                        "SessionOptions::shareableIO");
        }
        Session s;
        s.impl_ = std::make_shared<detail::SessionImpl>(context, model, options);
        return s;
    });
}

Status Session::prepare(const InputShapes& shapes) {
    return detail::guardDevice(impl_->ctx(), "Session::prepare",
                       [&] {
                           impl_->planFor(unwrap(impl_->model.resolveShapes(shapes)), nullptr, {},
                                          detail::defaultedUnlessNamed(*impl_->model.data(), shapes));
                       });
}

Result<Ticket> Session::submit(const std::vector<NamedTensor>& inputs) {
    return detail::guardDeviceResult<Ticket>(impl_->ctx(), "Session::submit", [&] {
        InputShapes shapes;
        auto ordered = impl_->orderInputs(inputs, &shapes);
        const auto& decls = impl_->model.inputs();
        uint32_t frame = impl_->nextFrame;
        // An input whose memory this frame slot imported (importTensorMemory) is read in place
        // and left out: its shape is that of the plan it was imported into. Giving it anyway
        // is refused below, since its data would be silently ignored (interop.h).
        // An input with a default that is left out takes it, as a constant of the plan.
        std::vector<bool> defaulted(ordered.size());
        for (size_t i = 0; i < ordered.size(); ++i) {
            if (ordered[i]) continue;
            if (rt::PreparedPlan* shared = impl_->importedInputPlan(frame, i)) {
                const plan::CompiledPlan* cp = &shared->plan();
                shapes.emplace_back(decls[i].name, cp->graph.values[cp->graph.inputs[i].value].shape);
            } else if (const Tensor* d = impl_->model.data()->defaultOf(i)) {
                defaulted[i] = true;
                shapes.emplace_back(decls[i].name, d->shape());
            } else {
                fail(ErrorCode::InvalidArgument, "input '{}' is missing", decls[i].name);
            }
        }
        std::vector<NamedTensor> values;
        for (size_t i : impl_->valueInputIndices)
            if (ordered[i]) values.push_back({decls[i].name, *ordered[i]});
        rt::PreparedPlan& plan =
            impl_->planFor(unwrap(impl_->model.resolveShapes(shapes)), nullptr, values, defaulted);
        rt::FrameSlot& slot = plan.slot(frame);
        for (size_t i = 0; i < ordered.size(); ++i) {
            bool imported = static_cast<bool>(slot.imported[plan.plan().inputAlloc(static_cast<int>(i))]);
            if (imported && ordered[i])
                fail(ErrorCode::InvalidArgument,
                     "input '{}' of frame slot {} reads memory imported with importTensorMemory: leave it out of "
                     "run/submit (its data would be ignored) and write that memory instead",
                     decls[i].name, frame);
            if (!imported && !ordered[i] && !defaulted[i])
                fail(ErrorCode::InvalidArgument,
                     "input '{}' is missing (frame slot {} imported memory for it, but for other input shapes)",
                     decls[i].name, frame);
        }
        impl_->nextFrame = (frame + 1) % impl_->options.framesInFlight;
        uint64_t value = impl_->submit(plan, frame, ordered);
        impl_->ctx().checkValidation("submission");
        return Ticket{value, frame};
    });
}

Result<std::vector<NamedTensor>> Session::wait(const Ticket& ticket, RunStats* stats) {
    return detail::guardDeviceResult<std::vector<NamedTensor>>(impl_->ctx(), "Session::wait", [&] {
        auto it = impl_->outstanding.find(ticket.value);
        if (it == impl_->outstanding.end())
            fail(ErrorCode::InvalidArgument,
                 "ticket {} is not outstanding: it was already waited for, or its frame slot was reused by a later "
                 "submission (framesInFlight = {})",
                 ticket.value, impl_->options.framesInFlight);
        rt::PreparedPlan& plan = *it->second;
        rt::FrameSlot& slot = plan.slot(ticket.frame);
        std::vector<NamedTensor> outputs;
        try {
            outputs = plan.collect(slot, stats);
        } catch (const Error&) {  // an index out of range: the ticket is done, its outputs are not
            impl_->outstanding.erase(it);
            impl_->releaseFinishedWaits();
            throw;
        }
        impl_->outstanding.erase(it);
        impl_->releaseFinishedWaits();
        impl_->ctx().checkValidation("inference");
        return outputs;
    });
}

Result<bool> Session::isDone(const Ticket& ticket) {
    return detail::guardDeviceResult<bool>(impl_->ctx(), "Session::isDone", [&] {
        auto it = impl_->outstanding.find(ticket.value);
        if (it == impl_->outstanding.end()) return true;
        rt::FrameSlot& slot = it->second->slot(ticket.frame);
        VkResult r = vkGetFenceStatus(impl_->ctx().device->handle(), slot.fence);
        if (r != VK_SUCCESS && r != VK_NOT_READY) VK_CHECK(r);
        return r == VK_SUCCESS;
    });
}

Result<std::vector<NamedTensor>> Session::run(const std::vector<NamedTensor>& inputs, RunStats* stats) {
    auto t0 = std::chrono::steady_clock::now();
    uint64_t plansBefore = impl_->plansCompiled;
    auto ticket = submit(inputs);
    if (!ticket.ok()) return ticket.status();
    auto out = wait(*ticket, stats);
    if (out.ok() && stats) {
        stats->planned = impl_->plansCompiled != plansBefore;
        stats->wallMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    return out;
}

Status Session::stageInput(uint32_t frame, const NamedTensor& input) {
    return guardStatus([&] {
        if (frame >= impl_->options.framesInFlight)
            fail(ErrorCode::InvalidArgument, "frame {} is out of range (framesInFlight = {})", frame,
                 impl_->options.framesInFlight);
        InputShapes shapes;
        auto ordered = impl_->orderInputs({input}, &shapes);
        for (size_t i = 0; i < ordered.size(); ++i)
            if (ordered[i]) impl_->staged[frame][i] = input.tensor;
    });
}

Result<std::vector<NamedTensor>> Session::readOutputs(uint32_t frame) {
    return detail::guardDeviceResult<std::vector<NamedTensor>>(impl_->ctx(), "Session::readOutputs", [&] {
        if (frame >= impl_->options.framesInFlight || !impl_->framePlan[frame])
            fail(ErrorCode::InvalidArgument, "frame {} has not been recorded or run", frame);
        rt::PreparedPlan& plan = *impl_->framePlan[frame];
        rt::FrameSlot& slot = plan.slot(frame);
        rt::checkIndexStatus(plan.plan(), slot);
        // Only what the last recording left in the readback staging: outputs it sent to host
        // images or buffers would be stale here.
        std::vector<NamedTensor> out = plan.readStagedOutputs(slot);
        if (out.empty())
            fail(ErrorCode::InvalidArgument, "frame {}'s last recording sent every output to host images or buffers; "
                                             "there is nothing to read back",
                 frame);
        return out;
    });
}

Status Session::checkFrame(uint32_t frame) {
    return detail::guardDevice(impl_->ctx(), "Session::checkFrame", [&] {
        if (frame >= impl_->options.framesInFlight || !impl_->framePlan[frame])
            fail(ErrorCode::InvalidArgument, "frame {} has not been recorded", frame);
        rt::PreparedPlan& plan = *impl_->framePlan[frame];
        rt::checkIndexStatus(plan.plan(), plan.slot(frame));
    });
}

Result<std::string> Session::planJson(const InputShapes& shapes) {
    return detail::guardDeviceResult<std::string>(impl_->ctx(), "Session::planJson", [&] {
        InputShapes resolved = unwrap(impl_->model.resolveShapes(shapes));
        return plan::planToJson(
            impl_->planFor(resolved, nullptr, {}, detail::defaultedUnlessNamed(*impl_->model.data(), shapes)).plan());
    });
}

Result<std::string> Session::planText(const InputShapes& shapes) {
    return detail::guardDeviceResult<std::string>(impl_->ctx(), "Session::planText", [&] {
        InputShapes resolved = unwrap(impl_->model.resolveShapes(shapes));
        return plan::planToText(
            impl_->planFor(resolved, nullptr, {}, detail::defaultedUnlessNamed(*impl_->model.data(), shapes)).plan());
    });
}

const Model& Session::model() const { return impl_->model; }
const SessionOptions& Session::options() const { return impl_->options; }
const QueueInfo& Session::queue() const { return impl_->queue().info; }

}  // namespace vkinfer
