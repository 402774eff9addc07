// The scene pass: the animated procedural scene (shaders/scene.frag) rendered into an RGBA8
// image of the frame's size, as a game would render its frame. `cost` adds that many rounds
// of shading work per pixel (--scene-cost), to make the render as heavy as a test needs; it
// changes no pixel by more than rounding.
#pragma once

#include "passes.h"

namespace demo {

class ScenePass {
public:
    ScenePass(const VulkanHost& host, uint32_t maxSets, uint32_t cost = 0);
    // Leaves `target` in COLOR_ATTACHMENT_OPTIMAL, written at COLOR_ATTACHMENT_OUTPUT.
    void record(VkCommandBuffer cmd, const GpuImage& target, uint32_t frameIndex);

private:
    FullscreenPass pass_;
    uint32_t cost_;
};

}  // namespace demo
