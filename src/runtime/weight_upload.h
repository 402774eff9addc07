// A plan's weights: the device-local buffer every dispatch binds for plan::kWeightsAlloc and
// how its contents get there. They reach the GPU once: submitted and waited on the engine's
// queue; or, on a host device without a queue, recorded into the host's command buffers
// until one of them is known to have run (docs/ARCHITECTURE.md, "Weight upload on a device
// without a queue"). Kept apart from the frame slots because it is the one thing they share.
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>

#include "plan/compile.h"
#include "runtime/frame_slot.h"
#include "vk/device.h"

namespace vkinfer::rt {

class PlanWeights {
public:
    // The device buffer, created even when empty so that allocation failures are reported in
    // the order the plan's resources are made.
    void allocate(const vk::Device& dev, VkDeviceSize size);
    // Fills the staging from the plan's constants, then uploads it now on `queue` where the
    // host gave its handle (or vkinfer owns the device), and frees it; or prepares one marker
    // word per frame slot where it did not. `pool` (of the queue's family) lends the one-off
    // command buffer.
    void upload(const vk::Device& dev, const vk::DeviceQueue& queue, const plan::CompiledPlan& plan, VkCommandPool pool,
                uint32_t frameSlots);

    // Queueless host devices: records the upload into `cmd` unless a recording is known to
    // have run. Each recorded upload ends by writing the marker word of its slot; when the
    // slot is recorded again (the host guarantees its previous work finished), a set marker
    // proves the upload ran, and a clear one that the host discarded or never submitted that
    // recording, so this one carries the upload again. Copies in several slots are identical
    // and ordered by the barrier that opens each recording.
    void recordUpload(VkCommandBuffer cmd, FrameSlot& s);

    const vk::Buffer& buffer() const { return buffer_; }

private:
    void submitOnce(const vk::Device& device, const vk::DeviceQueue& queue, VkCommandBuffer cmd);

    VkDeviceSize size_ = 0;
    vk::Buffer buffer_;
    vk::Buffer staging_;   // kept until recorded uploads are surely done (plan destruction)
    bool uploaded_ = false;  // by the engine's own queue, or a recording known to have run
    vk::Buffer markers_;   // one word per frame slot, host-visible (queueless host devices)
};

}  // namespace vkinfer::rt
