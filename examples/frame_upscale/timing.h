// Where a frame's time goes, and how it is measured.
//
//   render      the host's GPU work: the scene pass, the composite pass and the copy of the
//               finished frame to host memory (what presenting would be)
//   transfer    moving the frame between the renderer's image and the model's tensors:
//               vkinfer's pre- and post-processing kernels (interleaved), the host's
//               conversion pass into the shared memory (shared), GPU copies plus the CPU
//               conversions and staging copies (separate)
//   inference   the model's dispatches: vkinfer's timestamps in the host's command buffer
//               (RecordIO::timestampPool, interleaved) or RunStats::gpuMs (shared, separate)
//   sync        the rest of the frame: recording, submissions and waits that no GPU work
//               covers (a host waiting on a fence it could have overlapped, ...): the
//               handoff between renderer and inference. Where the render runs beside the
//               inference (the async pattern: `overlapped`), it is the frame's period beyond
//               the longer of the two, max(render, transfer + inference)
//   total       the frame's period: from the previous frame's completion to this one's, not
//               counting the time spent writing PNGs and checking frames in between
//   cpu         the host's time in Pattern::submit for the frame: recording and submitting (and,
//               where the pattern waits on the host, those waits); with frames in flight the
//               GPU hides it unless it exceeds the frame
//
// GPU parts come from timestamp queries (per frame slot); where the queue has none, they are
// reported as unknown and the whole frame counts as sync.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "vulkan_host.h"

namespace demo {

struct FrameTimes {
    double renderMs = 0, transferMs = 0, inferenceMs = 0, syncMs = 0, totalMs = 0, cpuMs = 0;
    bool known = true;        // the GPU parts were measured
    bool overlapped = false;  // render and transfer + inference run on two queues side by side
};

// Timestamp queries: `perSlot` per frame slot, reset at the start of each slot's frame.
class GpuTimer {
public:
    static constexpr uint32_t kPerSlot = 8;
    GpuTimer(const VulkanHost& host, uint32_t slots);
    ~GpuTimer();
    GpuTimer(const GpuTimer&) = delete;
    GpuTimer& operator=(const GpuTimer&) = delete;

    bool available() const { return pool_ != VK_NULL_HANDLE; }
    VkQueryPool pool() const { return pool_; }
    uint32_t first(uint32_t slot) const { return slot * kPerSlot; }
    void reset(VkCommandBuffer cmd, uint32_t slot) const;
    void stamp(VkCommandBuffer cmd, uint32_t slot, uint32_t index, VkPipelineStageFlagBits stage) const;
    // Milliseconds from timestamp a to b of the slot (both written by finished work on the
    // same queue: the graphics queue, or the compute queue with `computeQueue`).
    double ms(uint32_t slot, uint32_t a, uint32_t b, bool computeQueue = false) const;

private:
    uint64_t read(uint32_t query) const;
    const VulkanHost& host_;
    VkQueryPool pool_ = VK_NULL_HANDLE;
};

// Fills in sync from the total and the measured parts (never below 0).
void settleSync(FrameTimes& t);
std::string formatTimes(const FrameTimes& t);
// Median of each column over the frames.
FrameTimes medianTimes(const std::vector<FrameTimes>& frames);

}  // namespace demo
