// The composite pass: the model's 2x upscale beside a bicubic 2x upscale of the same frame,
// with captions (shaders/composite.frag). CompositeLayout is the geometry both the shader
// and the frame check (frame_check.h) use: panel sizes, the gap, and the caption boxes.
#pragma once

#include <array>
#include <string>

#include "passes.h"

namespace demo {

struct Rect {
    int x = 0, y = 0, width = 0, height = 0;
    bool contains(int px, int py) const { return px >= x && py >= y && px < x + width && py < y + height; }
};

struct CompositeLayout {
    static constexpr int kCaptionChars = 21;  // the shader's limit per caption
    uint32_t sceneWidth = 0, sceneHeight = 0;
    uint32_t gap = 0;    // pixels between the two panels
    uint32_t scale = 1;  // pixels per font dot
    // 0: under the model's panel, 1: under the bicubic panel, 2: the frame's tag (top left).
    // Captions that would not fit in their panel are left empty.
    std::array<std::string, 3> captions;
    std::array<std::array<int, 2>, 3> origins{};

    static CompositeLayout make(uint32_t sceneWidth, uint32_t sceneHeight, const std::string& modelCaption,
                                const std::string& frameTag);
    uint32_t width() const { return 4 * sceneWidth + gap; }
    uint32_t height() const { return 2 * sceneHeight; }
    uint32_t panelWidth() const { return 2 * sceneWidth; }
    uint32_t bicubicX() const { return panelWidth() + gap; }
    // The opaque box of caption i (empty when the caption is).
    Rect box(int i) const;
};

class CompositePass {
public:
    // `modelFromBuffer`: the model's output is read from a float tensor [1, 3, 2H, 2W] in a
    // storage buffer; else from an RGBA8 image sampled in SHADER_READ_ONLY_OPTIMAL.
    CompositePass(const VulkanHost& host, bool modelFromBuffer, uint32_t maxSets);
    VkDescriptorSet createSet(VkImageView scene, VkImageView modelImage, VkBuffer modelBuffer);
    // Leaves `target` in COLOR_ATTACHMENT_OPTIMAL, written at COLOR_ATTACHMENT_OUTPUT.
    void record(VkCommandBuffer cmd, const GpuImage& target, const CompositeLayout& layout, VkDescriptorSet set);

private:
    bool modelFromBuffer_;
    FullscreenPass pass_;
};

}  // namespace demo
