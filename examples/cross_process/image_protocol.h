// The wire format between a session's process and a renderer process sharing images with it:
// fixed-size messages over a Unix stream socket, fds alongside with SCM_RIGHTS (fd_socket.h).
// Spoken by the cross-process example (session_process.cpp / renderer_process.cpp) and by
// the cross-process image test and its helper (tests/interop/image_process_test.cpp,
// tests/interop/image_peer/image_peer.cpp).
//
// Session -> renderer: Setup; then per frame slot k the input image's memory and the output
// image's memory (ImageMemory, with the fd); then, for HandoffSync::TimelineSemaphores, the two
// timeline semaphores (SemaphoreFd, with the fd). Then per frame n: renderer -> session
// Rendered n, session -> renderer Inferred n; at the end renderer -> session Done (or Failed,
// either way, with its text).
#pragma once

#include <cstdint>

namespace vkinfer::crossprocess {

constexpr uint32_t kMagic = 0x766b696d;  // "vkim"

// How each side learns that the other's GPU work on a frame is finished.
enum HandoffSync : uint32_t {
    // Rendered / Inferred are sent once the sender's own fence says the work is done (the
    // fallback every device has: lavapipe shares no semaphore).
    HostWait = 0,
    // Rendered n / Inferred n are sent right after the submission: the receiving queue waits
    // on the GPU for timeline "rendered" >= n + 1 (inference) or "inferred" >= n + 1
    // (the renderer's read of the output). No CPU wait in the handoff.
    TimelineSemaphores = 1,
};

// Session -> renderer, first: what to import and how many frames to run.
struct Setup {
    uint32_t magic = kMagic;
    uint8_t deviceUuid[16] = {};
    uint32_t width = 0, height = 0;              // the input images (RGBA8)
    uint32_t slots = 0;                          // frames in flight: one input and one output image each
    uint32_t frames = 0;
    uint32_t outputWidth = 0, outputHeight = 0;  // the output images (RGBA16F)
    uint32_t sync = HostWait;                    // HandoffSync
};
// Session -> renderer, 2 * slots of them after Setup, each with its fd: slot k's input, then output.
struct ImageMemory {
    uint64_t allocationSize = 0;
    uint32_t memoryTypeIndex = 0;
    uint32_t output = 0;  // 0: the input image (RGBA8), 1: the output image (RGBA16F)
};
// Session -> renderer, with HandoffSync::TimelineSemaphores: two of them after the images, each
// with an opaque fd of a timeline semaphore starting at 0.
struct SemaphoreFd {
    uint32_t inferred = 0;  // 0: "rendered" (the renderer signals n + 1), 1: "inferred" (the session does)
};

enum Kind : uint32_t {
    Rendered = 1,  // renderer -> session: frame `frame` is drawn and released (VK_QUEUE_FAMILY_EXTERNAL)
    Inferred = 2,  // session -> renderer: frame `frame`'s output is written and released
    Done = 3,      // renderer -> session: all frames checked; `worst` and the fd counts
    Failed = 4,    // either way: `textBytes` bytes of explanation follow
};
struct Message {
    uint32_t kind = 0;
    uint32_t frame = 0;
    float worst = 0;           // Done: the largest difference from Session::run
    int32_t fdsEarly = 0;      // Done: the renderer's open fds after its first frames
    int32_t fdsLate = 0;       // Done: ... and at the end
    uint32_t textBytes = 0;    // Failed
    uint64_t memoryEarly = 0;  // Done: the renderer's device memory held by vkinfer, early and at the end
    uint64_t memoryLate = 0;
};

}  // namespace vkinfer::crossprocess
