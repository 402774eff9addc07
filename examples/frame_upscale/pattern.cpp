#include "pattern.h"

#include <cstring>
#include <nlohmann/json.hpp>

#include "vk_util.h"

namespace demo {

const char* Pattern::name(PatternKind kind) {
    switch (kind) {
        case PatternKind::Interleaved: return "interleaved";
        case PatternKind::Shared: return "shared";
        case PatternKind::Separate: return "separate";
        case PatternKind::Async: return "async";
    }
    return "?";
}

void check(const vkinfer::Status& status, const std::string& what) {
    if (!status.ok()) throw DemoError(what + ": " + status.toString());
}

void requireUpscaleOutput(vkinfer::Session& session, const std::string& input, uint32_t width, uint32_t height) {
    const std::vector<int64_t> in{1, 3, height, width}, want{1, 3, 2 * int64_t(height), 2 * int64_t(width)};
    auto plan = session.planJson({{input, in}});
    check(plan.status(), "planning the model for a " + std::to_string(width) + "x" + std::to_string(height) + " frame");
    auto outputs = nlohmann::json::parse(*plan).at("outputs");
    if (outputs.size() != 1)
        throw DemoError("the model must have one output (it has " + std::to_string(outputs.size()) + ")");
    std::vector<int64_t> got = outputs.begin().value().get<std::vector<int64_t>>();
    if (got != want) {
        std::string shape;
        for (int64_t d : got) shape += (shape.empty() ? "" : "x") + std::to_string(d);
        throw DemoError("the model's output '" + outputs.begin().key() + "' is " + shape + " for a 1x3x" +
                        std::to_string(height) + "x" + std::to_string(width) +
                        " input; the demo needs a 2x upscaler (1x3x" + std::to_string(2 * height) + "x" +
                        std::to_string(2 * width) + ")");
    }
}

std::unique_ptr<Pattern> makePattern(VulkanHost& host, const PatternConfig& config) {
    switch (config.kind) {
        case PatternKind::Interleaved: return makeInterleaved(host, config);
        case PatternKind::Shared: return makeShared(host, config);
        case PatternKind::Separate: return makeSeparate(host, config);
        case PatternKind::Async: return makeAsync(host, config);
    }
    throw DemoError("unknown pattern");
}

Pattern::Pattern(VulkanHost& host, const PatternConfig& config, bool modelFromBuffer, uint32_t slots,
                 const std::vector<uint32_t>& sharedFamilies)
    : host_(host),
      config_(config),
      timer_(host, slots),
      scenePass_(host, slots, config.sceneCost),
      compositePass_(host, modelFromBuffer, slots),
      slots_(slots),
      inputName_(config.model->inputs().at(0).name),
      outputName_(config.model->outputs().at(0).name),
      slotFrame_(slots, -1) {
    if (slots < 1 || slots > kMaxSlots) throw DemoError("a pattern has 1 to 3 frame slots");
    const uint32_t W = config.width, H = config.height;
    // The composite reads the model's output [1, 3, 2H, 2W] as one storage buffer.
    const uint64_t outputBytes = uint64_t(12) * W * H * sizeof(float);
    if (modelFromBuffer && outputBytes > host.limits.maxStorageBufferRange)
        throw DemoError("the model's output for a " + std::to_string(W) + "x" + std::to_string(H) + " frame is " +
                        std::to_string(outputBytes) + " bytes; '" + host.deviceName +
                        "' binds storage buffers of up to " + std::to_string(host.limits.maxStorageBufferRange) +
                        " bytes (use a smaller --size)");
    CompositeLayout layout = CompositeLayout::make(W, H, "", "");
    for (Slot& s : slots_) {
        s.scene = host.createImage(
            W, H, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
            VK_FORMAT_R8G8B8A8_UNORM, sharedFamilies);
        s.composite = host.createImage(layout.width(), layout.height(),
                                       VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT);
        if (config.readback || config.keepScene)
            s.readback = host.createBuffer(VkDeviceSize(layout.width()) * layout.height() * 4,
                                           VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
        if (config.keepScene || config.kind == PatternKind::Separate)
            s.sceneReadback = host.createBuffer(VkDeviceSize(W) * H * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true);
        s.cmd = host.allocateCommandBuffer();
        s.fence = host.createFence(false);
    }
}

void Pattern::openHostSession(vkinfer::SessionQueue queue) {
    VkFormatProperties props;
    vkGetPhysicalDeviceFormatProperties(host_.physical, VK_FORMAT_R8G8B8A8_UNORM, &props);
    if (!(props.optimalTilingFeatures & VK_FORMAT_FEATURE_STORAGE_IMAGE_BIT))
        throw DemoError("'" + host_.deviceName + "' cannot use R8G8B8A8_UNORM storage images (vkinfer's ImageOutput)");
    auto context = vkinfer::wrapHostDevice(host_.hostDevice());
    check(context.status(), "wrapping the renderer's device");
    hostContext_ = std::make_unique<vkinfer::Context>(std::move(context).value());
    vkinfer::SessionOptions options;
    options.framesInFlight = slotCount();  // one vkinfer frame slot per renderer frame in flight
    options.precision = config_.precision;
    options.queue = queue;
    auto session = vkinfer::Session::create(*hostContext_, *config_.model, options);
    check(session.status(), "creating the session");
    hostSession_ = std::make_unique<vkinfer::Session>(std::move(session).value());
    const uint32_t W = config_.width, H = config_.height;
    requireUpscaleOutput(*hostSession_, inputName_, W, H);
    // Compiles the plan and uploads the weights (on the session's queue) before the first frame.
    check(hostSession_->prepare({{inputName_, {1, 3, H, W}}}), "preparing the session");
}

uint32_t Pattern::nextSlot(uint32_t frame) {
    uint32_t slot = static_cast<uint32_t>(submissions_++ % slots_.size());
    if (slotFrame_[slot] >= 0)
        throw DemoError("frame slot " + std::to_string(slot) + " still holds an uncollected frame");
    slotFrame_[slot] = frame;
    return slot;
}

uint32_t Pattern::slotOf(uint32_t frame) const {
    for (uint32_t s = 0; s < slots_.size(); ++s)
        if (slotFrame_[s] == static_cast<int64_t>(frame)) return s;
    throw DemoError("frame " + std::to_string(frame) + " is not in flight");
}

void Pattern::submit(uint32_t frame) {
    const uint32_t slot = nextSlot(frame);
    submitFront(frame, slot);
    if (!pipelines()) {
        submitBack(frame, slot);
        return;
    }
    // The previous frame's composite goes after this frame's render on the renderer's queue.
    if (pendingBack_ >= 0) submitBack(static_cast<uint32_t>(pendingBack_), slotOf(static_cast<uint32_t>(pendingBack_)));
    pendingBack_ = frame;
}

FrameOutput Pattern::collect(uint32_t frame) {
    const uint32_t slot = slotOf(frame);
    if (pendingBack_ == static_cast<int64_t>(frame)) {
        submitBack(frame, slot);
        pendingBack_ = -1;
    }
    return collectSlot(slot);
}

Pattern::~Pattern() {
    vkDeviceWaitIdle(host_.device);  // the recorded work must finish before the session goes (interop.h)
    hostSession_.reset();
    hostContext_.reset();
    for (Slot& s : slots_) {
        host_.destroy(s.scene);
        host_.destroy(s.composite);
        host_.destroy(s.readback);
        host_.destroy(s.sceneReadback);
        if (s.fence) vkDestroyFence(host_.device, s.fence, nullptr);
        if (s.cmd) vkFreeCommandBuffers(host_.device, host_.pool, 1, &s.cmd);
    }
}

void Pattern::begin(VkCommandBuffer cmd) {
    DEMO_VK(vkResetCommandBuffer(cmd, 0));
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    DEMO_VK(vkBeginCommandBuffer(cmd, &bi));
}

void Pattern::recordSceneReadback(VkCommandBuffer cmd, Slot& s) {
    imageBarrier(cmd, s.scene.image, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                 VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {s.scene.width, s.scene.height, 1};
    vkCmdCopyImageToBuffer(cmd, s.scene.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, s.sceneReadback.buffer, 1,
                           &region);
    bufferBarrier(cmd, s.sceneReadback.buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

void Pattern::recordCompositeAndReadback(VkCommandBuffer cmd, Slot& s, uint32_t frame) {
    s.layout = CompositeLayout::make(config_.width, config_.height, config_.modelCaption,
                                     std::string(name(config_.kind)) + " frame " + std::to_string(frame));
    compositePass_.record(cmd, s.composite, s.layout, s.compositeSet);
    if (!s.readback.buffer) return;
    imageBarrier(cmd, s.composite.image, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                 VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {s.composite.width, s.composite.height, 1};
    vkCmdCopyImageToBuffer(cmd, s.composite.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, s.readback.buffer, 1, &region);
    bufferBarrier(cmd, s.readback.buffer, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                  VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

void Pattern::submitOne(VkCommandBuffer cmd, VkFence fence) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    DEMO_VK(vkQueueSubmit(host_.queue, 1, &si, fence));
}

void Pattern::submitAndWait(VkCommandBuffer cmd, VkFence fence) {
    submitOne(cmd, fence);
    waitFence(fence);
}

void Pattern::waitFence(VkFence fence) {
    DEMO_VK(vkWaitForFences(host_.device, 1, &fence, VK_TRUE, UINT64_MAX));
    DEMO_VK(vkResetFences(host_.device, 1, &fence));
}

FrameOutput Pattern::output(uint32_t slot) {
    Slot& s = slots_[slot];
    FrameOutput out;
    out.layout = s.layout;
    const auto* px = static_cast<const uint8_t*>(s.readback.mapped);
    if (px) out.composite.assign(px, px + s.readback.size);
    if (config_.keepScene) {
        const auto* sp = static_cast<const uint8_t*>(s.sceneReadback.mapped);
        out.scene.assign(sp, sp + s.sceneReadback.size);
    }
    out.times = s.times;
    out.times.known = timer_.available();
    slotFrame_[slot] = -1;  // collected: the slot is free again
    return out;
}

}  // namespace demo
