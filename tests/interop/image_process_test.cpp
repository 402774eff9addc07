// Shared images across processes: this process runs the session (on a VkDevice of its own,
// wrapped) and a helper process (interop_image_peer, fork + exec) is the renderer. The images
// (one input and one output per frame slot) are made here and exported; their fds travel
// over a Unix socket with SCM_RIGHTS; the peer imports them on its own device, draws each
// frame, and checks each output against its own Session::run (tests/interop/image_peer/
// image_peer.cpp). Synchronization as the devices allow (examples/cross_process/
// image_protocol.h HandoffSync): timeline semaphores shared by fd where both can export and import
// them (the H200: each queue waits for the other's on the GPU, the socket only says "submitted"),
// the host wait otherwise (lavapipe, which shares no semaphore: each side waits for its own fence
// and then says "done"). Here on lavapipe only the host wait runs; on the H200 the first test
// takes the semaphores and a second one forces the host wait there.
// Checked: many frames with two in flight, exact-to-float16 outputs, fds flat on both sides,
// zero validation messages on both; and when either process goes away first, the other gets
// an error naming what happened instead of hanging.
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <vkinfer/interop.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <thread>

#include "cross_process/image_protocol.h"
#include "cross_process/timeline_fd.h"
#include "interop/support/host_vulkan.h"
#include "interop/support/shared_util.h"
#include "support/gpu_context.h"
#include "support/small_models.h"

extern char** environ;

namespace vkinfer::testing {
namespace {

using namespace vkinfer::crossprocess;
using hostvk::HostVulkan;

constexpr uint32_t W = 8, H = 8, kSlots = 2;  // the affine model's 8x8

std::string describeExit(int status) {
    if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return "was killed by signal " + std::to_string(WTERMSIG(status));
    return "ended (status " + std::to_string(status) + ")";
}

// The peer process on one end of a socketpair (its fd 3), reaped with a deadline.
struct Peer {
    pid_t pid = -1;
    int socket = -1;
    Peer() {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) throw std::runtime_error("socketpair");
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, sv[1], 3);
        posix_spawn_file_actions_addclosefrom_np(&actions, 4);  // image fds travel by the socket only
        // VKINFER_INTEROP_IMAGE_PEER in the environment: the helper where the build path is not
        // (the GPU machine's bundle, scripts/interop_images_bench.sh).
        const char* moved = std::getenv("VKINFER_INTEROP_IMAGE_PEER");
        std::string path = moved ? moved : VKINFER_INTEROP_IMAGE_PEER, arg = "3";
        char* argv[] = {path.data(), arg.data(), nullptr};
        int rc = posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, environ);
        posix_spawn_file_actions_destroy(&actions);
        close(sv[1]);
        if (rc != 0) {
            close(sv[0]);
            throw std::runtime_error("posix_spawn " + path + ": " + std::strerror(rc));
        }
        socket = sv[0];
        timeval timeout{120, 0};  // never hang on a stuck peer
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    }
    // Waits up to `seconds` for the peer to end (then kills it); its status.
    int reap(int seconds = 60) {
        if (socket >= 0) close(socket), socket = -1;
        int status = 0;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
        while (pid > 0 && waitpid(pid, &status, WNOHANG) == 0) {
            if (std::chrono::steady_clock::now() > deadline) {
                kill(pid, SIGKILL);
                waitpid(pid, &status, 0);
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        pid = -1;
        return status;
    }
    ~Peer() {
        if (pid > 0) reap(5);
    }
};

// The session's side: its own device, the images it exports, and the frame loop.
class SessionSide {
public:
    // wanted: TimelineSemaphores takes them where both sides can share them (else the host wait).
    explicit SessionSide(HandoffSync wanted = TimelineSemaphores) : host_(hostOptions()) {
        auto c = wrapHostDevice(host_.hostDevice());
        if (!c.ok()) throw std::runtime_error(c.status().toString());
        ctx_.emplace(std::move(c).value());
        SessionOptions so;
        so.framesInFlight = kSlots;
        auto s = Session::create(*ctx_, affineModel(), so);
        if (!s.ok()) throw std::runtime_error(s.status().toString());
        session_.emplace(std::move(s).value());
        SharedImageDesc in{VK_FORMAT_R8G8B8A8_UNORM, W, H, VK_IMAGE_TILING_OPTIMAL,
                           VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                           MemoryHandleType::OpaqueFd};
        SharedImageDesc out{VK_FORMAT_R16G16B16A16_SFLOAT, W, H, VK_IMAGE_TILING_OPTIMAL,
                            VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT, MemoryHandleType::OpaqueFd};
        auto make = [&](const SharedImageDesc& d) {
            auto img = createSharedImage(*ctx_, d);
            if (!img.ok()) throw std::runtime_error(img.status().toString());
            return std::move(img).value();
        };
        for (uint32_t k = 0; k < kSlots; ++k) {
            inputs_.push_back(make(in));
            outputs_.push_back(make(out));
        }
        timeline_ = wanted == TimelineSemaphores && semaphoresShareable();
    }

    // vkinfer's extensions (VK_KHR_external_semaphore_fd among them, where offered) on the
    // host's device, as on the peer's.
    static hostvk::HostOptions hostOptions() {
        hostvk::HostOptions ho;
        ho.useRequirements = true;
        return ho;
    }
    // Timeline semaphores as opaque fds, exported here and imported by the peer (the same
    // physical device and driver answer for both).
    bool semaphoresShareable() const {
        auto caps = queryInteropCapabilities(*ctx_);
        const bool enabled = std::find(host_.extensions.begin(), host_.extensions.end(),
                                       VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME) != host_.extensions.end();
        return enabled && caps.exportTimelineSemaphoreFd && caps.importTimelineSemaphoreFd;
    }
    bool timeline() const { return timeline_; }

    bool sharable() const {
        auto caps = queryInteropCapabilities(*ctx_);
        return caps.exportMemoryOpaqueFd && caps.importMemoryOpaqueFd;
    }

    // Setup and the 2 * kSlots image fds (closed here once sent: the peer has its copies).
    void sendImages(int socket, uint32_t frames) {
        Setup setup;
        std::memcpy(setup.deviceUuid, ctx_->device().deviceUuid.data(), 16);
        setup.width = W;
        setup.height = H;
        setup.slots = kSlots;
        setup.frames = frames;
        setup.outputWidth = W;  // the affine model keeps the size
        setup.outputHeight = H;
        setup.sync = timeline_ ? TimelineSemaphores : HostWait;
        shared::sendAll(socket, &setup, sizeof(setup));
        for (uint32_t k = 0; k < kSlots; ++k)
            for (int output = 0; output < 2; ++output) {
                auto m = exportImageMemory(output ? outputs_[k] : inputs_[k]);
                if (!m.ok()) throw std::runtime_error(m.status().toString());
                ImageMemory im{m->allocationSize, m->memoryTypeIndex, uint32_t(output)};
                shared::sendWithFd(socket, &im, sizeof(im), m->fd);
                close(m->fd);
            }
        if (timeline_) {
            rendered_ = crossprocess::createExportableTimeline(host_.device);
            inferred_ = crossprocess::createExportableTimeline(host_.device);
            for (uint32_t which = 0; which < 2; ++which) {
                int fd = crossprocess::exportSemaphoreFd(host_.device, which ? inferred_ : rendered_);
                SemaphoreFd sf{which};
                shared::sendWithFd(socket, &sf, sizeof(sf), fd);
                close(fd);
            }
        }
    }

    // Receives the next message; a closed socket names the peer's fate.
    Message receive(Peer& peer, const std::string& waitingFor) {
        Message m;
        try {
            shared::receiveAll(peer.socket, &m, sizeof(m));
        } catch (const std::exception& e) {
            // The socket closes as the process dies, a moment before it can be reaped: give it
            // up to 2 s (50 ms was too little on a loaded machine) before calling it alive.
            int status = 0;
            pid_t done = 0;
            for (int i = 0; i < 200 && done != peer.pid; ++i) {
                done = waitpid(peer.pid, &status, WNOHANG);
                if (done != peer.pid) std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
            std::string fate = done == peer.pid ? "the renderer process " + describeExit(status)
                                                : std::string("the renderer process is still running");
            if (done == peer.pid) peer.pid = -1;
            throw std::runtime_error(fate + " while waiting for " + waitingFor + " (" + e.what() + ")");
        }
        if (m.kind == Failed) {
            std::string text(m.textBytes, '\0');
            shared::receiveAll(peer.socket, text.data(), text.size());
            throw std::runtime_error("the renderer process failed: " + text);
        }
        return m;
    }

    // Infers frame n (slot n % kSlots) from the peer's input image into its output image.
    void submit(uint32_t n) {
        const uint32_t k = n % kSlots;
        RecordIO io;
        io.frame = k;
        ImageInput in;
        in.image = inputs_[k].image();
        // Acquired from the peer's release (TRANSFER_SRC -> SHADER_READ_ONLY); kept afterwards:
        // the peer's next draw discards the contents.
        in.before = {VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0, VK_QUEUE_FAMILY_EXTERNAL};
        in.after = {VK_IMAGE_LAYOUT_SHADER_READ_ONLY_OPTIMAL, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0};
        io.imageInputs.push_back({"x", in});
        ImageOutput out;
        out.image = outputs_[k].image();
        out.before = {VK_IMAGE_LAYOUT_UNDEFINED};
        out.after = {VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, 0,
                     VK_QUEUE_FAMILY_EXTERNAL};
        io.imageOutputs.push_back({"y", out});
        cmds_[k] = host_.beginReused(cmds_[k]);
        Status s = recordInference(*session_, cmds_[k], io);
        if (!s.ok()) throw std::runtime_error(s.toString());
        if (!timeline_) {
            fences_[k] = host_.submit({cmds_[k]});
            return;
        }
        // On the GPU: after the peer's "rendered" reaches n + 1; signals "inferred" = n + 1.
        if (vkEndCommandBuffer(cmds_[k]) != VK_SUCCESS) throw std::runtime_error("vkEndCommandBuffer");
        VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        if (vkCreateFence(host_.device, &fi, nullptr, &fences_[k]) != VK_SUCCESS) throw std::runtime_error("vkCreateFence");
        crossprocess::submitWithTimelines(host_.queue, cmds_[k], fences_[k], rendered_, n + 1, inferred_, n + 1);
    }
    void wait(uint32_t n) {
        VkFence& f = fences_[n % kSlots];
        if (f) host_.wait(f), f = VK_NULL_HANDLE;
    }
    void sendInferred(int socket, uint32_t n) {
        Message m;
        m.kind = Inferred;
        m.frame = n;
        shared::sendAll(socket, &m, sizeof(m));
    }

    // Runs `frames` frames with the peer; returns its Done message.
    // vkinfer's device memory on this side, after frame 8 and at the end of run().
    uint64_t memoryEarly = 0, memoryLate = 0;

    Message run(Peer& peer, uint32_t frames, int* fdsEarly) {
        sendImages(peer.socket, frames);
        for (uint32_t n = 0; n < frames; ++n) {
            Message r = receive(peer, "frame " + std::to_string(n) + "'s rendering");
            if (r.kind != Rendered || r.frame != n) throw std::runtime_error("out of order: " + std::to_string(r.frame));
            if (timeline_) {
                wait(n);  // frame n - kSlots: this slot's command buffer is free
                submit(n);
                sendInferred(peer.socket, n);  // submitted: the peer's queue waits on "inferred"
            } else {
                submit(n);  // frame n - kSlots in this slot was waited when frame n - 1 was submitted
                if (n >= 1) {
                    wait(n - 1);
                    sendInferred(peer.socket, n - 1);
                }
            }
            if (n == 8 && fdsEarly) *fdsEarly = shared::openFdCount();
            if (n == 8) memoryEarly = ctx_->memoryStats().current.total();
        }
        if (frames > 0 && !timeline_) {
            wait(frames - 1);
            sendInferred(peer.socket, frames - 1);
        }
        memoryLate = ctx_->memoryStats().current.total();
        return receive(peer, "the renderer's result");
    }

    std::vector<std::string> finish() {
        for (uint32_t k = 0; k < kSlots; ++k) wait(k);
        vkDeviceWaitIdle(host_.device);
        auto destroy = [&](VkSemaphore& sem) {
            if (sem) vkDestroySemaphore(host_.device, sem, nullptr), sem = VK_NULL_HANDLE;
        };
        destroy(rendered_);
        destroy(inferred_);
        session_.reset();
        inputs_.clear();
        outputs_.clear();
        return host_.log().take();
    }

private:
    HostVulkan host_;
    std::optional<Context> ctx_;
    std::optional<Session> session_;
    std::vector<SharedImage> inputs_, outputs_;
    VkCommandBuffer cmds_[kSlots] = {};
    VkFence fences_[kSlots] = {};
    bool timeline_ = false;
    VkSemaphore rendered_ = VK_NULL_HANDLE, inferred_ = VK_NULL_HANDLE;  // the semaphore path's
};

uint32_t framesToRun() {
    // 1000 as the issue asks; VKINFER_IMAGE_PEER_FRAMES shortens it for a quick local run.
    if (const char* v = std::getenv("VKINFER_IMAGE_PEER_FRAMES")) return static_cast<uint32_t>(std::atoi(v));
    return 1000;
}

// The whole run with the peer, synchronized as `wanted` (or the host wait where the devices
// cannot share semaphores; `skipUnlessTimeline`: skipped then instead).
void runWithPeer(HandoffSync wanted, bool skipUnlessTimeline = false) {
    const int fdsBefore = shared::openFdCount();
    int fdsEarly = -1;
    Message done;
    std::vector<std::string> messages;
    int status = 0;
    {
        SessionSide side(wanted);
        if (!side.sharable()) GTEST_SKIP() << "no opaque-fd memory export and import here";
        if (skipUnlessTimeline && !side.semaphoresShareable())
            GTEST_SKIP() << "no timeline semaphores shared by fd here: the host wait ran in the test above";
        std::printf("synchronization: %s\n", side.timeline() ? "timeline semaphores shared by fd" : "host wait");
        ::testing::Test::RecordProperty("sync", side.timeline() ? "timeline semaphores" : "host wait");
        Peer peer;
        const uint32_t frames = framesToRun();
        ASSERT_NO_THROW(done = side.run(peer, frames, &fdsEarly));
        status = peer.reap();
        EXPECT_EQ(side.memoryEarly, side.memoryLate) << "this side's device memory grew over the frames";
        EXPECT_GT(side.memoryLate, 0u);
        messages = side.finish();
        EXPECT_EQ(done.kind, Done);
        EXPECT_EQ(done.frame, frames);
    }
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << describeExit(status);
    // Float16 outputs of values in [1, 3]: within half a step of 2^-9.
    EXPECT_LE(done.worst, 2.0f / 1024.0f) << "largest difference from the peer's Session::run";
    // (Fewer late than early is no leak: NVIDIA's driver holds one more while frames are in flight.)
    EXPECT_LE(done.fdsLate, done.fdsEarly) << "the peer's fds grew over the frames";
    EXPECT_EQ(done.memoryEarly, done.memoryLate) << "the peer's device memory grew over the frames";
    EXPECT_GE(fdsEarly, 0);
    EXPECT_EQ(shared::openFdCount(), fdsBefore) << "this process's fds after everything is gone";
    EXPECT_TRUE(messages.empty()) << ::testing::PrintToString(messages);
}

// Timeline semaphores where both devices share them (the H200), the host wait otherwise (lavapipe).
TEST(ImageProcess, RendererProcessFeedsAndChecksTheSession) {
    VKINFER_REQUIRE_GPU();
    runWithPeer(TimelineSemaphores);
}

// The host wait forced where the test above took the semaphores (skipped where it did not).
TEST(ImageProcess, RendererProcessWithTheHostWaitWhereSemaphoresExist) {
    VKINFER_REQUIRE_GPU();
    runWithPeer(HostWait, /*skipUnlessTimeline=*/true);
}

// The two tests below are about the socket: they run the host wait everywhere. (On the
// semaphore path a process killed between submitting a signal and its execution could leave
// the other's GPU wait pending, which no socket can name.)
TEST(ImageProcess, RendererGoingAwayIsNamedNotAHang) {
    VKINFER_REQUIRE_GPU();
    SessionSide side(HostWait);
    if (!side.sharable()) GTEST_SKIP() << "no opaque-fd memory export and import here";
    Peer peer;
    side.sendImages(peer.socket, 1000);
    for (uint32_t n = 0; n < 3; ++n) {
        Message r = side.receive(peer, "a rendering");
        ASSERT_EQ(r.kind, Rendered);
        side.submit(n);
        if (n >= 1) side.wait(n - 1), side.sendInferred(peer.socket, n - 1);
    }
    kill(peer.pid, SIGKILL);
    auto start = std::chrono::steady_clock::now();
    std::string error;
    try {
        for (int i = 0; i < 10; ++i) side.receive(peer, "the next rendering");
    } catch (const std::exception& e) {
        error = e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30)) << "no hang";
    EXPECT_NE(error.find("killed by signal 9"), std::string::npos) << error;
    auto messages = side.finish();
    EXPECT_TRUE(messages.empty()) << ::testing::PrintToString(messages);
}

TEST(ImageProcess, SessionGoingAwayEndsTheRendererWithAReason) {
    VKINFER_REQUIRE_GPU();
    int status = 0;
    {
        SessionSide side(HostWait);
        if (!side.sharable()) GTEST_SKIP() << "no opaque-fd memory export and import here";
        Peer peer;
        side.sendImages(peer.socket, 1000);
        Message r = side.receive(peer, "the first rendering");
        ASSERT_EQ(r.kind, Rendered);
        close(peer.socket);  // this side goes away: the peer must notice, not wait forever
        peer.socket = -1;
        auto start = std::chrono::steady_clock::now();
        status = peer.reap(30);
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30)) << "no hang";
        side.finish();
    }
    // Exit status 3: "the session's process closed the socket while this one waited for ..."
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3) << describeExit(status);
}

}  // namespace
}  // namespace vkinfer::testing
