// interop_peer: the second process of the shared-memory tests (tests/interop/
// shared_memory_test.cpp, SharedProcess.*). Usage: interop_peer <socket fd>
//
// Receives one PeerRequest with a memory fd (SCM_RIGHTS) over the Unix socket, imports the
// fd into its own VkInstance/VkDevice (the physical device with the request's UUID), copies
// the tensor's bytes to a host-visible buffer, and replies with a PeerReplyHeader and the
// bytes (or an explanation). The imported fd belongs to Vulkan once imported (freed with the
// memory); if the import fails the peer closes it itself. With VKINFER_VALIDATE=1 its
// instance runs the validation layer with synchronization validation, and any message is a
// failure. Exit status: 0 on success, 1 on any failure (the reply says why).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include "interop/support/shared_util.h"

using namespace vkinfer::testing::shared;

namespace {

void reply(int socket, bool ok, const std::string& message, const std::vector<std::byte>& data) {
    PeerReplyHeader h;
    h.ok = ok ? 1 : 0;
    h.messageBytes = static_cast<uint32_t>(message.size());
    h.dataBytes = ok ? data.size() : 0;
    h.checksum = ok ? fnv1a64(data.data(), data.size()) : 0;
    h.validated = vkinfer::validationRequestedByEnvironment() ? 1 : 0;
    sendAll(socket, &h, sizeof(h));
    if (!message.empty()) sendAll(socket, message.data(), message.size());
    if (ok && !data.empty()) sendAll(socket, data.data(), data.size());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s <socket fd>\n", argv[0]);
        return 2;
    }
    const int socket = std::atoi(argv[1]);
    int fd = -1;
    try {
        PeerRequest req;
        receiveWithFd(socket, &req, sizeof(req), &fd);
        if (req.magic != PeerRequest{}.magic) throw std::runtime_error("bad request");
        if (fd < 0) throw std::runtime_error("no fd came with the request");

        HostOptions options;
        std::memcpy(options.deviceUuid.data(), req.deviceUuid, 16);
        options.validate = vkinfer::validationRequestedByEnvironment();
        std::vector<std::byte> data;
        std::vector<std::string> messages;
        {
            HostGpu gpu(options);
            HostBuffer buffer;
            VkResult r = gpu.importBuffer(fd, req.bytes, req.allocationSize, req.offset, req.memoryTypeIndex,
                                          req.dedicated != 0, &buffer);
            if (r != VK_SUCCESS) throw std::runtime_error("importing the fd failed: VkResult " + std::to_string(r));
            fd = -1;  // Vulkan's now: vkFreeMemory closes it
            data = gpu.read(buffer, 0, req.bytes);
            gpu.destroy(buffer);
            messages = gpu.shutdown();
        }
        if (!messages.empty()) {
            std::string text = "validation reported " + std::to_string(messages.size()) + " message(s) in the peer:";
            for (const auto& m : messages) text += "\n" + m;
            reply(socket, false, text, {});
            return 1;
        }
        reply(socket, true, "", data);
        return 0;
    } catch (const std::exception& e) {
        if (fd >= 0) close(fd);  // never imported: still ours
        try {
            reply(socket, false, std::string("peer: ") + e.what(), {});
        } catch (...) {
        }
        std::fprintf(stderr, "interop_peer: %s\n", e.what());
        return 1;
    }
}
