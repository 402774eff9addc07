// The synchronization paths of a handoff, chosen from a described capability set alone
// (no device): queryInteropCapabilities applies it to what it queried, and the unit tests to
// capability sets no machine here has.
#include "vkinfer/interop.h"

namespace vkinfer {

const char* syncPathName(SyncPath path) {
    switch (path) {
        case SyncPath::TimelineSemaphore: return "timeline semaphore";
        case SyncPath::BinarySemaphore: return "binary semaphore";
        case SyncPath::HostWait: return "host wait";
    }
    return "?";
}

InteropCapabilities chooseSyncPaths(InteropCapabilities c) {
    // A timeline needs the feature as well as the fd: the session's semaphore is a timeline
    // only where the feature is enabled.
    const bool timelineOut = c.timelineSemaphore && c.exportTimelineSemaphoreFd;
    const bool timelineIn = c.timelineSemaphore && c.importTimelineSemaphoreFd;
    c.signalPath = timelineOut ? SyncPath::TimelineSemaphore
                   : c.exportBinarySemaphoreFd ? SyncPath::BinarySemaphore
                                               : SyncPath::HostWait;
    c.waitPath = timelineIn ? SyncPath::TimelineSemaphore
                 : c.importBinarySemaphoreFd ? SyncPath::BinarySemaphore
                                             : SyncPath::HostWait;
    // sync_file first: it is what other drivers, EGL and poll() take; opaque fds only reach
    // Vulkan and CUDA on the same physical device.
    c.fenceExport = c.exportFenceSyncFd     ? FenceHandleType::SyncFd
                    : c.exportFenceOpaqueFd ? FenceHandleType::OpaqueFd
                                            : FenceHandleType::None;
    c.fenceImport = c.importFenceSyncFd     ? FenceHandleType::SyncFd
                    : c.importFenceOpaqueFd ? FenceHandleType::OpaqueFd
                                            : FenceHandleType::None;
    return c;
}

}  // namespace vkinfer
