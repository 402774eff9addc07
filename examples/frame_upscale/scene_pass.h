// The scene pass: the animated procedural scene (shaders/scene.frag) rendered into an RGBA8
// image of the frame's size, as a game would render its frame.
#pragma once

#include "passes.h"

namespace demo {

class ScenePass {
public:
    ScenePass(const VulkanHost& host, uint32_t maxSets);
    // Leaves `target` in COLOR_ATTACHMENT_OPTIMAL, written at COLOR_ATTACHMENT_OUTPUT.
    void record(VkCommandBuffer cmd, const GpuImage& target, uint32_t frameIndex);

private:
    FullscreenPass pass_;
};

}  // namespace demo
