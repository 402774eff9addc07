// interop_image_peer: the renderer process of the cross-process shared-image test
// (tests/interop/image_process_test.cpp). Usage: interop_image_peer <socket fd>
//
// Receives a Setup and, for each frame slot, the fds of an input (RGBA8) and an output
// (RGBA16F) image the session's process exported (examples/cross_process/image_protocol.h,
// the wire format shared with the cross-process example). Imports them into its own
// VkInstance/VkDevice (vkinfer's importSharedImage on a wrapped device), then for every frame: draws a pattern into the slot's
// input image, reads what it drew, releases the image to VK_QUEUE_FAMILY_EXTERNAL and says
// Rendered; once told Inferred, acquires the output image, reads it and compares it with its
// own Session::run of the model on the drawn pixels. Frames in flight: it draws frame n+1
// while the session infers frame n. Synchronization as Setup::sync says: timeline semaphores
// shared by fd (the draw signals "rendered" = n + 1 and Rendered goes right after the
// submission; the copy of the output waits for "inferred" >= n + 1 on the GPU), or the host wait
// (each side waits for its own fence before its message).
// Ends with Done (the largest difference, its fd counts), or Failed with the reason.
// Exit status: 0 done; 1 a failure (reported); 3 the session's process went away first
// (its socket closed), named on stderr. Validation as VKINFER_VALIDATE says; any message is
// a failure.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cross_process/image_protocol.h"
#include "cross_process/timeline_fd.h"
#include "interop/support/host_vulkan.h"
#include "interop/support/shared_util.h"
#include "support/small_models.h"

using namespace vkinfer;
using namespace vkinfer::testing;
using namespace vkinfer::crossprocess;
using vkinfer::hostvk::HostVulkan;

static const uint32_t kFullscreenVert[] =
#include "fullscreen.vert.inc"
    ;
static const uint32_t kPatternFrag[] =
#include "pattern.frag.inc"
    ;

namespace {

// The session's process closed the socket: not this process's failure, reported apart.
struct PeerGone : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void receiveOrGone(int socket, void* data, size_t bytes, const char* waitingFor) {
    try {
        shared::receiveAll(socket, data, bytes);
    } catch (const std::exception& e) {
        throw PeerGone(std::string("the session's process closed the socket while this one waited for ") + waitingFor +
                       " (" + e.what() + ")");
    }
}

void sendOrGone(int socket, const void* data, size_t bytes, const char* what) {
    try {
        shared::sendAll(socket, data, bytes);
    } catch (const std::exception& e) {
        throw PeerGone(std::string("the session's process closed the socket before this one could send ") + what +
                       " (" + e.what() + ")");
    }
}

// Copies the image (in TRANSFER_SRC_OPTIMAL) into a host-visible buffer, visible to the host.
void copyOut(VkCommandBuffer cmd, const hostvk::Image& image, const hostvk::Buffer& out) {
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {image.width, image.height, 1};
    vkCmdCopyImageToBuffer(cmd, image.image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, out.buffer, 1, &region);
    VkBufferMemoryBarrier b{VK_STRUCTURE_TYPE_BUFFER_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.buffer = out.buffer;
    b.size = VK_WHOLE_SIZE;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 0, nullptr, 1, &b, 0,
                         nullptr);
}

void sendFailed(int socket, const std::string& text) {
    Message m;
    m.kind = Failed;
    m.textBytes = static_cast<uint32_t>(text.size());
    shared::sendAll(socket, &m, sizeof(m));
    shared::sendAll(socket, text.data(), text.size());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <socket fd>\n", argv[0]);
        return 2;
    }
    const int socket = std::atoi(argv[1]);
    std::vector<int> fds;  // received, not yet imported: ours to close
    try {
        Setup setup;
        receiveOrGone(socket, &setup, sizeof(setup), "the setup");
        if (setup.magic != kMagic || setup.slots == 0 || setup.slots > 4) throw std::runtime_error("bad setup");
        std::vector<ImageMemory> memory(2 * setup.slots);
        for (auto& m : memory) {
            int fd = -1;
            shared::receiveWithFd(socket, &m, sizeof(m), &fd);
            if (fd < 0) throw std::runtime_error("an image came without its fd");
            fds.push_back(fd);
        }
        const bool timeline = setup.sync == TimelineSemaphores;
        int semaphoreFds[2] = {-1, -1};  // "rendered", "inferred"
        if (timeline)
            for (int i = 0; i < 2; ++i) {
                SemaphoreFd sf;
                int fd = -1;
                shared::receiveWithFd(socket, &sf, sizeof(sf), &fd);
                if (fd < 0 || sf.inferred > 1) throw std::runtime_error("a semaphore came without its fd");
                fds.push_back(fd);
                semaphoreFds[sf.inferred] = fd;
            }
        const uint32_t W = setup.width, H = setup.height, slots = setup.slots;

        hostvk::HostOptions ho;
        ho.useRequirements = true;  // vkinfer's extensions: VK_KHR_external_semaphore_fd among them where offered
        HostVulkan host(ho);
        // The imported semaphores, destroyed before the device.
        struct Semaphores {
            VkDevice device;
            VkSemaphore rendered = VK_NULL_HANDLE, inferred = VK_NULL_HANDLE;
            ~Semaphores() {
                vkDeviceWaitIdle(device);
                if (rendered) vkDestroySemaphore(device, rendered, nullptr);
                if (inferred) vkDestroySemaphore(device, inferred, nullptr);
            }
        } semaphores{host.device};
        if (timeline) {
            auto vulkansNow = [&](int fd) { std::replace(fds.begin(), fds.end(), fd, -1); };
            semaphores.rendered = crossprocess::importTimelineFd(host.device, semaphoreFds[0]);
            vulkansNow(semaphoreFds[0]);
            semaphores.inferred = crossprocess::importTimelineFd(host.device, semaphoreFds[1]);
            vulkansNow(semaphoreFds[1]);
        }
        auto wrapped = wrapHostDevice(host.hostDevice());
        if (!wrapped.ok()) throw std::runtime_error(wrapped.status().toString());
        Context ctx = std::move(wrapped).value();
        if (std::memcmp(ctx.device().deviceUuid.data(), setup.deviceUuid, 16) != 0)
            throw std::runtime_error("the first graphics device here is not the session's physical device");

        SharedImageDesc inDesc{VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_IMAGE_TILING_OPTIMAL,
                               VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                                   VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                               MemoryHandleType::OpaqueFd};
        SharedImageDesc outDesc{VK_FORMAT_R16G16B16A16_SFLOAT, W, H, VK_IMAGE_TILING_OPTIMAL,
                                VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, MemoryHandleType::OpaqueFd};
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

        auto session = Session::create(ctx, affineModel());
        if (!session.ok()) throw std::runtime_error(session.status().toString());
        hostvk::FullscreenPass pass(host, VK_FORMAT_R8G8B8A8_UNORM, kFullscreenVert, sizeof(kFullscreenVert),
                                    kPatternFrag, sizeof(kPatternFrag), hostvk::FullscreenPass::Binding::None);
        // Everything per frame is reused: flat memory and fds over any number of frames.
        std::vector<hostvk::Buffer> drawnBuf, outBuf;  // handles; the HostVulkan owns them
        for (uint32_t k = 0; k < slots; ++k) {
            drawnBuf.push_back(host.createBuffer(VkDeviceSize(W) * H * 4, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true));
            outBuf.push_back(host.createBuffer(VkDeviceSize(W) * H * 8, VK_BUFFER_USAGE_TRANSFER_DST_BIT, true));
        }
        // Draws have a command buffer and fence per slot (on the semaphore path the draw of frame
        // n is not waited for before Rendered n: its fence is waited before its pixels are read).
        std::vector<VkCommandBuffer> drawCmds(slots, VK_NULL_HANDLE);
        std::vector<VkFence> drawFences(slots, VK_NULL_HANDLE);
        VkCommandBuffer readCmd = VK_NULL_HANDLE;
        // Ends and submits `cmd`, waiting for `wait` >= waitValue and signaling `signal` =
        // signalValue on the semaphore path; the fence (HostVulkan::wait destroys it).
        auto submit = [&](VkCommandBuffer cmd, VkSemaphore wait, uint64_t waitValue, VkSemaphore signal,
                          uint64_t signalValue) {
            if (!timeline) return host.submit({cmd});
            if (vkEndCommandBuffer(cmd) != VK_SUCCESS) throw std::runtime_error("vkEndCommandBuffer");
            VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
            VkFence fence = VK_NULL_HANDLE;
            if (vkCreateFence(host.device, &fi, nullptr, &fence) != VK_SUCCESS) throw std::runtime_error("vkCreateFence");
            crossprocess::submitWithTimelines(host.queue, cmd, fence, wait, waitValue, signal, signalValue);
            return fence;
        };
        std::vector<std::vector<uint8_t>> drawn(slots);
        // The pixels of the slot's last draw, once it has finished.
        auto takeDrawn = [&](uint32_t k) {
            if (!drawFences[k]) return;
            host.wait(drawFences[k]);
            drawFences[k] = VK_NULL_HANDLE;
            const auto* bytes = static_cast<const uint8_t*>(drawnBuf[k].mapped);
            drawn[k].assign(bytes, bytes + size_t(W) * H * 4);
        };
        float worst = 0;
        int fdsEarly = -1;
        uint64_t memoryEarly = 0;

        auto readOutput = [&](uint32_t m) {
            Message msg;
            receiveOrGone(socket, &msg, sizeof(msg), ("frame " + std::to_string(m) + "'s inference").c_str());
            if (msg.kind == Failed) {
                std::string text(msg.textBytes, '\0');
                receiveOrGone(socket, text.data(), text.size(), "the session's failure");
                throw PeerGone("the session's process failed: " + text);
            }
            if (msg.kind != Inferred || msg.frame != m)
                throw std::runtime_error("expected Inferred " + std::to_string(m) + ", got kind " +
                                         std::to_string(msg.kind) + " frame " + std::to_string(msg.frame));
            const uint32_t k = m % slots;
            takeDrawn(k);
            hostvk::Image out = hostvk::imageOf(outputs[k]);
            readCmd = host.beginReused(readCmd);
            // The acquire matching the session's release (GENERAL -> TRANSFER_SRC_OPTIMAL).
            hostvk::imageBarrier(readCmd, out.image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                 VK_QUEUE_FAMILY_EXTERNAL, host.family, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                                 VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT);
            copyOut(readCmd, out, outBuf[k]);
            // Semaphore path: the GPU waits for inference ("inferred" >= m + 1); host wait: the
            // session waited for it before saying Inferred.
            host.wait(submit(readCmd, semaphores.inferred, m + 1, VK_NULL_HANDLE, 0));
            Tensor x(DataType::Float32, {1, 4, int64_t(H), int64_t(W)});
            const size_t plane = size_t(W) * H;
            for (size_t i = 0; i < plane; ++i)
                for (int c = 0; c < 4; ++c) x.as<float>()[c * plane + i] = drawn[k][i * 4 + c] / 255.0f;
            auto ref = session->run({{"x", x}});
            if (!ref.ok()) throw std::runtime_error("Session::run: " + ref.status().toString());
            const float* y = (*ref)[0].tensor.as<float>();
            const auto* half = static_cast<const uint16_t*>(outBuf[k].mapped);
            for (size_t i = 0; i < plane; ++i)
                for (int c = 0; c < 4; ++c)
                    worst = std::max(worst, std::fabs(hostvk::halfToFloat(half[i * 4 + c]) - y[c * plane + i]));
        };

        for (uint32_t n = 0; n < setup.frames; ++n) {
            const uint32_t k = n % slots;
            hostvk::Image in = hostvk::imageOf(inputs[k]);
            const float push[4] = {float(W), float(H), 0.013f * float(n), 0};
            takeDrawn(k);  // (frame n - slots: already taken when its output was read)
            drawCmds[k] = host.beginReused(drawCmds[k]);
            {
                VkCommandBuffer c = drawCmds[k];
                pass.record(c, in, push);  // from UNDEFINED: the previous frame's contents are discarded
                hostvk::imageBarrier(c, in.image,
                                     VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                                     VK_QUEUE_FAMILY_IGNORED, VK_QUEUE_FAMILY_IGNORED, VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT,
                                     VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                     VK_ACCESS_TRANSFER_READ_BIT);
                copyOut(c, in, drawnBuf[k]);
                // The release to the session's process (TRANSFER_SRC -> SHADER_READ_ONLY, as its
                // acquire names them).
                hostvk::imageBarrier(c, in.image,
                                     VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL,
                                     host.family, VK_QUEUE_FAMILY_EXTERNAL, VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                                     VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0);
            }
            // Semaphore path: inference waits for "rendered" = n + 1 on the GPU; host wait: the
            // draw is waited for here, before Rendered goes.
            drawFences[k] = submit(drawCmds[k], VK_NULL_HANDLE, 0, semaphores.rendered, n + 1);
            if (!timeline) takeDrawn(k);
            Message r;
            r.kind = Rendered;
            r.frame = n;
            sendOrGone(socket, &r, sizeof(r), ("frame " + std::to_string(n) + "'s Rendered").c_str());
            if (n + 1 >= slots) readOutput(n + 1 - slots);  // frames in flight: `slots`
            if (n == 8) {
                fdsEarly = shared::openFdCount();
                memoryEarly = ctx.memoryStats().current.total();
            }
        }
        for (uint32_t m = setup.frames >= slots ? setup.frames + 1 - slots : 0; m < setup.frames; ++m) readOutput(m);
        if (fdsEarly < 0) fdsEarly = shared::openFdCount(), memoryEarly = ctx.memoryStats().current.total();

        Message done;
        done.kind = Done;
        done.frame = setup.frames;
        done.worst = worst;
        done.fdsEarly = fdsEarly;
        done.fdsLate = shared::openFdCount();
        done.memoryEarly = memoryEarly;
        done.memoryLate = ctx.memoryStats().current.total();
        session = Result<Session>(Session());
        inputs.clear();
        outputs.clear();
        auto messages = host.log().take();
        if (!messages.empty()) {
            std::string text = "validation reported " + std::to_string(messages.size()) + " message(s) in the peer:";
            for (const auto& m : messages) text += "\n" + m;
            sendFailed(socket, text);
            return 1;
        }
        shared::sendAll(socket, &done, sizeof(done));
        return 0;
    } catch (const PeerGone& e) {
        for (int fd : fds)
            if (fd >= 0) close(fd);
        std::fprintf(stderr, "interop_image_peer: %s\n", e.what());
        return 3;
    } catch (const std::exception& e) {
        for (int fd : fds)
            if (fd >= 0) close(fd);
        try {
            sendFailed(socket, std::string("peer: ") + e.what());
        } catch (...) {
        }
        std::fprintf(stderr, "interop_image_peer: %s\n", e.what());
        return 1;
    }
}
