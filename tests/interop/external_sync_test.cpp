// External fences, per-ticket binary semaphores and the synchronization path chosen from the
// capabilities (interop.h: chooseSyncPaths, exportFence, importWaitFence,
// exportSignalSemaphore). The choice is tested from described capability sets without a GPU;
// on a device, a second VkDevice (the "host", tests/interop/support/shared_util.h) reads the
// engine's output memory after waiting the way InteropCapabilities::signalPath says: timeline
// semaphore, binary semaphore, or on the host (lavapipe).
#include <poll.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <vkinfer/interop.h>

#include <algorithm>
#include <cstring>

#include "interop/support/shared_util.h"
#include "support/gpu_context.h"
#include "support/small_models.h"

namespace vkinfer::testing {
namespace {

using namespace shared;

// --- the choice, from descriptions --------------------------------------------------------

InteropCapabilities described(bool timeline, bool timelineFd, bool binaryFd, bool fenceSync, bool fenceOpaque) {
    InteropCapabilities c;
    c.timelineSemaphore = timeline;
    c.exportTimelineSemaphoreFd = c.importTimelineSemaphoreFd = timelineFd;
    c.exportBinarySemaphoreFd = c.importBinarySemaphoreFd = binaryFd;
    c.exportFenceSyncFd = c.importFenceSyncFd = fenceSync;
    c.exportFenceOpaqueFd = c.importFenceOpaqueFd = fenceOpaque;
    return c;
}

TEST(SyncPaths, EverythingOfferedPicksTimelinesAndSyncFds) {
    // What an NVIDIA driver reports (the H200).
    auto c = chooseSyncPaths(described(true, true, true, true, true));
    EXPECT_EQ(c.signalPath, SyncPath::TimelineSemaphore);
    EXPECT_EQ(c.waitPath, SyncPath::TimelineSemaphore);
    EXPECT_EQ(c.fenceExport, FenceHandleType::SyncFd);
    EXPECT_EQ(c.fenceImport, FenceHandleType::SyncFd);
}

TEST(SyncPaths, BinarySemaphoresWhereTimelinesDoNotExport) {
    auto c = chooseSyncPaths(described(true, false, true, false, true));
    EXPECT_EQ(c.signalPath, SyncPath::BinarySemaphore);
    EXPECT_EQ(c.waitPath, SyncPath::BinarySemaphore);
    EXPECT_EQ(c.fenceExport, FenceHandleType::OpaqueFd) << "opaque fds where sync fds are not offered";
    EXPECT_EQ(c.fenceImport, FenceHandleType::OpaqueFd);
}

TEST(SyncPaths, TimelineFdsWithoutTheFeatureAreNotATimelinePath) {
    // The session's semaphore is a timeline only with the feature enabled.
    auto c = chooseSyncPaths(described(false, true, true, false, false));
    EXPECT_EQ(c.signalPath, SyncPath::BinarySemaphore);
    EXPECT_EQ(c.waitPath, SyncPath::BinarySemaphore);
}

TEST(SyncPaths, HostWaitWhereNothingIsShareable) {
    // What lavapipe reports: timelines, no external semaphores or fences.
    auto c = chooseSyncPaths(described(true, false, false, false, false));
    EXPECT_EQ(c.signalPath, SyncPath::HostWait);
    EXPECT_EQ(c.waitPath, SyncPath::HostWait);
    EXPECT_EQ(c.fenceExport, FenceHandleType::None);
    EXPECT_EQ(c.fenceImport, FenceHandleType::None);
    EXPECT_STREQ(syncPathName(c.signalPath), "host wait");
}

TEST(SyncPaths, ExportAndImportAreChosenApart) {
    InteropCapabilities d = described(true, false, false, false, false);
    d.exportTimelineSemaphoreFd = true;  // exports, cannot import
    d.importBinarySemaphoreFd = true;
    d.importFenceSyncFd = true;
    auto c = chooseSyncPaths(d);
    EXPECT_EQ(c.signalPath, SyncPath::TimelineSemaphore);
    EXPECT_EQ(c.waitPath, SyncPath::BinarySemaphore);
    EXPECT_EQ(c.fenceExport, FenceHandleType::None);
    EXPECT_EQ(c.fenceImport, FenceHandleType::SyncFd);
}

// --- on a device ------------------------------------------------------------------------

Tensor frameInput(int k) {
    Tensor t(DataType::Float32, {1, 4, 8, 8});
    for (int64_t i = 0; i < t.elementCount(); ++i) t.as<float>()[i] = static_cast<float>((i + 5 * k) % 13) - 6.0f;
    return t;
}

// The affine model's CPU reference: relu(2x + 1), exact in float32.
std::vector<std::byte> expectedBytes(const Tensor& x) {
    Tensor y(DataType::Float32, x.shape());
    for (int64_t i = 0; i < x.elementCount(); ++i) y.as<float>()[i] = std::max(x.as<float>()[i] * 2.0f + 1.0f, 0.0f);
    return {y.data(), y.data() + y.byteSize()};
}

std::vector<std::byte> bytesOf(const Tensor& t) { return {t.data(), t.data() + t.byteSize()}; }

Session makeSession(const Context& ctx, SessionOptions opts = {}) {
    auto s = Session::create(ctx, affineModel(), opts);
    if (!s.ok()) throw std::runtime_error(s.status().toString());
    return std::move(s).value();
}

bool mentions(const Status& s, const std::string& text) { return s.message().find(text) != std::string::npos; }

std::string joined(const std::vector<std::string>& messages) {
    std::string s;
    for (const auto& m : messages) s += m + "\n";
    return s;
}

TEST(ExternalSync, ReportedPathsMatchWhatTheCallsDo) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    InteropCapabilities caps = queryInteropCapabilities(ctx);
    InteropCapabilities again = chooseSyncPaths(caps);
    EXPECT_EQ(caps.signalPath, again.signalPath);
    EXPECT_EQ(caps.waitPath, again.waitPath);
    EXPECT_EQ(caps.fenceExport, again.fenceExport);
    std::printf("signal path: %s, wait path: %s\n", syncPathName(caps.signalPath), syncPathName(caps.waitPath));

    Session session = makeSession(ctx);
    auto ticket = session.submit({{"x", frameInput(1)}});
    ASSERT_TRUE(ticket.ok()) << ticket.status().toString();

    auto timeline = exportTimelineSemaphore(session);
    EXPECT_EQ(timeline.ok(), caps.signalPath == SyncPath::TimelineSemaphore) << timeline.status().toString();
    if (timeline.ok()) close(*timeline);

    auto binary = exportSignalSemaphore(session, *ticket);
    EXPECT_EQ(binary.ok(), caps.exportBinarySemaphoreFd) << binary.status().toString();
    if (binary.ok()) close(*binary);
    if (!binary.ok()) {
        EXPECT_EQ(binary.status().code(), ErrorCode::Unsupported);
        EXPECT_TRUE(mentions(binary.status(), "VK_KHR_external_semaphore_fd") ||
                    mentions(binary.status(), "not exportable"))
            << binary.status().toString();
        EXPECT_TRUE(mentions(binary.status(), "Session::wait")) << "names the fallback: " << binary.status().toString();
    }

    auto fence = exportFence(session, *ticket);
    EXPECT_EQ(fence.ok(), caps.fenceExport != FenceHandleType::None) << fence.status().toString();
    if (fence.ok()) {
        EXPECT_EQ(fence->type, caps.fenceExport);
        if (fence->fd >= 0) close(fence->fd);
    } else {
        EXPECT_EQ(fence.status().code(), ErrorCode::Unsupported);
        EXPECT_TRUE(mentions(fence.status(), "fence")) << fence.status().toString();
        EXPECT_TRUE(mentions(fence.status(), "Session::wait")) << fence.status().toString();
    }
    auto out = session.wait(*ticket);
    ASSERT_TRUE(out.ok()) << out.status().toString();
    EXPECT_EQ(bytesOf((*out)[0].tensor), expectedBytes(frameInput(1)));
}

TEST(ExternalSync, TicketsAreChecked) {
    VKINFER_REQUIRE_GPU();
    Session session = makeSession(gpuContext());
    auto none = exportFence(session, Ticket{});
    EXPECT_EQ(none.status().code(), ErrorCode::InvalidArgument) << none.status().toString();
    auto ticket = session.submit({{"x", frameInput(2)}});
    ASSERT_TRUE(ticket.ok()) << ticket.status().toString();
    auto future = exportSignalSemaphore(session, Ticket{ticket->value + 1, 0});
    EXPECT_EQ(future.status().code(), ErrorCode::InvalidArgument) << future.status().toString();
    EXPECT_TRUE(mentions(future.status(), "was not returned")) << future.status().toString();
    ASSERT_TRUE(session.wait(*ticket).ok());
}

// One round of a fence exported for a ticket and imported back: the next submission waits
// for it on the CPU. Both outputs are exact.
void fenceRoundTrip(Session& session, const InteropCapabilities& caps, int k) {
    auto first = session.submit({{"x", frameInput(k)}});
    ASSERT_TRUE(first.ok()) << first.status().toString();
    if (caps.fenceExport != FenceHandleType::None) {
        auto fence = exportFence(session, *first);
        ASSERT_TRUE(fence.ok()) << fence.status().toString();
        if (fence->type == FenceHandleType::SyncFd && fence->fd >= 0) {
            pollfd p{fence->fd, POLLIN, 0};
            EXPECT_EQ(poll(&p, 1, 20000), 1) << "the sync_file signals once the ticket is done";
        }
        bool importable = fence->type == FenceHandleType::SyncFd ? caps.importFenceSyncFd : caps.importFenceOpaqueFd;
        if (importable) {
            Status s = importWaitFence(session, fence->fd, fence->type);
            ASSERT_TRUE(s.ok()) << s.toString();
        } else if (fence->fd >= 0) {
            close(fence->fd);
        }
    }
    auto second = session.submit({{"x", frameInput(k + 1)}});
    ASSERT_TRUE(second.ok()) << second.status().toString();
    auto b = session.wait(*second);
    auto a = session.wait(*first);
    ASSERT_TRUE(a.ok()) << a.status().toString();
    ASSERT_TRUE(b.ok()) << b.status().toString();
    EXPECT_EQ(bytesOf((*a)[0].tensor), expectedBytes(frameInput(k)));
    EXPECT_EQ(bytesOf((*b)[0].tensor), expectedBytes(frameInput(k + 1)));
}

// Fences exported and imported round after round; where fences cannot be shared, both calls
// refuse and the fd stays the caller's. No fd may stay open per round. The count is taken
// after a first round: a driver may open descriptors of its own on first use (NVIDIA's
// keeps 5 after the first sync-fd export and import; its count then stays flat).
TEST(ExternalSync, FenceRoundTripOrRefusal) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    InteropCapabilities caps = queryInteropCapabilities(ctx);
    SessionOptions opts;
    opts.framesInFlight = 2;
    Session session = makeSession(ctx, opts);

    if (caps.fenceImport == FenceHandleType::None) {
        int fd = dup(0);
        ASSERT_GE(fd, 0);
        Status s = importWaitFence(session, fd, FenceHandleType::SyncFd);
        EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
        EXPECT_TRUE(mentions(s, "before Session::submit")) << "names the fallback: " << s.toString();
        EXPECT_TRUE(fdIsOpen(fd)) << "a refused import leaves the fd to the caller";
        close(fd);
    }
    Status untyped = importWaitFence(session, 0, FenceHandleType::None);
    EXPECT_EQ(untyped.code(), ErrorCode::InvalidArgument) << untyped.toString();

    fenceRoundTrip(session, caps, 3);
    ASSERT_FALSE(HasFatalFailure());
    const int baseline = openFdCount();
    for (int round = 0; round < 16; ++round) {
        fenceRoundTrip(session, caps, 10 + 2 * round);
        ASSERT_FALSE(HasFatalFailure()) << "round " << round;
    }
    EXPECT_EQ(openFdCount(), baseline) << "imported fds belong to Vulkan, which closes them; exported ones we closed";
}

// The handoff a consumer on another VkDevice makes, by the path the capabilities choose:
// frames of inference whose output memory the host device reads after waiting on a timeline
// semaphore, a binary semaphore per ticket, or (lavapipe) Session::wait on the CPU. Exact
// comparison with the CPU reference; no validation message on the host device; no fd left.
TEST(ExternalSync, HandoffFollowsTheChosenSignalPath) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    InteropCapabilities caps = queryInteropCapabilities(ctx);
    const int baseline = openFdCount();
    {
        SessionOptions opts;
        opts.shareableIO = true;
        Session session = makeSession(ctx, opts);
        ASSERT_TRUE(session.prepare().ok());

        HostOptions ho;
        ho.deviceUuid = ctx.device().deviceUuid;
        ho.validate = validationRequestedByEnvironment();
        ho.externalSemaphoreFd = caps.signalPath != SyncPath::HostWait;
        HostGpu host(ho);
        auto exported = exportTensorMemory(session, "y");
        ASSERT_TRUE(exported.ok()) << exported.status().toString();
        HostBuffer y;
        ASSERT_EQ(host.importBuffer(exported->fd, exported->bytes, exported->allocationSize, exported->offset,
                                    exported->memoryTypeIndex, exported->dedicated, &y),
                  VK_SUCCESS);

        VkSemaphore timeline = VK_NULL_HANDLE;
        if (caps.signalPath == SyncPath::TimelineSemaphore) {
            auto fd = exportTimelineSemaphore(session);
            ASSERT_TRUE(fd.ok()) << fd.status().toString();
            timeline = host.importSemaphoreFd(*fd, true);
        }
        for (int k = 0; k < 6; ++k) {
            auto ticket = session.submit({{"x", frameInput(k)}});
            ASSERT_TRUE(ticket.ok()) << ticket.status().toString();
            VkSemaphore binary = VK_NULL_HANDLE;
            switch (caps.signalPath) {
                case SyncPath::TimelineSemaphore: host.waitBeforeNextSubmit(timeline, ticket->value); break;
                case SyncPath::BinarySemaphore: {
                    auto fd = exportSignalSemaphore(session, *ticket);
                    ASSERT_TRUE(fd.ok()) << fd.status().toString();
                    binary = host.importSemaphoreFd(*fd, false);
                    host.waitBeforeNextSubmit(binary);
                    break;
                }
                case SyncPath::HostWait: ASSERT_TRUE(session.wait(*ticket).ok()); break;
            }
            auto got = host.read(y, 0, exported->bytes);
            EXPECT_EQ(got, expectedBytes(frameInput(k))) << "frame " << k << " by " << syncPathName(caps.signalPath);
            if (binary) host.destroy(binary);
        }
        if (timeline) host.destroy(timeline);
        host.destroy(y);
        auto messages = host.shutdown();
        EXPECT_TRUE(messages.empty()) << joined(messages);
    }
    EXPECT_EQ(openFdCount(), baseline);
}

}  // namespace
}  // namespace vkinfer::testing
