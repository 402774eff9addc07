#include "runtime/prepared_plan.h"

#include <chrono>
#include <cstring>

#include "core/host_alloc.h"
#include "vk/check.h"
#include "vk/fault_injection.h"

namespace vkinfer::rt {

using plan::AllocKind;

namespace {

constexpr VkBufferUsageFlags kStorage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
constexpr VkBufferUsageFlags kTransfer = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;

double msSince(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags srcAccess, VkPipelineStageFlags dst,
                   VkAccessFlags dstAccess) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = srcAccess;
    mb.dstAccessMask = dstAccess;
    vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

namespace {

void recordCopyToWeights(VkCommandBuffer cmd, VkBuffer from, VkBuffer to, VkDeviceSize size) {
    if (size == 0) return;
    VkBufferCopy copy{0, 0, size};
    vkCmdCopyBuffer(cmd, from, to, 1, &copy);
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_READ_BIT);
}

}  // namespace

PreparedPlan::PreparedPlan(detail::ContextImpl& ctx, plan::CompiledPlan plan, const SessionOptions& options)
    : ctx_(ctx), plan_(std::move(plan)), options_(options),
      timestamps_(options.timestamps && ctx.device->timestampValidBits() > 0),
      profile_(timestamps_ && options.profile) {
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
        const auto& w = plan_.allocations[plan::kWeightsAlloc];
        weights_ = vk::Buffer(dev, w.size, kStorage | VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::DeviceLocal, "weights",
                              vk::MemoryKind::Weights);
        VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        pi.queueFamilyIndex = dev.queueFamily();
        pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
        VK_CHECK(vkCreateCommandPool(dev.handle(), &pi, nullptr, &commandPool_));
        for (const auto& d : plan_.dispatches)
            pipelines_.push_back(ctx_.pipelines->get(d.kernel, d.bindings.size(), d.localSize, d.spec));
        slots_.resize(options_.framesInFlight);

        if (w.size > 0) {
            weightStaging_ = vk::Buffer(dev, w.size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryUse::Upload, "weight staging",
                                        vk::MemoryKind::Staging);
            auto* dst = static_cast<std::byte*>(weightStaging_.mapped());
            std::memset(dst, 0, w.size);
            for (int v : plan_.weightValues) {
                const Tensor& t = *plan_.graph.values[v].constant;
                std::memcpy(dst + plan_.location[v].offset, t.data(), t.byteSize());
            }
        }
        if (w.size == 0) {
            weightsUploaded_ = true;  // nothing to upload
        } else if (dev.hasQueue()) {  // upload now and free the staging
            VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
            ai.commandPool = commandPool_;
            ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
            ai.commandBufferCount = 1;
            VkCommandBuffer cmd;
            VK_CHECK(vkAllocateCommandBuffers(dev.handle(), &ai, &cmd));
            VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
            bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
            VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
            recordCopyToWeights(cmd, weightStaging_.handle(), weights_.handle(), w.size);
            VK_CHECK(vkEndCommandBuffer(cmd));
            submitOnce(cmd);
            weightsUploaded_ = true;
            vkFreeCommandBuffers(dev.handle(), commandPool_, 1, &cmd);
            weightStaging_ = vk::Buffer();
        } else {
            uploadMarkers_ = vk::Buffer(dev, 4 * static_cast<VkDeviceSize>(options_.framesInFlight),
                                        VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback, "weight upload markers",
                                        vk::MemoryKind::Staging);
            std::memset(uploadMarkers_.mapped(), 0, 4 * options_.framesInFlight);
        }
    } catch (...) {
        release();
        throw;
    }
}

PreparedPlan::~PreparedPlan() { release(); }

void PreparedPlan::destroySlot(FrameSlot& s) {
    VkDevice dev = ctx_.device->handle();
    if (s.queries) vkDestroyQueryPool(dev, s.queries, nullptr);
    if (s.fence) vkDestroyFence(dev, s.fence, nullptr);
    if (s.descriptorPool) vkDestroyDescriptorPool(dev, s.descriptorPool, nullptr);
    if (s.bridgePool) vkDestroyDescriptorPool(dev, s.bridgePool, nullptr);
    s.queries = VK_NULL_HANDLE;
    s.fence = VK_NULL_HANDLE;
    s.descriptorPool = s.bridgePool = VK_NULL_HANDLE;
}

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
        if (s) destroySlot(*s);
    slots_.clear();
    if (commandPool_) vkDestroyCommandPool(dev, commandPool_, nullptr);
    commandPool_ = VK_NULL_HANDLE;
}

void PreparedPlan::recordWeightUpload(VkCommandBuffer cmd, FrameSlot& s) {
    if (weightsUploaded_) return;
    const VkDeviceSize marker = 4 * static_cast<VkDeviceSize>(s.index);
    if (s.uploadRecorded) {
        // The host guarantees the slot's previous work finished: the word is final.
        const volatile uint32_t* word =
            reinterpret_cast<const volatile uint32_t*>(static_cast<const std::byte*>(uploadMarkers_.mapped()) + marker);
        if (*word != 0) {
            weightsUploaded_ = true;
            return;
        }
    }
    recordCopyToWeights(cmd, weightStaging_.handle(), weights_.handle(),
                        static_cast<VkDeviceSize>(plan_.allocations[plan::kWeightsAlloc].size));
    vkCmdFillBuffer(cmd, uploadMarkers_.handle(), marker, 4, 1);
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_HOST_READ_BIT);
    s.uploadRecorded = true;
}

void PreparedPlan::submitOnce(VkCommandBuffer cmd) {
    VkDevice dev = ctx_.device->handle();
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    VK_CHECK(vkCreateFence(dev, &fi, nullptr, &fence));
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    VkResult r = vk::injectedResult("vkQueueSubmit");
    if (r == VK_SUCCESS) {
        std::lock_guard<std::mutex> lock(ctx_.device->queueMutex());
        r = vkQueueSubmit(ctx_.device->queueFor("uploading weights"), 1, &si, fence);
    }
    if (r == VK_SUCCESS) r = vk::injectedResult("vkWaitForFences");
    if (r == VK_SUCCESS) r = vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_MAX);
    vkDestroyFence(dev, fence, nullptr);
    VK_CHECK_RESULT(r, "vkQueueSubmit/vkWaitForFences (weight upload)");
}

FrameSlot& PreparedPlan::slot(uint32_t i) {
    if (i >= slots_.size())
        fail(ErrorCode::InvalidArgument, "frame {} is out of range: the session has {} frame slot{} (framesInFlight)", i,
             slots_.size(), slots_.size() == 1 ? "" : "s");
    if (!slots_[i]) {
        auto s = std::make_unique<FrameSlot>();
        try {
            createSlotResources(*s, i);
        } catch (...) {  // e.g. the arena does not fit: leave nothing behind
            destroySlot(*s);
            throw;
        }
        slots_[i] = std::move(s);
    }
    return *slots_[i];
}

VkBuffer PreparedPlan::buffer(const FrameSlot& s, int alloc) const {
    if (alloc == plan::kWeightsAlloc) return weights_.handle();
    return ioBuffer(s, alloc).handle();
}

const vk::Buffer& PreparedPlan::ioBuffer(const FrameSlot& s, int alloc) const {
    return s.imported[alloc] ? s.imported[alloc] : s.owned[alloc];
}

void PreparedPlan::createSlotResources(FrameSlot& s, uint32_t index) {
    const vk::Device& dev = *ctx_.device;
    VkExternalMemoryHandleTypeFlags exportTypes = 0;
    if (options_.shareableIO) {
        dev.require(dev.enabled().externalMemoryFd, "VK_KHR_external_memory_fd", "SessionOptions::shareableIO");
        exportTypes = VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT;
        if (dev.enabled().dmaBuf && ctx_.info.dmaBuf) exportTypes |= VK_EXTERNAL_MEMORY_HANDLE_TYPE_DMA_BUF_BIT_EXT;
    }
    s.index = index;
    s.outputStaged.assign(plan_.graph.outputs.size(), 0);
    s.stagingHoldsInput.assign(plan_.graph.inputs.size(), 0);
    s.owned.resize(plan_.allocations.size());
    s.imported.resize(plan_.allocations.size());
    for (size_t a = 0; a < plan_.allocations.size(); ++a) {
        const auto& al = plan_.allocations[a];
        std::string what = fmt::format("{} (frame {})", al.name, index);
        switch (al.kind) {
            case AllocKind::Weights: break;
            case AllocKind::Arena:
                s.owned[a] = vk::Buffer(dev, al.size, kStorage, vk::MemoryUse::DeviceLocal, what.c_str(),
                                        vk::MemoryKind::Arena);
                break;
            case AllocKind::Input:
                s.owned[a] = vk::Buffer(dev, al.size, kStorage | kTransfer, vk::MemoryUse::DeviceLocal, what.c_str(),
                                        vk::MemoryKind::InputOutput, exportTypes);
                s.inputStaging.emplace_back(dev, al.size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT, vk::MemoryUse::Upload,
                                            ("staging of " + what).c_str(), vk::MemoryKind::Staging);
                break;
            case AllocKind::Output:
                s.owned[a] = vk::Buffer(dev, al.size, kStorage | kTransfer, vk::MemoryUse::DeviceLocal, what.c_str(),
                                        vk::MemoryKind::InputOutput, exportTypes);
                s.outputStaging.emplace_back(dev, al.size, VK_BUFFER_USAGE_TRANSFER_DST_BIT, vk::MemoryUse::Readback,
                                             ("staging of " + what).c_str(), vk::MemoryKind::Staging);
                break;
        }
    }
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VK_CHECK(vkCreateFence(dev.handle(), &fi, nullptr, &s.fence));
    if (timestamps_) {
        VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
        qi.queryCount = queryCount();
        VK_CHECK(vkCreateQueryPool(dev.handle(), &qi, nullptr, &s.queries));
    }

    uint32_t total = 0;
    for (const auto& d : plan_.dispatches) total += static_cast<uint32_t>(d.bindings.size());
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, std::max(total, 1u)};
    VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = std::max<uint32_t>(static_cast<uint32_t>(plan_.dispatches.size()), 1u);
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &size;
    VK_CHECK(vkCreateDescriptorPool(dev.handle(), &pi, nullptr, &s.descriptorPool));
    s.sets.resize(plan_.dispatches.size());
    for (size_t i = 0; i < plan_.dispatches.size(); ++i) {
        VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        ai.descriptorPool = s.descriptorPool;
        ai.descriptorSetCount = 1;
        ai.pSetLayouts = &pipelines_[i].setLayout;
        VK_CHECK(vkAllocateDescriptorSets(dev.handle(), &ai, &s.sets[i]));
    }
    writeDescriptors(s);
}

void PreparedPlan::writeDescriptors(FrameSlot& s) {
    VkDevice dev = ctx_.device->handle();
    const uint64_t align = ctx_.info.minStorageBufferOffsetAlignment;
    for (size_t i = 0; i < plan_.dispatches.size(); ++i) {
        const auto& cmd = plan_.commands[i];
        const auto& d = plan_.dispatches[i];
        std::vector<VkDescriptorBufferInfo> infos(d.bindings.size());
        std::vector<VkWriteDescriptorSet> writes(d.bindings.size());
        size_t ri = 0, wi = 0;
        for (size_t b = 0; b < d.bindings.size(); ++b) {
            const plan::Range& r = d.bindings[b].access == ops::Access::Read ? cmd.reads[ri++] : cmd.writes[wi++];
            if (align && r.begin % static_cast<int64_t>(align) != 0)
                fail(ErrorCode::Internal, "tensor '{}' is bound at offset {}, not a multiple of the device's {} bytes",
                     plan_.graph.values[r.tag].name, r.begin, align);
            VkDeviceSize bufSize =
                r.alloc == plan::kWeightsAlloc ? weights_.size() : ioBuffer(s, r.alloc).size();
            VkDeviceSize range = static_cast<VkDeviceSize>((r.end - r.begin + 3) / 4 * 4);
            if (r.begin + static_cast<int64_t>(range) > static_cast<int64_t>(bufSize)) range = bufSize - r.begin;
            if (range > ctx_.info.maxStorageBufferRange)
                fail(ErrorCode::Unsupported, "tensor '{}' needs {} bytes in one binding; device '{}' allows {}",
                     plan_.graph.values[r.tag].name, range, ctx_.info.name, ctx_.info.maxStorageBufferRange);
            infos[b] = {buffer(s, r.alloc), static_cast<VkDeviceSize>(r.begin), std::max<VkDeviceSize>(range, 4)};
            writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writes[b].dstSet = s.sets[i];
            writes[b].dstBinding = static_cast<uint32_t>(b);
            writes[b].descriptorCount = 1;
            writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes[b].pBufferInfo = &infos[b];
        }
        vkUpdateDescriptorSets(dev, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
    }
}

void PreparedPlan::refreshSlot(FrameSlot& s) {
    waitIdle(s);
    writeDescriptors(s);
    for (size_t i = 0; i < plan_.graph.inputs.size(); ++i)  // an imported input is read in place
        if (s.imported[plan_.inputAlloc(static_cast<int>(i))]) s.stagingHoldsInput[i] = 0;
    s.commandsRecorded = false;  // the copies name the buffers too
}

uint32_t PreparedPlan::queryCount() const {
    return kFirstDispatchQuery + (profile_ ? 2 * static_cast<uint32_t>(plan_.dispatches.size()) : 0);
}

void PreparedPlan::recordDispatches(VkCommandBuffer cmd, const FrameSlot& s, VkQueryPool profileQueries) const {
    for (size_t i = 0; i < plan_.dispatches.size(); ++i) {
        const auto& d = plan_.dispatches[i];
        const auto& b = plan_.barriers[i];
        if (b.present) {
            if (plan_.sync == SyncMode::Conservative || b.needsMemoryDependency()) {
                memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
            } else {  // WAR only: an execution dependency
                vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 0,
                                     nullptr, 0, nullptr, 0, nullptr);
            }
        }
        // Profiling: when the dispatch is reached (after its barrier), and when it and every
        // dispatch before it have finished their compute work.
        if (profileQueries)
            vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, profileQueries, startQuery(i));
        const vk::Pipeline& p = pipelines_[i];
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &s.sets[i], 0, nullptr);
        if (!d.push.empty())
            vkCmdPushConstants(cmd, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<uint32_t>(d.push.size()),
                               d.push.data());
        vkCmdDispatch(cmd, d.groups[0], d.groups[1], d.groups[2]);
        if (profileQueries)
            vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, profileQueries, endQuery(i));
    }
}

void PreparedPlan::recordSlotRun(FrameSlot& s) {
    VkDevice dev = ctx_.device->handle();
    if (!s.commands) {
        VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        ai.commandPool = commandPool_;
        ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        ai.commandBufferCount = 1;
        VK_CHECK(vkAllocateCommandBuffers(dev, &ai, &s.commands));
    }
    VkCommandBuffer cmd = s.commands;
    VK_CHECK(vkResetCommandBuffer(cmd, 0));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK_CHECK(vkBeginCommandBuffer(cmd, &bi));
    if (timestamps_) vkCmdResetQueryPool(cmd, s.queries, 0, queryCount());

    // This slot's previous run (or another API writing shared memory) may still be reading
    // or writing its buffers as far as this command buffer knows: order everything before
    // against everything here.
    memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                      VK_ACCESS_TRANSFER_WRITE_BIT);
    if (timestamps_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, s.queries, 0);
    for (size_t i = 0; i < plan_.graph.inputs.size(); ++i) {
        int alloc = plan_.inputAlloc(static_cast<int>(i));
        if (s.imported[alloc]) continue;  // read in place from shared memory
        VkBufferCopy copy{0, 0, static_cast<VkDeviceSize>(plan_.allocations[alloc].size)};
        if (copy.size) vkCmdCopyBuffer(cmd, s.inputStaging[i].handle(), buffer(s, alloc), 1, &copy);
    }
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                  VK_ACCESS_SHADER_READ_BIT);
    if (timestamps_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, s.queries, 1);
    recordDispatches(cmd, s, profile_ ? s.queries : VK_NULL_HANDLE);
    if (timestamps_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, s.queries, 2);
    memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  VK_ACCESS_TRANSFER_READ_BIT);
    for (size_t k = 0; k < plan_.graph.outputs.size(); ++k) {
        int alloc = plan_.outputAlloc(static_cast<int>(k));
        if (s.imported[alloc]) continue;  // written in place into the importer's memory
        VkBufferCopy copy{0, 0, static_cast<VkDeviceSize>(plan_.allocations[alloc].size)};
        if (copy.size) vkCmdCopyBuffer(cmd, buffer(s, alloc), s.outputStaging[k].handle(), 1, &copy);
    }
    if (timestamps_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, s.queries, 3);
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_HOST_READ_BIT);
    VK_CHECK(vkEndCommandBuffer(cmd));
    s.commandsRecorded = true;
}

void PreparedPlan::waitIdle(FrameSlot& s) {
    if (!s.submitted) return;
    VkResult r = vk::injectedResult("vkWaitForFences");
    if (r == VK_SUCCESS) r = vkWaitForFences(ctx_.device->handle(), 1, &s.fence, VK_TRUE, UINT64_MAX);
    VK_CHECK_RESULT(r, "vkWaitForFences (frame slot's last submission)");
}

void PreparedPlan::submit(FrameSlot& s, const std::vector<const Tensor*>& inputs, uint64_t ticket,
                          const std::vector<ExternalWait>& waits, VkSemaphore signalTimeline) {
    VkDevice dev = ctx_.device->handle();
    VkQueue queue = ctx_.device->queueFor("Session::run/submit");
    waitIdle(s);  // the slot's staging and buffers are free once its last run finished
    if (s.submitted) {
        VK_CHECK(vkResetFences(dev, 1, &s.fence));
        s.submitted = false;
    }
    if (!s.commandsRecorded) recordSlotRun(s);
    for (size_t i = 0; i < inputs.size(); ++i)
        if (inputs[i]) std::memcpy(s.inputStaging[i].mapped(), inputs[i]->data(), inputs[i]->byteSize());

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
    si.pNext = (signalTimeline || !waits.empty()) && ctx_.device->enabled().timelineSemaphore ? &timeline : nullptr;
    si.waitSemaphoreCount = static_cast<uint32_t>(waitSems.size());
    si.pWaitSemaphores = waitSems.data();
    si.pWaitDstStageMask = waitStages.data();
    si.commandBufferCount = 1;
    si.pCommandBuffers = &s.commands;
    si.signalSemaphoreCount = signalTimeline ? 1 : 0;
    si.pSignalSemaphores = &signalTimeline;
    {
        VkResult r = vk::injectedResult("vkQueueSubmit");
        std::lock_guard<std::mutex> lock(ctx_.device->queueMutex());
        if (r == VK_SUCCESS) r = vkQueueSubmit(queue, 1, &si, s.fence);
        VK_CHECK_RESULT(r, "vkQueueSubmit (inference)");
    }
    s.submitted = true;
    s.ticket = ticket;
    for (size_t k = 0; k < plan_.graph.outputs.size(); ++k)
        s.outputStaged[k] = !s.imported[plan_.outputAlloc(static_cast<int>(k))];
}

std::vector<NamedTensor> PreparedPlan::readStagedOutputs(const FrameSlot& s) const {
    std::vector<NamedTensor> outputs;
    for (size_t k = 0; k < plan_.graph.outputs.size(); ++k) {
        if (!s.outputStaged[k]) continue;  // sent to a host image/buffer, or imported memory
        const auto& v = plan_.graph.values[plan_.graph.outputs[k]];
        Tensor t = allocateTensor(v.dtype, v.shape, fmt::format("output '{}'", plan_.outputNames[k]));
        std::memcpy(t.data(), s.outputStaging[k].mapped(), t.byteSize());
        outputs.push_back({plan_.outputNames[k], std::move(t)});
    }
    return outputs;
}

std::vector<NamedTensor> PreparedPlan::collect(FrameSlot& s, RunStats* stats) {
    waitIdle(s);
    auto t0 = std::chrono::steady_clock::now();
    auto outputs = readStagedOutputs(s);
    if (!stats) return outputs;
    stats->downloadMs = msSince(t0);
    stats->gpuMs = stats->transferGpuMs = -1;
    stats->dispatchMs.clear();
    stats->dispatchStartMs.clear();
    stats->dispatchEndMs.clear();
    // Every run reads its timestamps: no allocation unless profiling.
    uint64_t fixed[kFirstDispatchQuery] = {};
    std::vector<uint64_t> perDispatch(profile_ ? queryCount() : 0);
    uint64_t* ts = profile_ ? perDispatch.data() : fixed;
    if (timestamps_ && vkGetQueryPoolResults(ctx_.device->handle(), s.queries, 0, queryCount(),
                                             queryCount() * sizeof(uint64_t), ts, sizeof(uint64_t),
                                             VK_QUERY_RESULT_64_BIT) == VK_SUCCESS) {
        uint32_t bits = ctx_.device->timestampValidBits();
        uint64_t mask = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
        auto ms = [&](size_t a, size_t b) {
            return static_cast<double>((ts[b] - ts[a]) & mask) * ctx_.info.timestampPeriodNs * 1e-6;
        };
        stats->gpuMs = ms(1, 2);
        stats->transferGpuMs = ms(0, 1) + ms(2, 3);
        if (profile_) {
            for (size_t i = 0; i < plan_.dispatches.size(); ++i) {
                stats->dispatchMs.push_back(ms(i == 0 ? 1 : endQuery(i - 1), endQuery(i)));
                stats->dispatchStartMs.push_back(ms(1, startQuery(i)));
                stats->dispatchEndMs.push_back(ms(1, endQuery(i)));
            }
        }
    }
    return outputs;
}

}  // namespace vkinfer::rt
