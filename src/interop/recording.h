// The two halves of a recording of inference with the host's images and buffers (RecordIO):
// which plan and frame slot it uses, and what it records. recordInference records into the
// host's command buffer; submitInference into the slot's own and submits it on the session's
// queue. The caller makes sure the slot is idle in between.
#pragma once

#include <vulkan/vulkan.h>

#include "runtime/frame_slot.h"
#include "runtime/prepared_plan.h"
#include "runtime/session_impl.h"
#include "vkinfer/interop.h"

namespace vkinfer::interop {

struct RecordingTarget {
    rt::PreparedPlan& plan;
    rt::FrameSlot& slot;
};

// The plan (compiled on first use) and frame slot io.frame for the shapes the recording
// implies: image sizes, then io.shapes, then staged tensors, then the declarations. `who`
// names the API call in errors.
RecordingTarget resolveRecording(detail::SessionImpl& s, const RecordIO& io, const char* who);

// Records pre-processing, the plan's dispatches and post-processing for `io` into `cmd`
// (recording state, outside a render pass, for the session's queue family), with the host's
// barriers and ownership transfers. Everything is checked before anything is recorded.
struct RecordingStamps {
    // Four timestamps at `firstPhase`..: before pre-processing, before inference, after
    // inference, after post-processing (RecordIO::timestampPool; rt::TimestampLayout 0..3).
    VkQueryPool phases = VK_NULL_HANDLE;
    uint32_t firstPhase = 0;
    // A pool (reset) for a timestamp pair per dispatch (rt::TimestampLayout), or null.
    VkQueryPool perDispatch = VK_NULL_HANDLE;
};
void recordInto(detail::SessionImpl& s, rt::PreparedPlan& plan, rt::FrameSlot& slot, VkCommandBuffer cmd,
                const RecordIO& io, const RecordingStamps& stamps);

}  // namespace vkinfer::interop
