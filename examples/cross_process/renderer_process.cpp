// example_cross_process_renderer: the renderer process of the cross-process example, started
// by example_cross_process (session_process.cpp says what both do).
//
//   example_cross_process_renderer SOCKET_FD MODEL_DIR
//
// Receives the setup, the memory of each frame slot's input and output image (and, for the
// timeline-semaphore path, the "rendered" and "inferred" semaphores) as fds over the socket
// (image_protocol.h) and imports them into a Vulkan device of its own on the same GPU
// (importSharedImage on a wrapped device; vkImportSemaphoreFdKHR). Per frame n it draws a
// picture into slot n % slots's input image in a render pass (a background and three
// rectangles that move with n), releases the image to VK_QUEUE_FAMILY_EXTERNAL and says
// Rendered; once told Inferred, it acquires the output image, copies it out (after "inferred"
// reaches n + 1 on the GPU, or after the message alone on the host-wait path), and compares
// it with its own Session::run of the picture it drew (computed on the CPU). It draws frame
// n + 1 before reading frame n's output: frames in flight.
// Ends with Done (largest difference in units of half a float16 step, fd counts and vkinfer's device memory early and late),
// or Failed with the reason. Exit status: 0 done; 1 a failure (reported to the session's
// process); 3 the session's process went away first (named on stderr).
#include <unistd.h>
#include <vkinfer/interop.h>
#include <vkinfer/vkinfer.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "fd_socket.h"
#include "image_protocol.h"
#include "vulkan_device.h"

using namespace vkinfer;
using namespace vkinfer::crossprocess;

namespace {

// The session's process closed the socket: not this process's failure, reported apart.
struct SessionGone : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void receiveOrGone(int socket, void* data, size_t bytes, const std::string& waitingFor) {
    try {
        fdsocket::receiveAll(socket, data, bytes);
    } catch (const std::exception& e) {
        throw SessionGone("the session's process closed the socket while this one waited for " + waitingFor + " (" +
                          e.what() + ")");
    }
}

void sendOrGone(int socket, const Message& m) {
    try {
        fdsocket::sendAll(socket, &m, sizeof(m));
    } catch (const std::exception& e) {
        throw SessionGone(std::string("the session's process closed the socket (") + e.what() + ")");
    }
}

void sendFailed(int socket, const std::string& text) {
    Message m;
    m.kind = Failed;
    m.textBytes = static_cast<uint32_t>(text.size());
    fdsocket::sendAll(socket, &m, sizeof(m));
    fdsocket::sendAll(socket, text.data(), text.size());
}

void check(VkResult r, const char* what) {
    if (r != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed: VkResult " + std::to_string(int(r)));
}

// Frame n's picture: a background and three rectangles, one in each of three quadrants (no
// overlap, so the order of the clears does not matter), colors in steps of 1/255 so that the
// RGBA8 image holds them exactly.
struct Rect {
    VkRect2D area;
    uint8_t rgba[4];
};
struct Picture {
    uint8_t background[4];
    std::vector<Rect> rects;
};
Picture pictureOf(uint32_t n, uint32_t w, uint32_t h) {
    Picture p{{uint8_t(20 + n % 50), 40, uint8_t(60 + (3 * n) % 100), 255}, {}};
    const uint32_t qw = w / 2, qh = h / 2;
    for (uint32_t q = 0; q < 3; ++q) {
        Rect r;
        r.area.offset = {int32_t((q % 2) * qw + (n + q) % (qw / 3)), int32_t((q / 2) * qh + (2 * n + q) % (qh / 3))};
        r.area.extent = {qw / 2, qh / 2};
        r.rgba[0] = uint8_t((37 * n + 80 * q) % 256);
        r.rgba[1] = uint8_t((91 * n + 50 * q + 30) % 256);
        r.rgba[2] = uint8_t((13 * n + 120 * q) % 256);
        r.rgba[3] = 255;
        p.rects.push_back(r);
    }
    return p;
}
VkClearValue clearOf(const uint8_t rgba[4]) {
    VkClearValue v{};
    for (int c = 0; c < 4; ++c) v.color.float32[c] = rgba[c] / 255.0f;
    return v;
}
// The model's input for the picture: RGB of [1, 3, h, w] in [0, 1], as recordInference reads it.
Tensor tensorOf(const Picture& p, uint32_t w, uint32_t h) {
    Tensor t(DataType::Float32, {1, 3, int64_t(h), int64_t(w)});
    const size_t plane = size_t(w) * h;
    float* x = t.as<float>();
    for (size_t i = 0; i < plane; ++i)
        for (int c = 0; c < 3; ++c) x[c * plane + i] = p.background[c] / 255.0f;
    for (const Rect& r : p.rects)
        for (uint32_t y = 0; y < r.area.extent.height; ++y)
            for (uint32_t xx = 0; xx < r.area.extent.width; ++xx) {
                size_t i = size_t(r.area.offset.y + y) * w + size_t(r.area.offset.x + xx);
                for (int c = 0; c < 3; ++c) x[c * plane + i] = r.rgba[c] / 255.0f;
            }
    return t;
}

float halfToFloat(uint16_t h) {
    const int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
    float v = exponent == 0    ? std::ldexp(float(mantissa), -24)
              : exponent == 31 ? (mantissa ? NAN : INFINITY)
                               : std::ldexp(float(mantissa | 0x400), exponent - 25);
    return (h & 0x8000) ? -v : v;
}

void imageBarrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, uint32_t srcFamily,
                  uint32_t dstFamily, VkPipelineStageFlags srcStages, VkAccessFlags srcAccess,
                  VkPipelineStageFlags dstStages, VkAccessFlags dstAccess) {
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = srcAccess;
    b.dstAccessMask = dstAccess;
    b.oldLayout = from;
    b.newLayout = to;
    b.srcQueueFamilyIndex = srcFamily;
    b.dstQueueFamilyIndex = dstFamily;
    b.image = image;
    b.subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cmd, srcStages, dstStages, 0, 0, nullptr, 0, nullptr, 1, &b);
}

void begin(VkCommandBuffer cmd) {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
}

// A render pass drawing into one RGBA8 image: cleared to the background, left in
// COLOR_ATTACHMENT_OPTIMAL; its earlier contents discarded (the session has finished reading
// them: this process waited for that frame's output first).
VkRenderPass createRenderPass(VkDevice device) {
    VkAttachmentDescription color{};
    color.format = VK_FORMAT_R8G8B8A8_UNORM;
    color.samples = VK_SAMPLE_COUNT_1_BIT;
    color.loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    color.storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    color.stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    color.stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    color.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    color.finalLayout = VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL;
    VkAttachmentReference ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &ref;
    VkSubpassDependency in{};
    in.srcSubpass = VK_SUBPASS_EXTERNAL;
    in.dstSubpass = 0;
    in.srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    in.dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    in.dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    VkRenderPassCreateInfo ci{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    ci.attachmentCount = 1;
    ci.pAttachments = &color;
    ci.subpassCount = 1;
    ci.pSubpasses = &subpass;
    ci.dependencyCount = 1;
    ci.pDependencies = &in;
    VkRenderPass pass = VK_NULL_HANDLE;
    check(vkCreateRenderPass(device, &ci, nullptr, &pass), "vkCreateRenderPass");
    return pass;
}

int run(int socket, const std::string& modelDir, std::vector<int>& fds) {
    Setup setup;
    receiveOrGone(socket, &setup, sizeof(setup), "the setup");
    if (setup.magic != kMagic || setup.slots == 0 || setup.slots > 4 || setup.width < 6 || setup.height < 6)
        throw std::runtime_error("a setup this renderer does not understand");
    const uint32_t W = setup.width, H = setup.height, OW = setup.outputWidth, OH = setup.outputHeight;
    const uint32_t slots = setup.slots;
    const bool timeline = setup.sync == TimelineSemaphores;
    std::vector<ImageMemory> memory(2 * slots);
    for (auto& m : memory) {
        int fd = -1;
        fdsocket::receiveWithFd(socket, &m, sizeof(m), &fd);
        if (fd < 0) throw std::runtime_error("an image came without its fd");
        fds.push_back(fd);
    }
    int semaphoreFds[2] = {-1, -1};  // rendered, inferred
    if (timeline)
        for (int i = 0; i < 2; ++i) {
            SemaphoreFd s;
            int fd = -1;
            fdsocket::receiveWithFd(socket, &s, sizeof(s), &fd);
            if (fd < 0 || s.inferred > 1) throw std::runtime_error("a semaphore came without its fd");
            fds.push_back(fd);
            semaphoreFds[s.inferred] = fd;
        }

    auto model = Model::load(modelDir + "/model.onnx");
    if (!model.ok()) throw std::runtime_error("loading the model: " + model.status().toString());
    const bool validate = validationRequestedByEnvironment();
    VulkanDevice dev("vkinfer cross-process example (renderer)", validate, setup.deviceUuid);
    VkRenderPass pass = createRenderPass(dev.device);
    std::vector<VkFramebuffer> framebuffers;
    Message done;
    {
        auto wrapped = wrapHostDevice(dev.hostDevice());
        if (!wrapped.ok()) throw std::runtime_error("wrapHostDevice: " + wrapped.status().toString());
        Context ctx = std::move(wrapped).value();

        // The images as the session's process described them (an import must match).
        const SharedImageDesc inDesc{VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_IMAGE_TILING_OPTIMAL,
                                     VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                                     MemoryHandleType::OpaqueFd};
        const SharedImageDesc outDesc{VK_FORMAT_R16G16B16A16_SFLOAT, OW, OH, VK_IMAGE_TILING_OPTIMAL,
                                      VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                      MemoryHandleType::OpaqueFd};
        std::vector<SharedImage> inputs, outputs;
        for (size_t i = 0; i < memory.size(); ++i) {
            const bool output = memory[i].output != 0;
            auto img = importSharedImage(ctx, output ? outDesc : inDesc,
                                         {fds[i], MemoryHandleType::OpaqueFd, memory[i].allocationSize, 0, true,
                                          int32_t(memory[i].memoryTypeIndex)});
            if (!img.ok()) throw std::runtime_error("importSharedImage: " + img.status().toString());
            fds[i] = -1;  // Vulkan's now
            (output ? outputs : inputs).push_back(std::move(img).value());
        }
        if (inputs.size() != slots || outputs.size() != slots) throw std::runtime_error("one input and output per slot");
        VkSemaphore rendered = VK_NULL_HANDLE, inferred = VK_NULL_HANDLE;
        if (timeline) {
            auto vulkansNow = [&](int fd) { std::replace(fds.begin(), fds.end(), fd, -1); };
            rendered = dev.importTimeline(semaphoreFds[0]);
            vulkansNow(semaphoreFds[0]);
            inferred = dev.importTimeline(semaphoreFds[1]);
            vulkansNow(semaphoreFds[1]);
        }

        // The reference: Session::run of the same model on this device.
        auto session = Session::create(ctx, *model);
        if (!session.ok()) throw std::runtime_error("creating the reference session: " + session.status().toString());
        const std::string inputName = model->inputs().at(0).name;

        for (const SharedImage& in : inputs) {
            VkImageView view = in.image().view;
            VkFramebufferCreateInfo fi{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
            fi.renderPass = pass;
            fi.attachmentCount = 1;
            fi.pAttachments = &view;
            fi.width = W;
            fi.height = H;
            fi.layers = 1;
            VkFramebuffer fb = VK_NULL_HANDLE;
            check(vkCreateFramebuffer(dev.device, &fi, nullptr, &fb), "vkCreateFramebuffer");
            framebuffers.push_back(fb);
        }
        // Everything per frame is made once and reused: flat memory and fds over any number of frames.
        std::vector<VkCommandBuffer> drawCmds(slots);
        std::vector<VkFence> drawFences(slots);
        std::vector<bool> drawPending(slots, false);
        for (uint32_t k = 0; k < slots; ++k) drawCmds[k] = dev.allocateCommandBuffer(), drawFences[k] = dev.createFence();
        VkCommandBuffer readCmd = dev.allocateCommandBuffer();
        VkFence readFence = dev.createFence();
        VulkanDevice::HostBuffer readback = dev.createReadbackBuffer(VkDeviceSize(OW) * OH * 8);

        float worst = 0;
        int fdsEarly = -1;
        uint64_t memoryEarly = 0;

        auto readOutput = [&](uint32_t m) {
            Message msg;
            receiveOrGone(socket, &msg, sizeof(msg), "frame " + std::to_string(m) + "'s inference");
            if (msg.kind == Failed) {
                std::string text(msg.textBytes, '\0');
                receiveOrGone(socket, text.data(), text.size(), "the session's failure");
                throw SessionGone("the session's process failed: " + text);
            }
            if (msg.kind != Inferred || msg.frame != m)
                throw std::runtime_error("expected Inferred " + std::to_string(m) + ", got kind " +
                                         std::to_string(msg.kind) + " frame " + std::to_string(msg.frame));
            const HostImage out = outputs[m % slots].image();
            begin(readCmd);
            // The acquire matching the session's release (recordInference wrote it in GENERAL
            // and released it as TRANSFER_SRC_OPTIMAL to VK_QUEUE_FAMILY_EXTERNAL).
            imageBarrier(readCmd, out.image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                         VK_QUEUE_FAMILY_EXTERNAL, dev.family, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
            VkBufferImageCopy region{};
            region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
            region.imageExtent = {OW, OH, 1};
            vkCmdCopyImageToBuffer(readCmd, out.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, readback.buffer, 1, &region);
            VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
            toHost.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
            toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
            vkCmdPipelineBarrier(readCmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0,
                                 nullptr, 0, nullptr);
            check(vkEndCommandBuffer(readCmd), "vkEndCommandBuffer");
            if (timeline) dev.submit(readCmd, readFence, inferred, m + 1);  // the GPU waits for inference
            else dev.submit(readCmd, readFence);                            // inference is done already
            dev.waitAndReset(readFence);  // this process reads the copy on the CPU

            const Picture picture = pictureOf(m, W, H);
            auto ref = session->run({{inputName, tensorOf(picture, W, H)}});
            if (!ref.ok()) throw std::runtime_error("Session::run: " + ref.status().toString());
            const Tensor& y = (*ref)[0].tensor;
            if (y.shape() != std::vector<int64_t>{1, 3, int64_t(OH), int64_t(OW)})
                throw std::runtime_error("Session::run's output is " + shapeToString(y.shape()) +
                                         ", not the output image's 1x3x" + std::to_string(OH) + "x" +
                                         std::to_string(OW));
            const size_t plane = size_t(OW) * OH;
            const auto* half = static_cast<const uint16_t*>(readback.mapped);
            // Each difference in units of half a float16 step of the value (2^-11 of it), plus
            // 1e-5 for float rounding in the two paths.
            auto allowance = [](float v) { return std::ldexp(std::fabs(v), -11) + 1e-5f; };
            for (size_t i = 0; i < plane; ++i) {
                for (int c = 0; c < 3; ++c) {
                    const float want = y.as<float>()[c * plane + i];
                    worst = std::max(worst, std::fabs(halfToFloat(half[i * 4 + c]) - want) / allowance(want));
                }
                worst = std::max(worst, std::fabs(halfToFloat(half[i * 4 + 3]) - 1.0f) / allowance(1.0f));  // alpha: 1
            }
            if (std::isnan(worst)) worst = INFINITY;
        };

        for (uint32_t n = 0; n < setup.frames; ++n) {
            const uint32_t k = n % slots;
            if (drawPending[k]) dev.waitAndReset(drawFences[k]), drawPending[k] = false;
            const Picture picture = pictureOf(n, W, H);
            VkCommandBuffer cmd = drawCmds[k];
            begin(cmd);
            VkClearValue background = clearOf(picture.background);
            VkRenderPassBeginInfo rb{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
            rb.renderPass = pass;
            rb.framebuffer = framebuffers[k];
            rb.renderArea = {{0, 0}, {W, H}};
            rb.clearValueCount = 1;
            rb.pClearValues = &background;
            vkCmdBeginRenderPass(cmd, &rb, VK_SUBPASS_CONTENTS_INLINE);
            for (const Rect& r : picture.rects) {
                VkClearAttachment a{VK_IMAGE_ASPECT_COLOR_BIT, 0, clearOf(r.rgba)};
                VkClearRect rect{r.area, 0, 1};
                vkCmdClearAttachments(cmd, 1, &a, 1, &rect);
            }
            vkCmdEndRenderPass(cmd);
            // The release to the session's process (COLOR_ATTACHMENT -> SHADER_READ_ONLY, as
            // its acquire names them).
            imageBarrier(cmd, inputs[k].image().image, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL,
                         VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, dev.family, VK_QUEUE_FAMILY_EXTERNAL,
                         VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT, VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT,
                         VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0);
            check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
            if (timeline) {
                dev.submit(cmd, drawFences[k], VK_NULL_HANDLE, 0, rendered, n + 1);  // inference waits on the GPU
                drawPending[k] = true;
            } else {
                dev.submit(cmd, drawFences[k]);
                dev.waitAndReset(drawFences[k]);  // the host wait: drawn before the message goes
            }
            Message r;
            r.kind = Rendered;
            r.frame = n;
            sendOrGone(socket, r);
            if (n + 1 >= slots) readOutput(n + 1 - slots);  // `slots` frames in flight
            if (n == 4) fdsEarly = fdsocket::openFdCount(), memoryEarly = ctx.memoryStats().current.total();
        }
        for (uint32_t m = setup.frames >= slots ? setup.frames + 1 - slots : 0; m < setup.frames; ++m) readOutput(m);
        if (fdsEarly < 0) fdsEarly = fdsocket::openFdCount(), memoryEarly = ctx.memoryStats().current.total();
        vkDeviceWaitIdle(dev.device);

        done.kind = Done;
        done.frame = setup.frames;
        done.worst = worst;
        done.fdsEarly = fdsEarly;
        done.fdsLate = fdsocket::openFdCount();
        done.memoryEarly = memoryEarly;
        done.memoryLate = ctx.memoryStats().current.total();
        // The session, images and context go before this process's device.
    }
    for (VkFramebuffer fb : framebuffers) vkDestroyFramebuffer(dev.device, fb, nullptr);
    vkDestroyRenderPass(dev.device, pass, nullptr);
    if (VulkanDevice::validationMessages() > 0) {
        sendFailed(socket, "validation reported " + std::to_string(VulkanDevice::validationMessages()) +
                               " message(s) in the renderer process (printed on its stderr)");
        return 1;
    }
    sendOrGone(socket, done);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s SOCKET_FD MODEL_DIR (started by example_cross_process)\n", argv[0]);
        return 2;
    }
    const int socket = std::atoi(argv[1]);
    std::vector<int> fds;  // received and not yet imported: ours to close
    auto closeReceived = [&] {
        for (int fd : fds)
            if (fd >= 0) close(fd);
    };
    try {
        int status = run(socket, argv[2], fds);
        closeReceived();
        return status;
    } catch (const SessionGone& e) {
        closeReceived();
        std::fprintf(stderr, "example_cross_process_renderer: %s\n", e.what());
        return 3;
    } catch (const std::exception& e) {
        closeReceived();
        try {
            sendFailed(socket, std::string("renderer: ") + e.what());
        } catch (...) {
        }
        std::fprintf(stderr, "example_cross_process_renderer: %s\n", e.what());
        return 1;
    }
}
