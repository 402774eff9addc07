// The wire format between the cross-process shared-image test (tests/interop/
// image_process_test.cpp) and its helper process (tests/interop/image_peer/image_peer.cpp):
// fixed-size messages over a Unix stream socket, fds alongside with SCM_RIGHTS
// (shared_util.h sendWithFd / receiveWithFd).
#pragma once

#include <cstdint>

namespace vkinfer::testing::imagepeer {

constexpr uint32_t kMagic = 0x766b696d;  // "vkim"

// Test -> peer, first: what to import and how many frames to run.
struct Setup {
    uint32_t magic = kMagic;
    uint8_t deviceUuid[16] = {};
    uint32_t width = 0, height = 0;
    uint32_t slots = 0;   // frames in flight: one input and one output image each
    uint32_t frames = 0;
};
// Test -> peer, 2 * slots of them after Setup, each with its fd: slot k's input, then output.
struct ImageMemory {
    uint64_t allocationSize = 0;
    uint32_t memoryTypeIndex = 0;
    uint32_t output = 0;  // 0: the input image (RGBA8), 1: the output image (RGBA16F)
};

enum Kind : uint32_t {
    Rendered = 1,  // peer -> test: frame `frame` is drawn and released (VK_QUEUE_FAMILY_EXTERNAL)
    Inferred = 2,  // test -> peer: frame `frame`'s output is written and released
    Done = 3,      // peer -> test: all frames checked; `worst` and the fd counts
    Failed = 4,    // either way: `textBytes` bytes of explanation follow
};
struct Message {
    uint32_t kind = 0;
    uint32_t frame = 0;
    float worst = 0;           // Done: the largest difference from Session::run
    int32_t fdsEarly = 0;      // Done: the peer's open fds after its first frames
    int32_t fdsLate = 0;       // Done: ... and at the end
    uint32_t textBytes = 0;    // Failed
    uint64_t memoryEarly = 0;  // Done: the peer's device memory held by vkinfer, early and at the end
    uint64_t memoryLate = 0;
};

}  // namespace vkinfer::testing::imagepeer
