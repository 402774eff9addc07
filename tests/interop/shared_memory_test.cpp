// Shared resources (interop.h): tensor memory exported by the engine and imported by a second
// VkDevice (in this process, and in a second process through a Unix socket), memory exported
// by that device and imported by the engine as a model input, fd ownership, capability
// queries and their fallbacks, and per-frame-slot shared memory with frames in flight.
//
// The "host" is a second VkInstance + VkDevice created here on the engine's physical device
// (matched by UUID), with the validation layer and synchronization validation when
// VKINFER_VALIDATE=1; every message on it fails the test, as on the engine's own context.
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>
#include <vkinfer/interop.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cli_runner.h"
#include "interop/support/shared_util.h"
#include "support/gpu_context.h"
#include "support/onnx_builder.h"
#include "support/small_models.h"

extern char** environ;

namespace vkinfer::testing {
namespace {

using namespace shared;


constexpr VkDeviceSize kAffineBytes = 1 * 4 * 8 * 8 * sizeof(float);

Tensor frameInput(int k) {
    Tensor t(DataType::Float32, {1, 4, 8, 8});
    for (int64_t i = 0; i < t.elementCount(); ++i) t.as<float>()[i] = static_cast<float>((i + 7 * k) % 17) - 8.0f;
    return t;
}

Tensor affineOf(const Tensor& x) {
    Tensor y(DataType::Float32, x.shape());
    for (int64_t i = 0; i < x.elementCount(); ++i) y.as<float>()[i] = std::max(x.as<float>()[i] * 2.0f + 1.0f, 0.0f);
    return y;
}

std::vector<std::byte> bytesOf(const Tensor& t) { return {t.data(), t.data() + t.byteSize()}; }

HostOptions hostFor(const Context& ctx) {
    HostOptions o;
    o.deviceUuid = ctx.device().deviceUuid;
    o.validate = validationRequestedByEnvironment();
    return o;
}

std::string joined(const std::vector<std::string>& messages) {
    std::string s;
    for (const auto& m : messages) s += m + "\n";
    return s;
}

// Destroys the host device and fails on any validation message it reported.
void expectCleanShutdown(HostGpu& host) {
    auto messages = host.shutdown();
    EXPECT_TRUE(messages.empty()) << joined(messages);
}

Session makeSession(const Context& ctx, const Model& model, SessionOptions opts) {
    auto s = Session::create(ctx, model, opts);
    if (!s.ok()) throw std::runtime_error(s.status().toString());
    return std::move(s).value();
}

bool contains(const Status& s, const std::string& text) { return s.message().find(text) != std::string::npos; }

// Imports what the engine exported into the host device (the engine's memory type, a
// dedicated allocation of a buffer of the tensor's size, as the export says).
HostBuffer importExported(HostGpu& host, const ExportedMemory& m) {
    HostBuffer b;
    VkResult r = host.importBuffer(m.fd, m.bytes, m.allocationSize, m.offset, m.memoryTypeIndex, m.dedicated, &b);
    if (r != VK_SUCCESS) throw std::runtime_error("host import failed: VkResult " + std::to_string(r));
    return b;
}

// --- (a) the engine's output memory, imported by a second VkDevice ---------------------

TEST(SharedMemory, EngineOutputReadByHostDevice) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    const int baseline = openFdCount();
    {
        SessionOptions opts;
        opts.shareableIO = true;
        Session session = makeSession(ctx, affineModel(), opts);
        ASSERT_TRUE(session.prepare().ok());
        auto out = session.run({{"x", frameInput(3)}});
        ASSERT_TRUE(out.ok()) << out.status().toString();
        ASSERT_EQ(bytesOf((*out)[0].tensor), bytesOf(affineOf(frameInput(3))));

        HostGpu host(hostFor(ctx));
        const int beforeExport = openFdCount();
        auto exported = exportTensorMemory(session, "y");
        ASSERT_TRUE(exported.ok()) << exported.status().toString();
        EXPECT_EQ(openFdCount(), beforeExport + 1) << "an export is one new descriptor, the caller's";
        EXPECT_TRUE(fdIsOpen(exported->fd));
        EXPECT_EQ(exported->type, MemoryHandleType::OpaqueFd);
        EXPECT_EQ(exported->bytes, kAffineBytes);
        EXPECT_EQ(exported->offset, 0u);
        EXPECT_GE(exported->allocationSize, exported->bytes);
        EXPECT_TRUE(exported->dedicated);
        EXPECT_TRUE(exported->memoryTypeBits & (1u << exported->memoryTypeIndex));
        EXPECT_EQ(exported->deviceUuid, ctx.device().deviceUuid);

        HostBuffer shared = importExported(host, *exported);  // the fd is Vulkan's now: not closed here
        EXPECT_EQ(host.read(shared, 0, exported->bytes), bytesOf((*out)[0].tensor));

        // The same memory, not a snapshot: the next run's output shows through the import.
        auto out2 = session.run({{"x", frameInput(5)}});
        ASSERT_TRUE(out2.ok()) << out2.status().toString();
        EXPECT_EQ(host.read(shared, 0, exported->bytes), bytesOf(affineOf(frameInput(5))));

        host.destroy(shared);  // frees the imported memory: Vulkan closes the fd (if not at import)
        EXPECT_EQ(openFdCount(), beforeExport) << "the imported fd was closed with the host's memory";
        expectCleanShutdown(host);
    }
    EXPECT_EQ(openFdCount(), baseline) << "no descriptor outlives the session and the host device";
}

// An exported fd the caller does not hand to anyone is closed by the caller.
TEST(SharedMemory, ExportedFdIsTheCallers) {
    VKINFER_REQUIRE_GPU();
    const int baseline = openFdCount();
    {
        SessionOptions opts;
        opts.shareableIO = true;
        Session session = makeSession(gpuContext(), affineModel(), opts);
        // A first run creates the frame slot (its exportable memory may hold descriptors of
        // its own, the implementation's).
        ASSERT_TRUE(session.run({{"x", frameInput(0)}}).ok());
        const int prepared = openFdCount();
        auto a = exportTensorMemory(session, "y");
        auto b = exportTensorMemory(session, "x");  // inputs are shareable too
        ASSERT_TRUE(a.ok() && b.ok()) << a.status().toString() << b.status().toString();
        EXPECT_NE(a->fd, b->fd);
        EXPECT_EQ(openFdCount(), prepared + 2);
        EXPECT_EQ(close(a->fd), 0);
        EXPECT_EQ(close(b->fd), 0);
        EXPECT_EQ(openFdCount(), prepared);
        // The session still runs after its exported fds were closed.
        auto out = session.run({{"x", frameInput(1)}});
        ASSERT_TRUE(out.ok()) << out.status().toString();
        EXPECT_EQ(bytesOf((*out)[0].tensor), bytesOf(affineOf(frameInput(1))));
    }
    EXPECT_EQ(openFdCount(), baseline);
}

// The bundled ESPCN model: the output memory read by the host holds exactly what run returned,
// which matches the reference output.
TEST(SharedMemory, EspcnOutputThroughHostDevice) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    const std::string dir = VKINFER_DATA_DIR "/espcn_x2";
    auto model = Model::load(dir + "/model.onnx");
    ASSERT_TRUE(model.ok()) << model.status().toString();
    auto data = loadTestDataSet(dir + "/test_data_set_0", *model);
    ASSERT_TRUE(data.ok()) << data.status().toString();
    const int baseline = openFdCount();
    {
        SessionOptions opts;
        opts.shareableIO = true;
        Session session = makeSession(ctx, *model, opts);
        InputShapes shapes;
        for (const auto& in : data->inputs) shapes.emplace_back(in.name, in.tensor.shape());
        ASSERT_TRUE(session.prepare(shapes).ok());
        auto out = session.run(data->inputs);
        ASSERT_TRUE(out.ok()) << out.status().toString();
        auto cmp = compareTensors((*out)[0].tensor, data->outputs[0].tensor);
        EXPECT_TRUE(cmp.pass) << cmp.problem << " mismatches " << cmp.mismatches << " max error " << cmp.maxAbsError;

        HostGpu host(hostFor(ctx));
        auto exported = exportTensorMemory(session, model->outputs()[0].name);
        ASSERT_TRUE(exported.ok()) << exported.status().toString();
        ASSERT_EQ(exported->bytes, (*out)[0].tensor.byteSize());
        HostBuffer shared = importExported(host, *exported);
        EXPECT_EQ(host.read(shared, 0, exported->bytes), bytesOf((*out)[0].tensor));
        host.destroy(shared);
        expectCleanShutdown(host);
    }
    EXPECT_EQ(openFdCount(), baseline);
}

// --- (b) host memory imported by the engine as a model input ------------------------------

TEST(SharedMemory, HostMemoryAsEngineInput) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    const int baseline = openFdCount();
    {
        HostGpu host(hostFor(ctx));
        HostBuffer input = host.createExportable(kAffineBytes);
        host.write(input, frameInput(1).data(), kAffineBytes);
        {
            Session session = makeSession(ctx, affineModel(), {});  // importing needs no shareableIO
            // Importing refers to a prepared plan's buffers.
            ImportedMemory early = opaqueImportOf(host.exportFd(input), input);
            Status unprepared = importTensorMemory(session, "x", 0, early);
            EXPECT_FALSE(unprepared.ok());
            EXPECT_TRUE(contains(unprepared, "prepare")) << unprepared.message();
            EXPECT_TRUE(fdIsOpen(early.fd)) << "a failed import leaves the fd with the caller";
            close(early.fd);

            ASSERT_TRUE(session.prepare().ok());
            const int beforeImport = openFdCount();
            ImportedMemory memory = opaqueImportOf(host.exportFd(input), input);
            Status imported = importTensorMemory(session, "x", 0, memory);
            ASSERT_TRUE(imported.ok()) << imported.toString();
            // The fd is Vulkan's now: this test never closes it (the session's memory does).
            EXPECT_LE(openFdCount(), beforeImport + 1);

            // The imported input is read in place: giving it to run() is refused (its data
            // would be ignored) ...
            auto refused = session.run({{"x", frameInput(9)}});
            ASSERT_FALSE(refused.ok());
            EXPECT_EQ(refused.status().code(), ErrorCode::InvalidArgument);
            EXPECT_TRUE(contains(refused.status(), "importTensorMemory")) << refused.status().message();
            EXPECT_TRUE(contains(refused.status(), "leave it out")) << refused.status().message();
            // ... and leaving it out runs on the host's data (nothing was uploaded: the
            // engine's staging holds zeros, whose output would be all ones).
            auto out = session.run({});
            ASSERT_TRUE(out.ok()) << out.status().toString();
            EXPECT_EQ(bytesOf((*out)[0].tensor), bytesOf(affineOf(frameInput(1))));

            // The host rewrites its memory; the next run reads the new contents.
            host.write(input, frameInput(2).data(), kAffineBytes);
            auto out2 = session.run({});
            ASSERT_TRUE(out2.ok()) << out2.status().toString();
            EXPECT_EQ(bytesOf((*out2)[0].tensor), bytesOf(affineOf(frameInput(2))));
        }
        host.destroy(input);
        expectCleanShutdown(host);
    }
    EXPECT_EQ(openFdCount(), baseline) << "the imported fd was closed with the session";
}

// Import failures leave the fd with the caller, open, and the session usable.
// Host memory as the engine's OUTPUT: written in place (zero copy), so run() does not copy it
// back or return it; the host reads its own memory after the run.
TEST(SharedMemory, HostMemoryAsEngineOutput) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    const int baseline = openFdCount();
    {
        HostGpu host(hostFor(ctx));
        HostBuffer output = host.createExportable(kAffineBytes);
        {
            Session session = makeSession(ctx, affineModel(), {});
            ASSERT_TRUE(session.prepare().ok());
            ImportedMemory memory = opaqueImportOf(host.exportFd(output), output);
            Status imported = importTensorMemory(session, "y", 0, memory);
            ASSERT_TRUE(imported.ok()) << imported.toString();
            for (int k : {3, 4}) {
                auto out = session.run({{"x", frameInput(k)}});
                ASSERT_TRUE(out.ok()) << out.status().toString();
                EXPECT_TRUE(out->empty()) << "the imported output is not copied back";
                auto bytes = host.read(output, 0, kAffineBytes);
                EXPECT_EQ(bytes, bytesOf(affineOf(frameInput(k)))) << "run " << k;
            }
        }
        host.destroy(output);
        expectCleanShutdown(host);
    }
    EXPECT_EQ(openFdCount(), baseline);
}

TEST(SharedMemory, FailedImportsLeaveTheFdWithTheCaller) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    const int baseline = openFdCount();
    {
        HostGpu host(hostFor(ctx));
        HostBuffer input = host.createExportable(kAffineBytes);
        host.write(input, frameInput(4).data(), kAffineBytes);
        Session session = makeSession(ctx, affineModel(), {});
        // A first run creates the frame slot (a driver may open descriptors of its own then).
        ASSERT_TRUE(session.run({{"x", frameInput(0)}}).ok());
        const int fd = host.exportFd(input);
        const int withFd = openFdCount();
        ImportedMemory good = opaqueImportOf(fd, input);

        struct Case {
            const char* what;
            std::string tensor;
            ImportedMemory memory;
            const char* message;
        };
        ImportedMemory tooSmall = good;
        tooSmall.allocationSize = 16;
        ImportedMemory misaligned = good;
        misaligned.offset = 3;
        ImportedMemory badType = good;
        badType.memoryTypeIndex = 31;
        ImportedMemory dmaBuf = good;
        dmaBuf.type = MemoryHandleType::DmaBuf;
        std::vector<Case> cases = {
            {"unknown tensor", "nope", good, "no input or output named 'nope'"},
            {"allocation too small", "x", tooSmall, "cannot hold"},
            {"misaligned offset", "x", misaligned, "cannot hold"},
            {"memory type the buffer cannot use", "x", badType, "memory type 31"},
        };
        if (!queryInteropCapabilities(ctx).importMemoryDmaBuf) cases.push_back({"dma-buf", "x", dmaBuf, "dma-buf"});
        for (const auto& c : cases) {
            Status s = importTensorMemory(session, c.tensor, 0, c.memory);
            EXPECT_FALSE(s.ok()) << c.what;
            EXPECT_TRUE(contains(s, c.message)) << c.what << ": " << s.message();
            EXPECT_TRUE(fdIsOpen(fd)) << c.what << ": the fd must still be the caller's";
            EXPECT_EQ(openFdCount(), withFd) << c.what;
        }
        Status badFd = importTensorMemory(session, "x", 0, ImportedMemory{-1});
        EXPECT_FALSE(badFd.ok());
        EXPECT_TRUE(contains(badFd, "invalid fd")) << badFd.message();
        Status frame = importTensorMemory(session, "x", 1, good);
        EXPECT_FALSE(frame.ok()) << "frame 1 does not exist with framesInFlight = 1";
        EXPECT_TRUE(fdIsOpen(fd));

        // Nothing was imported: the input is still required and uploaded.
        auto missing = session.run({});
        EXPECT_FALSE(missing.ok());
        EXPECT_TRUE(contains(missing.status(), "input 'x' is missing")) << missing.status().message();
        auto out = session.run({{"x", frameInput(6)}});
        ASSERT_TRUE(out.ok()) << out.status().toString();
        EXPECT_EQ(bytesOf((*out)[0].tensor), bytesOf(affineOf(frameInput(6))));

        // The caller still owns the fd: a later import with it succeeds, then it is Vulkan's.
        ASSERT_TRUE(importTensorMemory(session, "x", 0, good).ok());
        auto out2 = session.run({});
        ASSERT_TRUE(out2.ok()) << out2.status().toString();
        EXPECT_EQ(bytesOf((*out2)[0].tensor), bytesOf(affineOf(frameInput(4))));
        session = Session();  // closes the imported fd
        host.destroy(input);
        expectCleanShutdown(host);
    }
    EXPECT_EQ(openFdCount(), baseline);
}

// --- a second process ------------------------------------------------------------------------

struct PeerRun {
    int exitCode = -1;
    PeerReplyHeader header;
    std::string message;
    std::vector<std::byte> data;
};

// Starts interop_peer with one end of a socketpair as fd 3 (and no other descriptor of ours),
// sends it the exported memory's fd with SCM_RIGHTS, and collects its reply.
PeerRun runPeer(const ExportedMemory& m) {
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) throw std::runtime_error("socketpair failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, sv[1], 3);  // clears close-on-exec on fd 3
    posix_spawn_file_actions_addclosefrom_np(&actions, 4);  // the exported fd must travel by the socket only
    std::string path = VKINFER_INTEROP_PEER, arg = "3";
    char* argv[] = {path.data(), arg.data(), nullptr};
    pid_t pid = -1;
    int rc = posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    close(sv[1]);
    if (rc != 0) {
        close(sv[0]);
        throw std::runtime_error("posix_spawn " + path + " failed: " + std::strerror(rc));
    }
    PeerRun run;
    try {
        timeval timeout{60, 0};  // never hang the test on a stuck peer
        setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
        PeerRequest req;
        std::memcpy(req.deviceUuid, m.deviceUuid.data(), 16);
        req.allocationSize = m.allocationSize;
        req.offset = m.offset;
        req.bytes = m.bytes;
        req.memoryTypeIndex = m.memoryTypeIndex;
        req.dedicated = m.dedicated ? 1 : 0;
        sendWithFd(sv[0], &req, sizeof(req), m.fd);
        receiveAll(sv[0], &run.header, sizeof(run.header));
        run.message.resize(run.header.messageBytes);
        if (!run.message.empty()) receiveAll(sv[0], run.message.data(), run.message.size());
        run.data.resize(run.header.dataBytes);
        if (!run.data.empty()) receiveAll(sv[0], run.data.data(), run.data.size());
    } catch (const std::exception& e) {
        run.message += std::string(" (test side: ") + e.what() + ")";
    }
    close(sv[0]);
    int status = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return run;
}

TEST(SharedProcess, PeerImportsTheExportedOutput) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    const int baseline = openFdCount();
    {
        SessionOptions opts;
        opts.shareableIO = true;
        Session session = makeSession(ctx, affineModel(), opts);
        auto out = session.run({{"x", frameInput(8)}});
        ASSERT_TRUE(out.ok()) << out.status().toString();
        auto exported = exportTensorMemory(session, "y");  // run() prepared the plan
        ASSERT_TRUE(exported.ok()) << exported.status().toString();

        PeerRun peer = runPeer(*exported);
        EXPECT_EQ(peer.exitCode, 0) << peer.message;
        ASSERT_EQ(peer.header.ok, 1u) << peer.message;
        EXPECT_EQ(peer.header.validated, validationRequestedByEnvironment() ? 1u : 0u)
            << "the peer runs validation when VKINFER_VALIDATE=1";
        auto expected = bytesOf((*out)[0].tensor);
        EXPECT_EQ(peer.header.checksum, fnv1a64(expected.data(), expected.size()));
        EXPECT_EQ(peer.data, expected);

        // SCM_RIGHTS gave the peer its own copy: ours is still open and still ours to close.
        EXPECT_TRUE(fdIsOpen(exported->fd));
        EXPECT_EQ(close(exported->fd), 0);
    }
    EXPECT_EQ(openFdCount(), baseline) << "socket, exported fd and peer are all gone";
}

// --- capabilities and fallbacks --------------------------------------------------------------

std::string uuidString(const std::array<uint8_t, 16>& u) {
    std::string s;
    char buf[4];
    for (size_t i = 0; i < u.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
        std::snprintf(buf, sizeof(buf), "%02x", u[i]);
        s += buf;
    }
    return s;
}

TEST(InteropCaps, MatchDeviceInfoAndTheCli) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    const DeviceInfo& d = ctx.device();
    InteropCapabilities caps = queryInteropCapabilities(ctx);
    EXPECT_EQ(caps.deviceUuid, d.deviceUuid);
    EXPECT_EQ(caps.exportMemoryOpaqueFd, d.externalMemoryFd);
    EXPECT_EQ(caps.exportMemoryDmaBuf, d.dmaBuf);
    EXPECT_EQ(caps.exportBinarySemaphoreFd, d.externalSemaphoreFd);
    EXPECT_EQ(caps.exportTimelineSemaphoreFd, d.timelineSemaphoreExport);
    EXPECT_EQ(caps.timelineSemaphore, d.timelineSemaphore);
    if (d.driverName == "llvmpipe") {  // lavapipe (DESIGN.md, "What the machines offer")
        EXPECT_TRUE(caps.exportMemoryOpaqueFd);
        EXPECT_TRUE(caps.importMemoryOpaqueFd);
        EXPECT_FALSE(caps.exportMemoryDmaBuf);
        EXPECT_FALSE(caps.importMemoryDmaBuf);
        EXPECT_TRUE(caps.timelineSemaphore);
        EXPECT_FALSE(caps.exportTimelineSemaphoreFd);
        EXPECT_FALSE(caps.exportBinarySemaphoreFd);
    }

    // `vkinfer devices --json` says the same of this device.
    CliResult cli = runCli({"devices", "--json"});
    ASSERT_EQ(cli.exitCode, 0) << cli.describe();
    auto list = nlohmann::json::parse(cli.out);
    auto it = std::find_if(list.begin(), list.end(), [&](const auto& e) { return e["uuid"] == uuidString(d.deviceUuid); });
    ASSERT_NE(it, list.end()) << cli.out;
    EXPECT_EQ((*it)["external_memory_fd"].get<bool>(), caps.exportMemoryOpaqueFd);
    EXPECT_EQ((*it)["dma_buf"].get<bool>(), caps.exportMemoryDmaBuf);
    EXPECT_EQ((*it)["external_semaphore_fd"].get<bool>(), caps.exportBinarySemaphoreFd);
    EXPECT_EQ((*it)["timeline_semaphore"].get<bool>(), caps.timelineSemaphore);
    EXPECT_EQ((*it)["timeline_semaphore_export"].get<bool>(), caps.exportTimelineSemaphoreFd);
}

TEST(InteropCaps, DeviceUuidSelectsTheDevice) {
    VKINFER_REQUIRE_GPU();
    auto devices = listDevices();
    ASSERT_TRUE(devices.ok()) << devices.status().toString();
    ASSERT_FALSE(devices->empty());
    const DeviceInfo& d = devices->back();
    ContextOptions opts;
    opts.deviceUuid = d.deviceUuid;
    opts.deviceIndex = static_cast<int>(devices->size()) + 5;  // the UUID takes precedence
    opts.validate = validationRequestedByEnvironment();
    auto ctx = Context::create(opts);
    ASSERT_TRUE(ctx.ok()) << ctx.status().toString();
    EXPECT_EQ(ctx->device().deviceUuid, d.deviceUuid);
    EXPECT_EQ(ctx->device().index, d.index);

    std::array<uint8_t, 16> wrong{};
    wrong.fill(0xa5);
    for (const auto& other : *devices) ASSERT_NE(other.deviceUuid, wrong);
    opts.deviceUuid = wrong;
    opts.deviceIndex = -1;
    auto none = Context::create(opts);
    ASSERT_FALSE(none.ok());
    EXPECT_EQ(none.status().code(), ErrorCode::NotFound);
    EXPECT_TRUE(contains(none.status(), "UUID")) << none.status().message();
}

TEST(InteropFallback, TimelineExportOrHostWait) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    const int baseline = openFdCount();
    {
        SessionOptions opts;
        opts.framesInFlight = 2;
        Session session = makeSession(ctx, affineModel(), opts);
        auto fd = exportTimelineSemaphore(session);
        if (queryInteropCapabilities(ctx).exportTimelineSemaphoreFd) {
            ASSERT_TRUE(fd.ok()) << fd.status().toString();
            EXPECT_TRUE(fdIsOpen(*fd));
            EXPECT_EQ(close(*fd), 0);  // the caller's
        } else {
            ASSERT_FALSE(fd.ok());
            EXPECT_EQ(fd.status().code(), ErrorCode::Unsupported);
            EXPECT_TRUE(contains(fd.status(), "Session::wait")) << fd.status().message();
            EXPECT_TRUE(contains(fd.status(), "isDone")) << fd.status().message();
            EXPECT_EQ(openFdCount(), baseline);
        }
        // The fallback: ticket values waited on the host.
        auto t0 = session.submit({{"x", frameInput(0)}});
        auto t1 = session.submit({{"x", frameInput(1)}});
        ASSERT_TRUE(t0.ok() && t1.ok()) << t0.status().toString() << t1.status().toString();
        EXPECT_EQ(t1->value, t0->value + 1);
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        for (;;) {
            auto done = session.isDone(*t1);
            ASSERT_TRUE(done.ok()) << done.status().toString();
            if (*done) break;
            ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "ticket " << t1->value << " never finished";
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        auto out1 = session.wait(*t1);
        auto out0 = session.wait(*t0);
        ASSERT_TRUE(out0.ok() && out1.ok()) << out0.status().toString() << out1.status().toString();
        EXPECT_EQ(bytesOf((*out0)[0].tensor), bytesOf(affineOf(frameInput(0))));
        EXPECT_EQ(bytesOf((*out1)[0].tensor), bytesOf(affineOf(frameInput(1))));
    }
    EXPECT_EQ(openFdCount(), baseline);
}

TEST(InteropFallback, ExportRefusalsNameWhatIsMissing) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    const int baseline = openFdCount();
    {
        Session plain = makeSession(ctx, affineModel(), {});
        ASSERT_TRUE(plain.prepare().ok());
        auto noOption = exportTensorMemory(plain, "y");
        ASSERT_FALSE(noOption.ok());
        EXPECT_EQ(noOption.status().code(), ErrorCode::InvalidArgument);
        EXPECT_TRUE(contains(noOption.status(), "SessionOptions::shareableIO")) << noOption.status().message();

        SessionOptions opts;
        opts.shareableIO = true;
        Session shareable = makeSession(ctx, affineModel(), opts);
        auto unprepared = exportTensorMemory(shareable, "y");
        ASSERT_FALSE(unprepared.ok());
        EXPECT_TRUE(contains(unprepared.status(), "Session::prepare")) << unprepared.status().message();
        ASSERT_TRUE(shareable.prepare().ok());
        auto unknown = exportTensorMemory(shareable, "m");
        ASSERT_FALSE(unknown.ok());
        EXPECT_TRUE(contains(unknown.status(), "no input or output named 'm'")) << unknown.status().message();
        auto badFrame = exportTensorMemory(shareable, "y", 1);
        EXPECT_FALSE(badFrame.ok()) << "one frame slot only";

        auto dmaBuf = exportTensorMemory(shareable, "y", 0, MemoryHandleType::DmaBuf);
        if (queryInteropCapabilities(ctx).exportMemoryDmaBuf) {
            ASSERT_TRUE(dmaBuf.ok()) << dmaBuf.status().toString();
            close(dmaBuf->fd);
        } else {
            ASSERT_FALSE(dmaBuf.ok());
            EXPECT_EQ(dmaBuf.status().code(), ErrorCode::Unsupported);
            EXPECT_TRUE(contains(dmaBuf.status(), "dma-buf")) << dmaBuf.status().message();
        }
        EXPECT_EQ(openFdCount(), baseline) << "no refusal leaves a descriptor behind";
    }
    EXPECT_EQ(openFdCount(), baseline);
}

TEST(InteropFallback, ImportWaitSemaphoreRefusalsDoNotLeak) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    InteropCapabilities caps = queryInteropCapabilities(ctx);
    const int baseline = openFdCount();
    {
        Session session = makeSession(ctx, affineModel(), {});
        Status invalid = importWaitSemaphore(session, -1, false);
        EXPECT_FALSE(invalid.ok());
        EXPECT_TRUE(contains(invalid, caps.importBinarySemaphoreFd ? "invalid fd" : "cannot import binary semaphores"))
            << invalid.message();

        // Where a kind cannot be imported, any descriptor is refused before Vulkan sees it
        // and stays ours. (Where it can, handing Vulkan something that is not a semaphore is
        // undefined behaviour: only the invalid fd is tried then.)
        int pipeFds[2];
        ASSERT_EQ(pipe2(pipeFds, O_CLOEXEC), 0);
        for (bool timeline : {false, true}) {
            const char* kind = timeline ? "timeline" : "binary";
            if (timeline ? caps.importTimelineSemaphoreFd : caps.importBinarySemaphoreFd) {
                Status s = importWaitSemaphore(session, -1, timeline, 1);
                EXPECT_FALSE(s.ok()) << kind;
                EXPECT_TRUE(contains(s, "invalid fd")) << kind << ": " << s.message();
                continue;
            }
            Status s = importWaitSemaphore(session, pipeFds[0], timeline, 1);
            EXPECT_FALSE(s.ok()) << kind;
            EXPECT_EQ(s.code(), ErrorCode::Unsupported) << kind;
            EXPECT_TRUE(contains(s, std::string("cannot import ") + kind + " semaphores")) << s.message();
            EXPECT_TRUE(fdIsOpen(pipeFds[0])) << kind << ": a refused fd stays the caller's";
        }
        close(pipeFds[0]);
        close(pipeFds[1]);
        EXPECT_EQ(openFdCount(), baseline);
        // No wait was left pending: the next submission runs.
        auto out = session.run({{"x", frameInput(2)}});
        ASSERT_TRUE(out.ok()) << out.status().toString();
        EXPECT_EQ(bytesOf((*out)[0].tensor), bytesOf(affineOf(frameInput(2))));
    }
    EXPECT_EQ(openFdCount(), baseline);
}

// A host device wrapped without VK_KHR_external_memory_fd: sharing memory names the extension;
// everything else still works.
TEST(InteropFallback, WrappedDeviceWithoutExternalMemoryFd) {
    VKINFER_REQUIRE_GPU();
    HostOptions ho = hostFor(gpuContext());
    ho.externalMemoryFd = false;
    HostGpu host(ho);
    int pipeFds[2];
    ASSERT_EQ(pipe2(pipeFds, O_CLOEXEC), 0);
    {
        auto ctx = wrapHostDevice(host.hostDevice());
        ASSERT_TRUE(ctx.ok()) << ctx.status().toString();
        InteropCapabilities caps = queryInteropCapabilities(*ctx);
        EXPECT_FALSE(caps.exportMemoryOpaqueFd);
        EXPECT_FALSE(caps.importMemoryOpaqueFd);

        // shareableIO is refused at Session::create (not first at export or run).
        SessionOptions opts;
        opts.shareableIO = true;
        auto shareable = Session::create(*ctx, affineModel(), opts);
        ASSERT_FALSE(shareable.ok());
        EXPECT_EQ(shareable.status().code(), ErrorCode::Unsupported);
        EXPECT_TRUE(contains(shareable.status(), "VK_KHR_external_memory_fd")) << shareable.status().message();
        EXPECT_TRUE(contains(shareable.status(), "shareableIO")) << shareable.status().message();

        Session plain = makeSession(*ctx, affineModel(), {});
        auto exported = exportTensorMemory(plain, "y");
        ASSERT_FALSE(exported.ok());
        EXPECT_TRUE(contains(exported.status(), "shareableIO")) << exported.status().message();
        ASSERT_TRUE(plain.prepare().ok());
        Status imported = importTensorMemory(plain, "x", 0, ImportedMemory{pipeFds[0], MemoryHandleType::OpaqueFd, 4096});
        ASSERT_FALSE(imported.ok());
        EXPECT_EQ(imported.code(), ErrorCode::Unsupported);
        EXPECT_TRUE(contains(imported, "VK_KHR_external_memory_fd")) << imported.message();
        EXPECT_TRUE(fdIsOpen(pipeFds[0]));

        auto out = plain.run({{"x", frameInput(3)}});
        ASSERT_TRUE(out.ok()) << out.status().toString();
        EXPECT_EQ(bytesOf((*out)[0].tensor), bytesOf(affineOf(frameInput(3))));
    }
    close(pipeFds[0]);
    close(pipeFds[1]);
    expectCleanShutdown(host);
}

// A host device wrapped without timelineSemaphore: the timeline calls name the feature, and
// submissions fall back to fences waited on the host.
TEST(InteropFallback, WrappedDeviceWithoutTimelineSemaphores) {
    VKINFER_REQUIRE_GPU();
    HostOptions ho = hostFor(gpuContext());
    ho.timelineSemaphore = false;
    ho.externalSemaphoreFd = true;  // where offered: the timeline feature is then all that is missing
    HostGpu host(ho);
    int pipeFds[2];
    ASSERT_EQ(pipe2(pipeFds, O_CLOEXEC), 0);
    {
        auto ctx = wrapHostDevice(host.hostDevice());
        ASSERT_TRUE(ctx.ok()) << ctx.status().toString();
        EXPECT_FALSE(queryInteropCapabilities(*ctx).timelineSemaphore);
        SessionOptions opts;
        opts.framesInFlight = 2;
        Session session = makeSession(*ctx, affineModel(), opts);
        auto fd = exportTimelineSemaphore(session);
        ASSERT_FALSE(fd.ok());
        EXPECT_EQ(fd.status().code(), ErrorCode::Unsupported);
        EXPECT_TRUE(contains(fd.status(), "timelineSemaphore")) << fd.status().message();
        Status wait = importWaitSemaphore(session, pipeFds[0], true, 1);
        ASSERT_FALSE(wait.ok());
        EXPECT_TRUE(contains(wait, "timelineSemaphore")) << wait.message();
        EXPECT_TRUE(fdIsOpen(pipeFds[0]));

        auto t0 = session.submit({{"x", frameInput(4)}});
        auto t1 = session.submit({{"x", frameInput(5)}});
        ASSERT_TRUE(t0.ok() && t1.ok()) << t0.status().toString() << t1.status().toString();
        auto out1 = session.wait(*t1);
        ASSERT_TRUE(out1.ok()) << out1.status().toString();
        auto done0 = session.isDone(*t0);
        ASSERT_TRUE(done0.ok());
        auto out0 = session.wait(*t0);
        ASSERT_TRUE(out0.ok()) << out0.status().toString();
        EXPECT_EQ(bytesOf((*out0)[0].tensor), bytesOf(affineOf(frameInput(4))));
        EXPECT_EQ(bytesOf((*out1)[0].tensor), bytesOf(affineOf(frameInput(5))));
    }
    close(pipeFds[0]);
    close(pipeFds[1]);
    expectCleanShutdown(host);
}

// The engine's next submission waits on a semaphore the host exported (timeline: until the
// host signals the value from the CPU; binary: signaled by a host submission). Where the
// device cannot import semaphore fds (lavapipe), the refusal is what is checked.
TEST(SharedSemaphore, EngineWaitsOnHostSemaphore) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    InteropCapabilities caps = queryInteropCapabilities(ctx);
    const int baseline = openFdCount();
    for (bool timeline : {true, false}) {
        SCOPED_TRACE(timeline ? "timeline" : "binary");
        Session session = makeSession(ctx, affineModel(), {});
        ASSERT_TRUE(session.prepare().ok());
        if (!(timeline ? caps.importTimelineSemaphoreFd : caps.importBinarySemaphoreFd)) {
            Status s = importWaitSemaphore(session, -1, timeline, 1);
            ASSERT_FALSE(s.ok());
            EXPECT_EQ(s.code(), ErrorCode::Unsupported);
            EXPECT_TRUE(contains(s, timeline ? "timeline" : "binary")) << s.message();
            continue;
        }
        HostOptions ho = hostFor(ctx);
        ho.externalSemaphoreFd = true;
        HostGpu host(ho);
        ASSERT_TRUE(host.hasExternalSemaphoreFd());
        VkSemaphore sem = host.createExportableSemaphore(timeline);
        if (!timeline) host.signalOnQueue(sem);  // a binary wait needs its signal submitted first
        int fd = host.exportSemaphoreFd(sem);
        Status imported = importWaitSemaphore(session, fd, timeline, 7);
        ASSERT_TRUE(imported.ok()) << imported.toString();  // the fd is Vulkan's now
        auto ticket = session.submit({{"x", frameInput(7)}});
        ASSERT_TRUE(ticket.ok()) << ticket.status().toString();
        if (timeline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            auto done = session.isDone(*ticket);
            ASSERT_TRUE(done.ok());
            EXPECT_FALSE(*done) << "the submission must wait for the host's value 7";
            host.signalFromHost(sem, 7);
        }
        auto out = session.wait(*ticket);
        ASSERT_TRUE(out.ok()) << out.status().toString();
        EXPECT_EQ(bytesOf((*out)[0].tensor), bytesOf(affineOf(frameInput(7))));
        // The wait applied to that submission only.
        auto next = session.run({{"x", frameInput(8)}});
        ASSERT_TRUE(next.ok()) << next.status().toString();
        EXPECT_EQ(bytesOf((*next)[0].tensor), bytesOf(affineOf(frameInput(8))));
        session = Session();  // destroys the imported semaphore
        host.destroy(sem);
        expectCleanShutdown(host);
    }
    EXPECT_EQ(openFdCount(), baseline);
}

// A host timeline imported once (importTimelineSemaphore): each of several submissions waits
// for its own value (waitTimelineValue) and runs only once the host signals it; the imported
// semaphore stays with the session, so no fd is taken or left per frame. A timeline this
// session did not import is refused. Where timelines cannot be imported (lavapipe), the
// refusal leaves the fd to the caller.
TEST(SharedSemaphore, TimelineImportedOnceWaitedEveryFrame) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    InteropCapabilities caps = queryInteropCapabilities(ctx);
    const int baseline = openFdCount();
    {
        Session session = makeSession(ctx, affineModel(), {});
        ASSERT_TRUE(session.prepare().ok());
        Status unknown = waitTimelineValue(session, ImportedTimeline{}, 1);
        EXPECT_EQ(unknown.code(), ErrorCode::InvalidArgument) << unknown.toString();
        EXPECT_TRUE(contains(unknown, "importTimelineSemaphore")) << unknown.message();
        if (!caps.importTimelineSemaphoreFd) {
            int pipeFds[2];
            ASSERT_EQ(pipe2(pipeFds, O_CLOEXEC), 0);
            auto refused = importTimelineSemaphore(session, pipeFds[0]);
            ASSERT_FALSE(refused.ok());
            EXPECT_EQ(refused.status().code(), ErrorCode::Unsupported) << refused.status().toString();
            EXPECT_TRUE(contains(refused.status(), "cannot import timeline semaphores")) << refused.status().message();
            EXPECT_TRUE(fdIsOpen(pipeFds[0])) << "a refused fd stays the caller's";
            close(pipeFds[0]);
            close(pipeFds[1]);
            auto out = session.run({{"x", frameInput(1)}});  // nothing was left pending
            ASSERT_TRUE(out.ok()) << out.status().toString();
            EXPECT_EQ(bytesOf((*out)[0].tensor), bytesOf(affineOf(frameInput(1))));
        } else {
            HostOptions ho = hostFor(ctx);
            ho.externalSemaphoreFd = true;
            HostGpu host(ho);
            VkSemaphore sem = host.createExportableSemaphore(true);
            auto imported = importTimelineSemaphore(session, host.exportSemaphoreFd(sem));
            ASSERT_TRUE(imported.ok()) << imported.status().toString();
            int afterFirst = -1;  // NVIDIA's driver opens 2 fds of its own at the first wait
            for (uint64_t value = 1; value <= 6; ++value) {
                SCOPED_TRACE(value);
                Status w = waitTimelineValue(session, *imported, value * 10);
                ASSERT_TRUE(w.ok()) << w.toString();
                auto ticket = session.submit({{"x", frameInput(int(value))}});
                ASSERT_TRUE(ticket.ok()) << ticket.status().toString();
                std::this_thread::sleep_for(std::chrono::milliseconds(30));
                auto done = session.isDone(*ticket);
                ASSERT_TRUE(done.ok());
                EXPECT_FALSE(*done) << "the submission must wait for the host's value " << value * 10;
                host.signalFromHost(sem, value * 10);
                auto out = session.wait(*ticket);
                ASSERT_TRUE(out.ok()) << out.status().toString();
                EXPECT_EQ(bytesOf((*out)[0].tensor), bytesOf(affineOf(frameInput(int(value)))));
                if (value == 1) afterFirst = openFdCount();
            }
            EXPECT_EQ(openFdCount(), afterFirst) << "no fd per frame";
            // A submission without a wait does not wait on the timeline.
            auto free = session.run({{"x", frameInput(9)}});
            ASSERT_TRUE(free.ok()) << free.status().toString();
            session = Session();  // destroys the imported semaphore
            host.destroy(sem);
            expectCleanShutdown(host);
        }
    }
    EXPECT_EQ(openFdCount(), baseline);
}

// --- frames in flight with per-slot shared memory ---------------------------------------------

// Each frame slot exports its own output memory: with three submissions in flight the host
// sees each one's output in that slot's memory, and a fourth submission reuses slot 0.
TEST(FramesInFlight, EachSlotExportsItsOwnMemory) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    const int baseline = openFdCount();
    {
        SessionOptions opts;
        opts.framesInFlight = 3;
        opts.shareableIO = true;
        Session session = makeSession(ctx, affineModel(), opts);
        ASSERT_TRUE(session.prepare().ok());
        HostGpu host(hostFor(ctx));
        std::vector<HostBuffer> slots;
        for (uint32_t f = 0; f < 3; ++f) {
            auto m = exportTensorMemory(session, "y", f);
            ASSERT_TRUE(m.ok()) << m.status().toString();
            slots.push_back(importExported(host, *m));
        }
        EXPECT_FALSE(exportTensorMemory(session, "y", 3).ok()) << "three slots only";

        std::vector<Ticket> tickets;
        for (int k = 0; k < 3; ++k) {
            auto t = session.submit({{"x", frameInput(k)}});
            ASSERT_TRUE(t.ok()) << t.status().toString();
            EXPECT_EQ(t->frame, static_cast<uint32_t>(k)) << "slots are used in turn";
            tickets.push_back(*t);
        }
        for (int k = 2; k >= 0; --k) {
            auto out = session.wait(tickets[k]);
            ASSERT_TRUE(out.ok()) << out.status().toString();
            EXPECT_EQ(bytesOf((*out)[0].tensor), bytesOf(affineOf(frameInput(k))));
        }
        for (int k = 0; k < 3; ++k)
            EXPECT_EQ(host.read(slots[k], 0, kAffineBytes), bytesOf(affineOf(frameInput(k)))) << "slot " << k;

        // The fourth submission rotates back to slot 0 and overwrites only its memory.
        auto t3 = session.submit({{"x", frameInput(3)}});
        ASSERT_TRUE(t3.ok()) << t3.status().toString();
        EXPECT_EQ(t3->frame, 0u);
        auto out3 = session.wait(*t3);
        ASSERT_TRUE(out3.ok()) << out3.status().toString();
        EXPECT_EQ(host.read(slots[0], 0, kAffineBytes), bytesOf(affineOf(frameInput(3))));
        EXPECT_EQ(host.read(slots[1], 0, kAffineBytes), bytesOf(affineOf(frameInput(1))));
        EXPECT_EQ(host.read(slots[2], 0, kAffineBytes), bytesOf(affineOf(frameInput(2))));

        for (auto& b : slots) host.destroy(b);
        expectCleanShutdown(host);
    }
    EXPECT_EQ(openFdCount(), baseline);
}

// Each slot reads its own imported input: three submissions in flight, none uploading, each
// with its own output; a slot reused later expires the ticket that ran there before.
TEST(FramesInFlight, EachSlotReadsItsOwnImportedInput) {
    VKINFER_REQUIRE_GPU();
    Context& ctx = gpuContext();
    const int baseline = openFdCount();
    {
        HostGpu host(hostFor(ctx));
        std::vector<HostBuffer> inputs;
        {
            SessionOptions opts;
            opts.framesInFlight = 3;
            Session session = makeSession(ctx, affineModel(), opts);
            ASSERT_TRUE(session.prepare().ok());
            for (uint32_t f = 0; f < 3; ++f) {
                inputs.push_back(host.createExportable(kAffineBytes));
                host.write(inputs.back(), frameInput(10 + static_cast<int>(f)).data(), kAffineBytes);
                ImportedMemory m = opaqueImportOf(host.exportFd(inputs.back()), inputs.back());
                Status s = importTensorMemory(session, "x", f, m);
                ASSERT_TRUE(s.ok()) << s.toString();
            }
            std::vector<Ticket> tickets;
            for (int k = 0; k < 3; ++k) {
                auto t = session.submit({});
                ASSERT_TRUE(t.ok()) << t.status().toString();
                tickets.push_back(*t);
            }
            for (int k = 0; k < 3; ++k) {
                auto out = session.wait(tickets[k]);
                ASSERT_TRUE(out.ok()) << out.status().toString();
                EXPECT_EQ(bytesOf((*out)[0].tensor), bytesOf(affineOf(frameInput(10 + k)))) << "slot " << k;
            }
            // Slot reuse: the host rewrites slot 0's memory, three more submissions go round
            // once, and the first ticket of the round is expired by the next one in its slot.
            host.write(inputs[0], frameInput(20).data(), kAffineBytes);
            auto a = session.submit({});
            auto b = session.submit({});
            auto c = session.submit({});
            auto d = session.submit({});  // slot 0 again
            ASSERT_TRUE(a.ok() && b.ok() && c.ok() && d.ok());
            EXPECT_EQ(a->frame, 0u);
            EXPECT_EQ(d->frame, 0u);
            auto expired = session.wait(*a);
            EXPECT_FALSE(expired.ok()) << "slot 0 was reused by a later submission";
            EXPECT_TRUE(contains(expired.status(), "not outstanding")) << expired.status().message();
            auto outD = session.wait(*d);
            ASSERT_TRUE(outD.ok()) << outD.status().toString();
            EXPECT_EQ(bytesOf((*outD)[0].tensor), bytesOf(affineOf(frameInput(20))));
            auto outB = session.wait(*b);
            ASSERT_TRUE(outB.ok()) << outB.status().toString();
            EXPECT_EQ(bytesOf((*outB)[0].tensor), bytesOf(affineOf(frameInput(11))));
            EXPECT_TRUE(session.wait(*c).ok());
        }
        for (auto& b : inputs) host.destroy(b);
        expectCleanShutdown(host);
    }
    EXPECT_EQ(openFdCount(), baseline);
}

}  // namespace
}  // namespace vkinfer::testing
