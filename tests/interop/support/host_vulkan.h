// The host application in the interop tests: its own VkInstance (validation with
// synchronization validation when VKINFER_VALIDATE=1), VkDevice with a graphics+compute
// queue, images, buffers, full-screen render passes, one-shot submission and readback.
// Helpers throw std::runtime_error on failure (GoogleTest reports it as a failure).
#pragma once

#include <vkinfer/interop.h>
#include <vulkan/vulkan.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace vkinfer::hostvk {

// Validation messages (WARNING|ERROR of type VALIDATION|PERFORMANCE) reported on the host's
// instance. Shared so that messages at device and instance destruction (leaked objects)
// can still be checked after the HostVulkan is gone.
class MessageLog {
public:
    void add(std::string message);
    std::vector<std::string> take();
    std::vector<std::string> peek() const;
    // All messages, one per line (for assertion output).
    std::string text() const;

private:
    mutable std::mutex mutex_;
    std::vector<std::string> messages_;
};

struct HostOptions {
    uint32_t apiVersion = VK_API_VERSION_1_2;
    bool validate = validationRequestedByEnvironment();  // VKINFER_VALIDATE=1
    // Enabled where the device supports them.
    bool storageImageWriteWithoutFormat = true;
    bool externalMemoryFd = true;
    // Create the device from vkinfer::queryDeviceRequirements (its feature chain and
    // extensions, plus the host's own), and hand that chain to wrapHostDevice.
    bool useRequirements = false;
    std::shared_ptr<MessageLog> log;  // created when null
};

constexpr VkImageUsageFlags kAllImageUsage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                                             VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                                             VK_IMAGE_USAGE_TRANSFER_DST_BIT;

struct Image {
    VkImage image = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkImageUsageFlags usage = 0;  // what the image was created with
    uint32_t width = 0, height = 0;
    HostImage host() const { return {image, view, format, width, height}; }
};

struct Buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    void* mapped = nullptr;  // host-visible buffers stay mapped
};

// Bytes per texel of the formats the tests use (RGBA8 and BGRA8, UNORM and SRGB, RGBA16F, R16F, R32F).
uint32_t texelBytes(VkFormat format);
float halfToFloat(uint16_t h);

class HostVulkan {
public:
    explicit HostVulkan(const HostOptions& options = {});
    ~HostVulkan();  // waits for the device, destroys everything it created
    HostVulkan(const HostVulkan&) = delete;
    HostVulkan& operator=(const HostVulkan&) = delete;

    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    uint32_t family = 0;  // graphics + compute
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    uint32_t apiVersion = 0;
    bool validation = false;
    VkPhysicalDeviceFeatures features{};
    VkPhysicalDeviceVulkan11Features features11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    std::vector<std::string> extensions;

    // With HostOptions::useRequirements: what the device was created from.
    std::unique_ptr<DeviceRequirements> requirements;

    MessageLog& log() { return *log_; }
    std::shared_ptr<MessageLog> sharedLog() const { return log_; }

    // What wrapHostDevice needs; the queue only when `withQueue`.
    HostDevice hostDevice(bool withQueue = true) const;

    // A 2-D optimal-tiling image with a color view, device-local memory. Usage bits the
    // format does not support on this device are dropped (Image::usage tells).
    Image createImage(VkFormat format, uint32_t width, uint32_t height, VkImageUsageFlags usage = kAllImageUsage);
    Buffer createBuffer(VkDeviceSize size, VkBufferUsageFlags usage, bool hostVisible);
    bool formatSupports(VkFormat format, VkFormatFeatureFlags features) const;

    // Command buffers from `pool` (primary; the pool allows resetting them one by one), begun
    // for one-time submission.
    VkCommandBuffer begin();
    // The same for a command buffer used again and again (flat memory over many frames):
    // allocates it when null, else resets it (its last submission must have finished).
    VkCommandBuffer beginReused(VkCommandBuffer cmd);
    // Ends and submits; returns the fence (waited and destroyed by wait()).
    VkFence submit(const std::vector<VkCommandBuffer>& commandBuffers);
    void wait(VkFence fence);
    void submitAndWait(VkCommandBuffer cmd) { wait(submit({cmd})); }

    // Records a copy of the image (currently in `current`) into a new host-visible buffer,
    // made visible to the host; the image is left in TRANSFER_SRC_OPTIMAL. Read the bytes
    // (tightly packed rows) after the submission's fence.
    const Buffer& recordReadback(VkCommandBuffer cmd, const Image& image, const ImageState& current);
    // Same for a range of a buffer (last used as `current`).
    const Buffer& recordReadback(VkCommandBuffer cmd, const Buffer& buffer, VkDeviceSize offset, VkDeviceSize size,
                                 const BufferState& current);
    static std::vector<uint8_t> bytes(const Buffer& readback);
    // One-shot form: its own command buffer, submitted and waited.
    std::vector<uint8_t> readImage(const Image& image, const ImageState& current);

    // Records a copy of `data` into `dst` at `offset` through a new staging buffer, followed
    // by nothing (the caller's next consumer declares TRANSFER / TRANSFER_WRITE as "before").
    void recordUpload(VkCommandBuffer cmd, const Buffer& dst, VkDeviceSize offset, const void* data, VkDeviceSize size);

    VkShaderModule shaderModule(const uint32_t* code, size_t bytes);

private:
    uint32_t memoryType(uint32_t bits, VkMemoryPropertyFlags flags) const;

    HostOptions options_;
    std::shared_ptr<MessageLog> log_;
    VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
    std::vector<Image> images_;
    std::vector<std::unique_ptr<Buffer>> buffers_;
    std::vector<VkShaderModule> modules_;
};

// A render pass with one color attachment (UNDEFINED -> COLOR_ATTACHMENT_OPTIMAL, contents
// discarded: the pass draws every pixel) and a full-screen-triangle graphics pipeline whose
// fragment shader takes 16 bytes of push constants and optionally one descriptor (set 0,
// binding 0): a combined image sampler (nearest, clamp) reading an image in
// SHADER_READ_ONLY_OPTIMAL, or a storage buffer.
// Its external dependency orders earlier color-attachment and transfer work before the
// attachment's layout transition and writes; it deliberately does not cover compute work
// (vkinfer's "after" barriers have to).
// What a FullscreenPass descriptor names: an image view to sample, or a buffer range.
struct PassResource {
    VkImageView view = VK_NULL_HANDLE;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceSize offset = 0, size = VK_WHOLE_SIZE;
};

class FullscreenPass {
public:
    enum class Binding { None, Sampler, StorageBuffer };
    FullscreenPass(HostVulkan& host, VkFormat format, const uint32_t* vert, size_t vertBytes, const uint32_t* frag,
                   size_t fragBytes, Binding binding);
    ~FullscreenPass();
    FullscreenPass(const FullscreenPass&) = delete;
    FullscreenPass& operator=(const FullscreenPass&) = delete;

    using Resource = PassResource;
    // Binds the pipeline, viewport, scissor, push constants and (with a binding) a new
    // descriptor set naming `resource`. Valid inside or outside the render pass.
    void bindState(VkCommandBuffer cmd, uint32_t width, uint32_t height, const float push[4], Resource resource = {});
    void beginPass(VkCommandBuffer cmd, const Image& target);
    void draw(VkCommandBuffer cmd) { vkCmdDraw(cmd, 3, 1, 0, 0); }
    void endPass(VkCommandBuffer cmd) { vkCmdEndRenderPass(cmd); }
    // beginPass + bindState + draw + endPass. Leaves `target` in COLOR_ATTACHMENT_OPTIMAL.
    void record(VkCommandBuffer cmd, const Image& target, const float push[4], Resource resource = {});

    // The state the target is in after the pass (for ImageInput::before and readback).
    static ImageState attachmentState() {
        return {VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT};
    }

private:
    HostVulkan& host_;
    VkFormat format_;
    Binding binding_;
    VkRenderPass renderPass_ = VK_NULL_HANDLE;
    VkDescriptorSetLayout setLayout_ = VK_NULL_HANDLE;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
    VkPipeline pipeline_ = VK_NULL_HANDLE;
    VkSampler sampler_ = VK_NULL_HANDLE;
    VkDescriptorPool descriptorPool_ = VK_NULL_HANDLE;
    std::map<VkImageView, VkFramebuffer> framebuffers_;
};

// A session's shared image as the host's Image (the session keeps owning it).
Image imageOf(const SharedImage& s);

// One barrier over a whole color image: a layout change, and where srcFamily != dstFamily one
// half of a queue family ownership transfer.
void imageBarrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, uint32_t srcFamily,
                  uint32_t dstFamily, VkPipelineStageFlags srcStages, VkAccessFlags srcAccess,
                  VkPipelineStageFlags dstStages, VkAccessFlags dstAccess);

}  // namespace vkinfer::hostvk
