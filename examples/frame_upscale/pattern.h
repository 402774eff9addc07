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
//
// The frame loop (main.cpp) calls submit(k) for each frame and collect(k) once
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

enum class PatternKind { Interleaved, Shared, Separate };

struct PatternConfig {
    PatternKind kind = PatternKind::Interleaved;
    uint32_t width = 0, height = 0;  // the rendered frame; the model's output is 2x
    const vkinfer::Model* model = nullptr;
    std::string modelCaption;  // "vkinfer espcn_x2": drawn under the model's panel
    bool validate = false;
    bool keepScene = false;  // return the rendered frame's pixels too (for --check)
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
    static constexpr uint32_t kSlots = 2;  // frames in flight
    virtual ~Pattern();
    // The path the pattern took on this device (printed once).
    virtual std::string describe() const = 0;
    // Records and submits frame k (its scene is the animation at time k) into the next frame
    // slot, in turn; the slot's previous frame must have been collected (at most kSlots
    // frames are in flight). Collect frames in the order they were submitted.
    virtual void submit(uint32_t frame) = 0;
    // Waits for frame k and returns its pixels and timings.
    virtual FrameOutput collect(uint32_t frame) = 0;
    // Frames the loop keeps in flight (at most kSlots): 1 where submit() itself waits for the
    // GPU (host waits), since a second frame would only queue behind it and blur the timings.
    virtual uint32_t framesInFlight() const { return kSlots; }
    // Validation messages of contexts vkinfer owns (the host's own go to its MessageLog).
    virtual std::vector<std::string> engineMessages() { return {}; }

    static const char* name(PatternKind kind);

protected:
    Pattern(VulkanHost& host, const PatternConfig& config, bool modelFromBuffer);

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

    // Slots go in turn, submission after submission (as vkinfer's frame slots do for
    // Session::submit), so a warm-up frame keeps both in step.
    uint32_t nextSlot(uint32_t frame);
    uint32_t slotOf(uint32_t frame) const;
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
    std::array<Slot, kSlots> slots_;
    std::string inputName_, outputName_;

private:
    uint64_t submissions_ = 0;
    std::array<int64_t, kSlots> slotFrame_{};  // the frame each slot holds, -1 for none
};

std::unique_ptr<Pattern> makeInterleaved(VulkanHost& host, const PatternConfig& config);
std::unique_ptr<Pattern> makeShared(VulkanHost& host, const PatternConfig& config);
std::unique_ptr<Pattern> makeSeparate(VulkanHost& host, const PatternConfig& config);

// Throws when the model's output for this frame size is not [1, 3, 2H, 2W] (the demo is a
// 2x upscaler), naming the shape the plan has.
void requireUpscaleOutput(vkinfer::Session& session, const std::string& input, uint32_t width, uint32_t height);
// Status to exception, naming what was being done.
void check(const vkinfer::Status& status, const std::string& what);

}  // namespace demo
