#include "composite_pass.h"

#include <algorithm>
#include <cstring>

namespace demo {

namespace {
const uint32_t kCompositeImageFrag[] =
#include "composite_image.frag.inc"
    ;
const uint32_t kCompositeBufferFrag[] =
#include "composite_buffer.frag.inc"
    ;

// Matches `Params` in shaders/composite.frag.
struct CompositePush {
    uint32_t geometry[4];
    int32_t origin01[4];
    int32_t origin2[4];
    uint32_t text[16];
};
static_assert(sizeof(CompositePush) == 112, "push constants of composite.frag");
static_assert(3 * CompositeLayout::kCaptionChars <= 4 * 16, "captions fit in CompositePush::text");

int boxWidth(const std::string& text, uint32_t scale) {
    return text.empty() ? 0 : static_cast<int>((6 * text.size() + 1) * scale);
}
}  // namespace

CompositeLayout CompositeLayout::make(uint32_t sceneWidth, uint32_t sceneHeight, const std::string& modelCaption,
                                      const std::string& frameTag) {
    CompositeLayout l;
    l.sceneWidth = sceneWidth;
    l.sceneHeight = sceneHeight;
    l.gap = std::max(2u, sceneWidth / 60);
    l.scale = std::max(1u, 2 * sceneHeight / 180);  // 6 at 1080 pixels: 54-pixel caption boxes
    const int margin = static_cast<int>(2 * l.scale);
    const int bottom = static_cast<int>(l.height()) - margin - static_cast<int>(9 * l.scale);
    const std::string texts[3] = {modelCaption, "bicubic x2", frameTag};
    const int xs[3] = {margin, static_cast<int>(l.bicubicX()) + margin, margin};
    const int ys[3] = {bottom, bottom, margin};
    for (int i = 0; i < 3; ++i) {
        std::string t = texts[i].substr(0, kCaptionChars);
        // Only captions that fit in their panel, clear of each other (tiny frames have no room).
        const int panelEnd = static_cast<int>((i == 1 ? l.bicubicX() : 0) + l.panelWidth());
        bool fits =
            xs[i] + boxWidth(t, l.scale) + margin <= panelEnd && bottom > margin + static_cast<int>(9 * l.scale);
        l.captions[i] = fits ? t : std::string();
        l.origins[i] = {xs[i], ys[i]};
    }
    return l;
}

Rect CompositeLayout::box(int i) const {
    if (captions[i].empty()) return {};
    return {origins[i][0], origins[i][1], boxWidth(captions[i], scale), static_cast<int>(9 * scale)};
}

CompositePass::CompositePass(const VulkanHost& host, bool modelFromBuffer, uint32_t maxSets)
    : modelFromBuffer_(modelFromBuffer),
      pass_(host, modelFromBuffer ? kCompositeBufferFrag : kCompositeImageFrag,
            modelFromBuffer ? sizeof(kCompositeBufferFrag) : sizeof(kCompositeImageFrag),
            {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
             modelFromBuffer ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER},
            sizeof(CompositePush), maxSets) {}

VkDescriptorSet CompositePass::createSet(VkImageView scene, VkImageView modelImage, VkBuffer modelBuffer) {
    PassBinding model = modelFromBuffer_
                            ? PassBinding{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, VK_NULL_HANDLE, modelBuffer}
                            : PassBinding{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, modelImage, VK_NULL_HANDLE};
    return pass_.createSet({{VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, scene, VK_NULL_HANDLE}, model});
}

void CompositePass::record(VkCommandBuffer cmd, const GpuImage& target, const CompositeLayout& layout,
                           VkDescriptorSet set) {
    CompositePush push{};
    push.geometry[0] = layout.sceneWidth;
    push.geometry[1] = layout.sceneHeight;
    push.geometry[2] = layout.gap;
    push.geometry[3] = layout.scale;
    push.origin01[0] = layout.origins[0][0];
    push.origin01[1] = layout.origins[0][1];
    push.origin01[2] = layout.origins[1][0];
    push.origin01[3] = layout.origins[1][1];
    push.origin2[0] = layout.origins[2][0];
    push.origin2[1] = layout.origins[2][1];
    uint8_t chars[64] = {};
    for (int c = 0; c < 3; ++c)
        std::memcpy(chars + c * CompositeLayout::kCaptionChars, layout.captions[c].data(), layout.captions[c].size());
    std::memcpy(push.text, chars, sizeof(chars));  // little-endian: char i is byte i % 4 of uint i / 4
    pass_.record(cmd, target, &push, set);
}

}  // namespace demo
