// One integration pattern running the demo's frame: render the scene, upscale it 2x with the
// model, composite, copy the frame out. Each pattern lives in its own file:
//
//   pattern_interleaved.cpp  one command buffer per frame: scene pass, recordInference,
//                            composite pass, copy out; two frames in flight
//   pattern_shared.cpp       the upscaler on its own vkinfer Context on the same GPU; the
//                            tensors live in host memory vkinfer imported (fds); semaphores
//                            shared as fds where both sides can, host waits otherwise
//   pattern_separate.cpp     CPU copies: the frame read back, Session::run on CPU tensors,
//                            the result uploaded again
//   pattern_async.cpp        asynchronous compute: the renderer's device, inference on a
//                            compute queue beside its graphics queue, timeline semaphores
//
// The frame loop (frame_loop.h) calls submit(k) for each frame and collect(k) once
// framesInFlight() newer frames were submitted, or at the end.
#pragma once

#include <vkinfer/interop.h>
#include <vkinfer/vkinfer.h>

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "composite_pass.h"
#include "scene_pass.h"
#include "timing.h"
#include "vulkan_host.h"

namespace demo {

enum class PatternKind { Interleaved, Shared, Separate, Async };

// How the async pattern's images cross between the graphics and the compute queue family.
enum class Sharing {
    Exclusive,   // VK_SHARING_MODE_EXCLUSIVE with queue family ownership transfers
    Concurrent,  // VK_SHARING_MODE_CONCURRENT over both families, no transfers
};

struct PatternConfig {
    PatternKind kind = PatternKind::Interleaved;
    uint32_t width = 0, height = 0;  // the rendered frame; the model's output is 2x
    const vkinfer::Model* model = nullptr;
    std::string modelCaption;  // "vkinfer espcn_x2": drawn under the model's panel
    vkinfer::Precision precision = vkinfer::Precision::Float32;
    bool validate = false;
    bool keepScene = false;  // return the rendered frame's pixels too (for --check)
    bool readback = true;    // copy each finished frame to host memory (false: the bench without --check)
    uint32_t sceneCost = 0;  // extra work per pixel of the scene pass (ScenePass)
    Sharing sharing = Sharing::Exclusive;
    // Patterns of several submissions per frame (shared, async) submit frame k's composite
    // after frame k+1's render, so that the renderer's queue renders the next frame while
    // this one infers; false submits each frame's work in its order (for comparison).
    bool pipelined = true;
};

// What one frame produced, once finished.
struct FrameOutput {
    std::vector<uint8_t> composite;  // RGBA8, CompositeLayout::width() x height()
    std::vector<uint8_t> scene;      // RGBA8, width x height (keepScene only)
    CompositeLayout layout;
    FrameTimes times;  // total and sync are filled by the frame loop
};

class Pattern {
public:
    static constexpr uint32_t kMaxSlots = 3;  // frames in flight, at most
    virtual ~Pattern();
    // The path the pattern took on this device (printed once).
    virtual std::string describe() const = 0;
    // Records and submits frame k (its scene is the animation at time k) into the next frame
    // slot, in turn; the slot's previous frame must have been collected (at most
    // framesInFlight() frames are in flight). Collect frames in the order they were submitted.
    // Where the pattern pipelines (PatternConfig::pipelined), this also submits the previous
    // frame's back half (its composite), and collect() submits a back half still pending.
    void submit(uint32_t frame);
    // Waits for frame k and returns its pixels and timings.
    FrameOutput collect(uint32_t frame);
    // Frames the loop keeps in flight (the slots the pattern made): 1 where submit() itself
    // waits for the GPU (host waits), since a second frame would only queue behind it and blur
    // the timings.
    virtual uint32_t framesInFlight() const { return static_cast<uint32_t>(slots_.size()); }
    // Validation messages of contexts vkinfer owns (the host's own go to its MessageLog).
    virtual std::vector<std::string> engineMessages() { return {}; }

    static const char* name(PatternKind kind);

protected:
    // `slots`: frames in flight (at most kMaxSlots); `sharedFamilies`: the queue families the
    // scene images are shared by concurrently (empty: exclusive).
    Pattern(VulkanHost& host, const PatternConfig& config, bool modelFromBuffer, uint32_t slots = 2,
            const std::vector<uint32_t>& sharedFamilies = {});

    // A frame's work up to inference (and, for one-submission patterns, all of it), and the
    // rest (hasBackHalf()): the composite and the copy out, submitted by submit() or collect().
    virtual void submitFront(uint32_t frame, uint32_t slot) = 0;
    virtual void submitBack(uint32_t /*frame*/, uint32_t /*slot*/) {}
    virtual bool hasBackHalf() const { return false; }
    // Waits for the frame in `slot` and returns its pixels and timings (output()).
    virtual FrameOutput collectSlot(uint32_t slot) = 0;

    // Per frame slot: what every pattern has.
    struct Slot {
        GpuImage scene;           // the rendered frame (sampled by the composite's bicubic)
        GpuImage composite;       // the finished frame
        GpuBuffer readback;       // its copy in host memory
        GpuBuffer sceneReadback;  // the rendered frame in host memory (keepScene, separate)
        VkCommandBuffer cmd = VK_NULL_HANDLE;
        VkFence fence = VK_NULL_HANDLE;
        VkDescriptorSet compositeSet = VK_NULL_HANDLE;
        CompositeLayout layout;
        FrameTimes times;
    };

    uint32_t slotCount() const { return static_cast<uint32_t>(slots_.size()); }
    // Resets and begins a command buffer of a slot (whose previous frame has finished).
    void begin(VkCommandBuffer cmd);
    // Copies the rendered frame (left by the scene pass in COLOR_ATTACHMENT_OPTIMAL) to the
    // slot's sceneReadback and leaves it in TRANSFER_SRC_OPTIMAL.
    void recordSceneReadback(VkCommandBuffer cmd, Slot& s);
    // The composite pass, then the copy of the frame to host memory.
    void recordCompositeAndReadback(VkCommandBuffer cmd, Slot& s, uint32_t frame);
    // One command buffer to the host queue, signalling `fence`.
    void submitOne(VkCommandBuffer cmd, VkFence fence);
    void submitAndWait(VkCommandBuffer cmd, VkFence fence);
    void waitFence(VkFence fence);
    // The slot's pixels and times after its fence; frees the slot.
    FrameOutput output(uint32_t slot);

    VulkanHost& host_;
    PatternConfig config_;
    GpuTimer timer_;
    ScenePass scenePass_;
    CompositePass compositePass_;
    std::vector<Slot> slots_;
    std::string inputName_, outputName_;

    // vkinfer on the renderer's own device (wrapHostDevice: the interleaved and async
    // patterns): a session with a frame slot per pattern slot on `queue`, prepared for the
    // frame (plan compiled, weights uploaded), after checking that the device stores the
    // RGBA8 images vkinfer's ImageOutput writes.
    void openHostSession(vkinfer::SessionQueue queue);
    std::unique_ptr<vkinfer::Context> hostContext_;
    std::unique_ptr<vkinfer::Session> hostSession_;

private:
    // Slots go in turn, submission after submission (as vkinfer's frame slots do for
    // Session::submit), so a warm-up frame keeps them in step.
    uint32_t nextSlot(uint32_t frame);
    uint32_t slotOf(uint32_t frame) const;
    bool pipelines() const { return config_.pipelined && hasBackHalf() && framesInFlight() > 1; }

    uint64_t submissions_ = 0;
    std::vector<int64_t> slotFrame_;       // the frame each slot holds, -1 for none
    int64_t pendingBack_ = -1;             // a frame whose back half is not submitted yet
};

std::unique_ptr<Pattern> makeInterleaved(VulkanHost& host, const PatternConfig& config);
std::unique_ptr<Pattern> makeShared(VulkanHost& host, const PatternConfig& config);
std::unique_ptr<Pattern> makeSeparate(VulkanHost& host, const PatternConfig& config);
std::unique_ptr<Pattern> makeAsync(VulkanHost& host, const PatternConfig& config);
// The pattern config.kind names.
std::unique_ptr<Pattern> makePattern(VulkanHost& host, const PatternConfig& config);

// Throws when the model's output for this frame size is not [1, 3, 2H, 2W] (the demo is a
// 2x upscaler), naming the shape the plan has.
void requireUpscaleOutput(vkinfer::Session& session, const std::string& input, uint32_t width, uint32_t height);
// Status to exception, naming what was being done.
void check(const vkinfer::Status& status, const std::string& what);

}  // namespace demo
