#include "interop/queue_transfer.h"

#include <type_traits>

#include "core/error.h"
#include "interop/barriers.h"
#include "runtime/session_impl.h"

namespace vkinfer::interop {

namespace {

// A family this device's host records on (not another device's or API's).
bool hostQueueFamily(uint32_t family) {
    return family != VK_QUEUE_FAMILY_EXTERNAL && family != VK_QUEUE_FAMILY_FOREIGN_EXT;
}

// One half of a transfer: the release's scopes end at the bottom of its pipe, the acquire's
// start at the top of its (the semaphore between the queues orders the two).
void record(VkCommandBuffer cmd, const OwnershipTransfer& t, bool release) {
    constexpr VkPipelineStageFlags kTop = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
    constexpr VkPipelineStageFlags kBottom = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
    VkPipelineStageFlags src = release ? t.releaseStages : kTop;
    VkPipelineStageFlags dst = release ? kBottom : t.acquireStages;
    VkAccessFlags srcAccess = release ? t.releaseAccess : 0;
    VkAccessFlags dstAccess = release ? 0 : t.acquireAccess;
    if (t.image)
        recordImageBarrier(cmd, t.image, t.oldLayout, t.newLayout, src, srcAccess, dst, dstAccess, t.srcFamily,
                           t.dstFamily);
    else
        recordBufferBarrier(cmd, t.buffer, t.offset, VK_WHOLE_SIZE, src, srcAccess, dst, dstAccess, t.srcFamily,
                            t.dstFamily);
}

template <class Resource>
const OwnershipTransfer* findIn(const std::vector<OwnershipTransfer>& list, Resource r) {
    for (const auto& t : list)
        if constexpr (std::is_same_v<Resource, VkImage>) {
            if (t.image == r) return &t;
        } else {
            if (t.buffer == r) return &t;
        }
    return nullptr;
}

}  // namespace

const OwnershipTransfer* OwnershipTransfers::find(const std::vector<OwnershipTransfer>& list, VkImage image) {
    return findIn(list, image);
}
const OwnershipTransfer* OwnershipTransfers::find(const std::vector<OwnershipTransfer>& list, VkBuffer buffer) {
    return findIn(list, buffer);
}

bool onOtherFamily(uint32_t stateFamily, uint32_t family) {
    return stateFamily != VK_QUEUE_FAMILY_IGNORED && stateFamily != family;
}

ImageUse inputUse(ImageAccess access) {
    return {access == ImageAccess::Sampled ? VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL : VK_IMAGE_LAYOUT_GENERAL,
            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT};
}

ImageUse outputUse() {
    return {VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT};
}

OwnershipTransfers ownershipTransfers(const RecordIO& io, uint32_t family) {
    OwnershipTransfers t;
    // Before: the host's last use (its stages and access) releases; vkinfer's first use acquires.
    auto acquire = [&](OwnershipTransfer x, uint32_t from, VkPipelineStageFlags stages, VkAccessFlags access,
                       VkPipelineStageFlags firstUse, VkAccessFlags firstAccess) {
        x.srcFamily = from;
        x.dstFamily = family;
        x.releaseStages = stagesOr(stages, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
        x.releaseAccess = access;
        x.acquireStages = firstUse;
        x.acquireAccess = firstAccess;
        t.toSession.push_back(x);
    };
    // After: vkinfer's last use releases; the host's next use (its stages and access) acquires.
    auto release = [&](OwnershipTransfer x, uint32_t to, VkPipelineStageFlags lastUse, VkAccessFlags lastAccess,
                       VkPipelineStageFlags stages, VkAccessFlags access) {
        x.srcFamily = family;
        x.dstFamily = to;
        x.releaseStages = lastUse;
        x.releaseAccess = lastAccess;
        x.acquireStages = stagesOr(stages, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT);
        x.acquireAccess = access;
        t.fromSession.push_back(x);
    };
    constexpr VkPipelineStageFlags kTransfer = VK_PIPELINE_STAGE_TRANSFER_BIT;
    // Images: an "after" layout of UNDEFINED leaves the image in the layout vkinfer used.
    auto images = [&](VkImage image, const ImageState& before, const ImageState& after, ImageUse use,
                      bool keepsContents) {
        OwnershipTransfer x;
        x.image = image;
        if (onOtherFamily(before.queueFamily, family) && keepsContents) {
            x.oldLayout = before.layout;
            x.newLayout = use.layout;
            acquire(x, before.queueFamily, before.stages, before.access, use.stages, use.access);
        }
        if (onOtherFamily(after.queueFamily, family)) {
            x.oldLayout = use.layout;
            x.newLayout = after.layout == VK_IMAGE_LAYOUT_UNDEFINED ? use.layout : after.layout;
            release(x, after.queueFamily, use.stages, use.access & VK_ACCESS_SHADER_WRITE_BIT, after.stages,
                    after.access);
        }
    };
    for (const auto& [name, in] : io.imageInputs) images(in.image.image, in.before, in.after, inputUse(in.access), true);
    // An output whose "before" is UNDEFINED has its contents discarded: nothing to acquire.
    for (const auto& [name, out] : io.imageOutputs)
        images(out.image.image, out.before, out.after, outputUse(), out.before.layout != VK_IMAGE_LAYOUT_UNDEFINED);
    auto buffers = [&](const auto& list, VkAccessFlags copyAccess) {
        for (const auto& [name, b] : list) {
            OwnershipTransfer x;
            x.buffer = b.buffer;
            x.offset = b.offset;
            if (onOtherFamily(b.before.queueFamily, family))
                acquire(x, b.before.queueFamily, b.before.stages, b.before.access, kTransfer, copyAccess);
            if (onOtherFamily(b.after.queueFamily, family))
                release(x, b.after.queueFamily, kTransfer, copyAccess & VK_ACCESS_TRANSFER_WRITE_BIT, b.after.stages,
                        b.after.access);
        }
    };
    buffers(io.bufferInputs, VK_ACCESS_TRANSFER_READ_BIT);
    buffers(io.bufferOutputs, VK_ACCESS_TRANSFER_WRITE_BIT);
    return t;
}

RecordIO onSessionQueue(RecordIO io, uint32_t family) {
    constexpr VkPipelineStageFlags kTop = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
    constexpr VkPipelineStageFlags kBottom = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
    auto image = [&](ImageState& before, ImageState& after, ImageUse use) {
        if (onOtherFamily(before.queueFamily, family))
            before = before.layout == VK_IMAGE_LAYOUT_UNDEFINED ? ImageState{VK_IMAGE_LAYOUT_UNDEFINED, kTop, 0}
                                                                : ImageState{use.layout, use.stages, use.access};
        if (onOtherFamily(after.queueFamily, family)) after = {use.layout, kBottom, 0};
    };
    for (auto& [name, in] : io.imageInputs) image(in.before, in.after, inputUse(in.access));
    for (auto& [name, out] : io.imageOutputs) image(out.before, out.after, outputUse());
    auto buffer = [&](BufferState& before, BufferState& after, VkAccessFlags copyAccess) {
        if (onOtherFamily(before.queueFamily, family)) before = {VK_PIPELINE_STAGE_TRANSFER_BIT, copyAccess};
        if (onOtherFamily(after.queueFamily, family)) after = {kBottom, 0};
    };
    for (auto& [name, b] : io.bufferInputs) buffer(b.before, b.after, VK_ACCESS_TRANSFER_READ_BIT);
    for (auto& [name, b] : io.bufferOutputs) buffer(b.before, b.after, VK_ACCESS_TRANSFER_WRITE_BIT);
    return io;
}

void recordRelease(VkCommandBuffer cmd, const OwnershipTransfer& t) { record(cmd, t, true); }
void recordAcquire(VkCommandBuffer cmd, const OwnershipTransfer& t) { record(cmd, t, false); }

}  // namespace vkinfer::interop

namespace vkinfer {

namespace {

// The host's halves: only transfers with a queue family of this device on the host's side.
Status recordHostHalves(const Session& session, VkCommandBuffer cmd, const RecordIO& io, bool release) {
    return guardStatus([&] {
        if (!session.impl()) fail(ErrorCode::InvalidArgument, "the session is empty");
        if (!cmd) fail(ErrorCode::InvalidArgument, "the command buffer is null");
        const interop::OwnershipTransfers all = interop::ownershipTransfers(io, session.impl()->queue().family);
        for (const auto& t : release ? all.toSession : all.fromSession) {
            uint32_t hostFamily = release ? t.srcFamily : t.dstFamily;
            if (!interop::hostQueueFamily(hostFamily)) continue;  // another device or API does its half
            release ? interop::recordRelease(cmd, t) : interop::recordAcquire(cmd, t);
        }
    });
}

}  // namespace

Status recordReleaseToSession(const Session& session, VkCommandBuffer commandBuffer, const RecordIO& io) {
    return recordHostHalves(session, commandBuffer, io, true);
}

Status recordAcquireFromSession(const Session& session, VkCommandBuffer commandBuffer, const RecordIO& io) {
    return recordHostHalves(session, commandBuffer, io, false);
}

std::vector<QueueFamilyInfo> describeQueueFamilies(VkPhysicalDevice physicalDevice) {
    return physicalDevice ? vk::readQueueFamilies(physicalDevice) : std::vector<QueueFamilyInfo>{};
}

}  // namespace vkinfer
