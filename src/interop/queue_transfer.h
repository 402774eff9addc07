// Queue family ownership transfers at recordInference's boundaries (asynchronous compute:
// the host renders on its graphics family, the session runs on a compute family). A transfer
// has two halves, a release on the family that gives the resource up and an acquire on the one
// that takes it, which must name the same resource, families and layouts: both halves are
// derived here from the RecordIO, vkinfer's (in recordInference) and the host's
// (recordReleaseToSession / recordAcquireFromSession), so they cannot disagree. vkinfer records
// its acquires first and its releases last; in between it sees the resources as
// onSessionQueue rewrites the states.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <vector>

#include "vkinfer/interop.h"

namespace vkinfer::interop {

struct OwnershipTransfer {
    VkImage image = VK_NULL_HANDLE;    // an image (color, mip 0, layer 0) ...
    VkBuffer buffer = VK_NULL_HANDLE;  // ... or a buffer from `offset` to its end
    VkDeviceSize offset = 0;
    uint32_t srcFamily = VK_QUEUE_FAMILY_IGNORED;
    uint32_t dstFamily = VK_QUEUE_FAMILY_IGNORED;
    VkImageLayout oldLayout = VK_IMAGE_LAYOUT_UNDEFINED;  // images: the same in both halves
    VkImageLayout newLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    // The releasing queue's last use and the acquiring queue's first use.
    VkPipelineStageFlags releaseStages = VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT;
    VkAccessFlags releaseAccess = 0;
    VkPipelineStageFlags acquireStages = VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT;
    VkAccessFlags acquireAccess = 0;
};

struct OwnershipTransfers {
    std::vector<OwnershipTransfer> toSession;    // before inference: the host releases, vkinfer acquires
    std::vector<OwnershipTransfer> fromSession;  // after it: vkinfer releases, the host acquires
    // The one for `image` (or `buffer`) in `list`, or null.
    static const OwnershipTransfer* find(const std::vector<OwnershipTransfer>& list, VkImage image);
    static const OwnershipTransfer* find(const std::vector<OwnershipTransfer>& list, VkBuffer buffer);
};

// A state on another queue family than the session's `family` (not IGNORED, not `family`).
bool onOtherFamily(uint32_t stateFamily, uint32_t family);

// vkinfer's own use of an image at a boundary: its first after an acquire, its last before a
// release (the pre-processing kernel's read of an input, the post-processing kernel's write of
// an output). recordInference records its layout transitions to and from these.
struct ImageUse {
    VkImageLayout layout;
    VkPipelineStageFlags stages;
    VkAccessFlags access;
};
ImageUse inputUse(ImageAccess access);
ImageUse outputUse();

// The transfers `io` needs on a session running on queue family `family`.
OwnershipTransfers ownershipTransfers(const RecordIO& io, uint32_t family);

// `io` as that session's queue sees it, for recordInference's own barriers: a "before" on
// another family becomes the state its acquire leaves (vkinfer's use: layout, stage, access),
// or, for an output whose contents are discarded, the top of the pipe; an "after" on another
// family becomes vkinfer's use ending at the bottom of the pipe, which its release (recorded
// last) then takes to the host's state. No state names another family afterwards.
RecordIO onSessionQueue(RecordIO io, uint32_t family);

void recordRelease(VkCommandBuffer cmd, const OwnershipTransfer& t);
void recordAcquire(VkCommandBuffer cmd, const OwnershipTransfer& t);

}  // namespace vkinfer::interop
