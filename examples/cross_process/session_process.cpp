// Shared images across processes: this process runs a vkinfer session; a renderer process it
// starts (example_cross_process_renderer, fork + exec) draws into images this process made and
// reads the results, all through memory shared by file descriptor.
//
//   example_cross_process data/espcn_x2 [FRAMES]
//
// This process (the session's):
//   1. creates its own Vulkan device and wraps it (wrapHostDevice), creates the session, and
//      per frame slot an input image (RGBA8, optimal tiling, the renderer's color attachment)
//      and an output image (RGBA16F, written by inference) with exportable memory
//      (createSharedImage);
//   2. starts the renderer with one end of a Unix socket pair and sends it the images' memory
//      as fds (exportImageMemory; SCM_RIGHTS) and, where the device can share them, two
//      timeline semaphores as fds: "rendered" (the renderer signals n + 1 when frame n is
//      drawn) and "inferred" (this process signals n + 1 when frame n's output is written);
//   3. per frame: once told the frame is rendered, records inference from the input image into
//      the output image (recordInference: the acquire from and release to
//      VK_QUEUE_FAMILY_EXTERNAL are in it) and submits it, waiting on "rendered" on the GPU.
// The renderer (renderer_process.cpp) imports the images and semaphores into a Vulkan device
// of its own on the same GPU, draws each frame, waits for inference, reads the output image
// and compares it with its own Session::run of the pixels it drew.
//
// Synchronization, chosen from what the device can share (queryInteropCapabilities):
//   timeline semaphores (the H200): each queue waits on the other's semaphore; the socket
//     only carries "frame n submitted" so that neither side's CPU waits for the other's GPU;
//   the host wait (lavapipe, which shares no semaphore): each side waits for its own fence and
//     then says "frame n done" over the socket.
// VKINFER_CROSS_PROCESS_SYNC=host forces the host wait where semaphores would work.
//
// Two frames are in flight: the renderer draws frame n + 1 while frame n is inferred.
// Exits 0 when every value of every frame's output is within two float16 steps of
// Session::run (the output image is RGBA16F, its conversion may round either way, and the
// two paths' float32 results differ in their last bits: |got - want| <= 4 (2^-11 |want| + 1e-5);
// the renderer's "worst" is the largest difference in units of 2^-11 |want| + 1e-5, half a
// step; 1.8 on lavapipe, while a 1/255 change of one input channel shows as over 80),
// both processes report zero validation messages (VKINFER_VALIDATE=1: validation with
// synchronization validation in both), and the renderer's fds and device memory stay flat.
// If either process goes away first, the other fails with a message that names what happened.
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vkinfer/interop.h>
#include <vkinfer/vkinfer.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fd_socket.h"
#include "image_protocol.h"
#include "vulkan_device.h"

using namespace vkinfer;
using namespace vkinfer::crossprocess;

namespace {

constexpr uint32_t W = 32, H = 24, kSlots = 2;
constexpr float kTolerance = 4.0f;  // in units of half a float16 step (renderer_process.cpp)

// The renderer binary sits next to this one.
std::string rendererPath() {
    char self[PATH_MAX] = {};
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) throw std::runtime_error("cannot read /proc/self/exe");
    std::string path(self, size_t(n));
    return path.substr(0, path.rfind('/') + 1) + "example_cross_process_renderer";
}

// The renderer process: started with the socket, reaped with a deadline (never a hang).
struct Renderer {
    fdsocket::SpawnedProcess process;
    explicit Renderer(const std::string& modelDir) {
        process = fdsocket::spawnWithSocket(rendererPath(), {"3", modelDir});
        timeval timeout{120, 0};  // a stuck renderer ends in an error, not a hang
        setsockopt(process.socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    }
    // Closes the socket, waits up to `seconds` for the renderer to end (then kills it).
    int reap(int seconds) {
        if (process.socket >= 0) close(process.socket), process.socket = -1;
        int status = 0;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
        while (process.pid > 0 && waitpid(process.pid, &status, WNOHANG) == 0) {
            if (std::chrono::steady_clock::now() > deadline) {
                kill(process.pid, SIGKILL);
                waitpid(process.pid, &status, 0);
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        process.pid = -1;
        return status;
    }
    ~Renderer() {
        if (process.pid > 0) reap(5);
    }

    void send(const Message& m) {
        try {
            fdsocket::sendAll(process.socket, &m, sizeof(m));
        } catch (const std::exception& e) {
            throw std::runtime_error(fate() + " before this process could send a message (" + e.what() + ")");
        }
    }
    // The next message; a closed socket names the renderer's fate, a Failed one its reason.
    Message receive(const std::string& waitingFor) {
        Message m;
        try {
            fdsocket::receiveAll(process.socket, &m, sizeof(m));
        } catch (const std::exception& e) {
            throw std::runtime_error(fate() + " while this process waited for " + waitingFor + " (" + e.what() + ")");
        }
        if (m.kind == Failed) {
            std::string text(m.textBytes, '\0');
            fdsocket::receiveAll(process.socket, text.data(), text.size());
            throw std::runtime_error("the renderer process failed: " + text);
        }
        return m;
    }
    std::string fate() {
        int status = 0;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        if (process.pid > 0 && waitpid(process.pid, &status, WNOHANG) == process.pid) {
            process.pid = -1;
            return "the renderer process " + fdsocket::describeExit(status);
        }
        return "the renderer process (still running) closed its socket";
    }
};

SharedImage makeImage(const Context& ctx, const SharedImageDesc& desc) {
    auto image = createSharedImage(ctx, desc);
    if (!image.ok()) throw std::runtime_error("createSharedImage: " + image.status().toString());
    return std::move(image).value();
}

void sendImage(int socket, const SharedImage& image, bool output) {
    auto m = exportImageMemory(image);
    if (!m.ok()) throw std::runtime_error("exportImageMemory: " + m.status().toString());
    ImageMemory im{m->allocationSize, m->memoryTypeIndex, output ? 1u : 0u};
    fdsocket::sendWithFd(socket, &im, sizeof(im), m->fd);
    close(m->fd);  // the renderer received its own copy of the descriptor
}

int run(const std::string& modelDir, uint32_t frames) {
    const bool validate = validationRequestedByEnvironment();  // VKINFER_VALIDATE=1
    auto model = Model::load(modelDir + "/model.onnx");
    if (!model.ok()) throw std::runtime_error("loading the model: " + model.status().toString());
    const std::string inputName = model->inputs().at(0).name, outputName = model->outputs().at(0).name;

    VulkanDevice dev("vkinfer cross-process example (session)", validate, nullptr);
    int status = 1;
    {
        auto wrapped = wrapHostDevice(dev.hostDevice());
        if (!wrapped.ok()) throw std::runtime_error("wrapHostDevice: " + wrapped.status().toString());
        Context ctx = std::move(wrapped).value();
        const InteropCapabilities caps = queryInteropCapabilities(ctx);
        if (!caps.exportMemoryOpaqueFd || !caps.importMemoryOpaqueFd)
            throw std::runtime_error("'" + dev.name + "' cannot export and import memory as opaque fds");
        const char* forced = std::getenv("VKINFER_CROSS_PROCESS_SYNC");
        const bool hostWaitForced = forced && std::string(forced) == "host";
        const bool timeline = !hostWaitForced && dev.timelineSemaphoresShareable() && caps.exportTimelineSemaphoreFd &&
                              caps.importTimelineSemaphoreFd;
        std::printf("device: %s; synchronization: %s%s\n", dev.name.c_str(),
                    timeline ? "timeline semaphores shared by fd" : "host wait (fences, then a message)",
                    hostWaitForced ? " (VKINFER_CROSS_PROCESS_SYNC=host)"
                    : timeline     ? ""
                                   : " (the device shares no timeline semaphore)");

        SessionOptions options;
        options.framesInFlight = kSlots;
        auto session = Session::create(ctx, *model, options);
        if (!session.ok()) throw std::runtime_error("creating the session: " + session.status().toString());

        // The renderer draws into the input images and reads the output images: the same
        // descriptions on both sides (an import must match the exporting image).
        const SharedImageDesc inDesc{VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_IMAGE_TILING_OPTIMAL,
                                     VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                                     MemoryHandleType::OpaqueFd};
        const SharedImageDesc outDesc{VK_FORMAT_R16G16B16A16_SFLOAT, 2 * W, 2 * H, VK_IMAGE_TILING_OPTIMAL,
                                      VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                                      MemoryHandleType::OpaqueFd};
        std::vector<SharedImage> inputs, outputs;
        for (uint32_t k = 0; k < kSlots; ++k) {
            inputs.push_back(makeImage(ctx, inDesc));
            outputs.push_back(makeImage(ctx, outDesc));
        }
        VkSemaphore rendered = VK_NULL_HANDLE, inferred = VK_NULL_HANDLE;
        if (timeline) {
            rendered = dev.createExportableTimeline();
            inferred = dev.createExportableTimeline();
        }

        Renderer renderer(modelDir);
        Setup setup;
        std::memcpy(setup.deviceUuid, dev.uuid.data(), 16);
        setup.width = W;
        setup.height = H;
        setup.outputWidth = 2 * W;
        setup.outputHeight = 2 * H;
        setup.slots = kSlots;
        setup.frames = frames;
        setup.sync = timeline ? TimelineSemaphores : HostWait;
        fdsocket::sendAll(renderer.process.socket, &setup, sizeof(setup));
        for (uint32_t k = 0; k < kSlots; ++k) {
            sendImage(renderer.process.socket, inputs[k], false);
            sendImage(renderer.process.socket, outputs[k], true);
        }
        if (timeline)
            for (uint32_t which = 0; which < 2; ++which) {
                int fd = dev.exportSemaphore(which ? inferred : rendered);
                SemaphoreFd s{which};
                fdsocket::sendWithFd(renderer.process.socket, &s, sizeof(s), fd);
                close(fd);
            }

        VkCommandBuffer cmds[kSlots];
        VkFence fences[kSlots];
        bool pending[kSlots] = {};
        for (uint32_t k = 0; k < kSlots; ++k) cmds[k] = dev.allocateCommandBuffer(), fences[k] = dev.createFence();
        auto finish = [&](uint32_t k) {
            if (pending[k]) dev.waitAndReset(fences[k]), pending[k] = false;
        };
        auto sendInferred = [&](uint32_t n) {
            Message m;
            m.kind = Inferred;
            m.frame = n;
            renderer.send(m);
        };

        for (uint32_t n = 0; n < frames; ++n) {
            Message r = renderer.receive("frame " + std::to_string(n) + "'s rendering");
            if (r.kind != Rendered || r.frame != n)
                throw std::runtime_error("expected Rendered " + std::to_string(n) + ", got kind " +
                                         std::to_string(r.kind) + " frame " + std::to_string(r.frame));
            const uint32_t k = n % kSlots;
            finish(k);  // frame n - kSlots: its command buffer and the session's slot are free

            RecordIO io;
            io.frame = k;
            ImageInput in;
            in.image = inputs[k].image();
            // The renderer released it (COLOR_ATTACHMENT -> SHADER_READ_ONLY) to
            // VK_QUEUE_FAMILY_EXTERNAL; vkinfer records the matching acquire. Afterwards it stays
            // as it is: the renderer's next draw into it discards the contents.
            in.before = {VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                         VK_QUEUE_FAMILY_EXTERNAL};
            in.after = {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0};
            io.imageInputs.push_back({inputName, in});
            ImageOutput out;
            out.image = outputs[k].image();
            out.before = {VK_IMAGE_LAYOUT_UNDEFINED};  // every pixel is written
            // Released to the renderer's process, which acquires it for a copy.
            out.after = {VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0,
                         VK_QUEUE_FAMILY_EXTERNAL};
            io.imageOutputs.push_back({outputName, out});

            VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
            bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
            if (vkBeginCommandBuffer(cmds[k], &bi) != VK_SUCCESS) throw std::runtime_error("vkBeginCommandBuffer");
            Status s = recordInference(*session, cmds[k], io);
            if (!s.ok()) throw std::runtime_error("recordInference: " + s.toString());
            if (vkEndCommandBuffer(cmds[k]) != VK_SUCCESS) throw std::runtime_error("vkEndCommandBuffer");
            if (timeline) {
                // The GPU waits for the renderer's "rendered" >= n + 1 and signals "inferred" = n + 1.
                dev.submit(cmds[k], fences[k], rendered, n + 1, inferred, n + 1);
                pending[k] = true;
                sendInferred(n);  // submitted: the renderer's queue waits on the semaphore
            } else {
                dev.submit(cmds[k], fences[k]);
                pending[k] = true;
                if (n >= 1) finish((n - 1) % kSlots), sendInferred(n - 1);  // frame n runs meanwhile
            }
        }
        if (!timeline && frames > 0) finish((frames - 1) % kSlots), sendInferred(frames - 1);
        Message done = renderer.receive("the renderer's result");
        const int rendererStatus = renderer.reap(60);
        for (uint32_t k = 0; k < kSlots; ++k) finish(k);
        vkDeviceWaitIdle(dev.device);

        const bool withinTolerance = done.kind == Done && done.frame == frames && done.worst <= kTolerance;
        // No growth: fewer fds late than early is no leak (NVIDIA's driver holds one more while
        // frames are in flight, at the early count).
        const bool flat = done.fdsLate <= done.fdsEarly && done.memoryEarly == done.memoryLate;
        const bool exited = WIFEXITED(rendererStatus) && WEXITSTATUS(rendererStatus) == 0;
        std::printf("%u frames of %ux%u -> %ux%u, %u in flight: largest difference from the renderer's Session::run "
                    "%.3g half float16 steps (at most %.3g)\n",
                    frames, W, H, 2 * W, 2 * H, kSlots, done.worst, kTolerance);
        std::printf("renderer: fds %d -> %d, vkinfer device memory %llu -> %llu bytes, %s\n", done.fdsEarly,
                    done.fdsLate, static_cast<unsigned long long>(done.memoryEarly),
                    static_cast<unsigned long long>(done.memoryLate), fdsocket::describeExit(rendererStatus).c_str());
        status = withinTolerance && flat && exited ? 0 : 1;
        // The session and images go before the device (VulkanDevice's destructor).
    }
    if (validate) std::printf("validation (session process): %d messages\n", VulkanDevice::validationMessages());
    if (VulkanDevice::validationMessages() > 0) status = 1;
    std::printf("%s\n", status == 0 ? "cross-process: OK" : "cross-process: FAILED");
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s MODEL_DIR [FRAMES]  (an x2 image model with 3 input channels: data/espcn_x2)\n",
                     argv[0]);
        return 2;
    }
    uint32_t frames = 12;
    if (argc == 3) {
        // A count that is not a whole number from 1 up would check nothing and still say OK.
        char* end = nullptr;
        errno = 0;
        const unsigned long n = std::strtoul(argv[2], &end, 10);
        if (end == argv[2] || *end != '\0' || argv[2][0] == '-' || errno != 0 || n == 0 || n > 1000000) {
            std::fprintf(stderr, "example_cross_process: FRAMES must be a whole number from 1 to 1000000 (got '%s')\n",
                         argv[2]);
            return 2;
        }
        frames = static_cast<uint32_t>(n);
    }
    try {
        return run(argv[1], frames);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "example_cross_process: %s\n", e.what());
        std::printf("cross-process: FAILED\n");
        return 1;
    }
}
