// The layout of a frame slot's timestamp queries and how they become RunStats' GPU times.
// One place decides which query means what, so that the pool's size, the queries the
// recording writes and the differences the readback takes cannot drift apart.
#pragma once

#include <vulkan/vulkan.h>

#include <cstddef>
#include <cstdint>

#include "runtime/context_impl.h"
#include "vkinfer/session.h"

namespace vkinfer::rt {

class TimestampLayout {
public:
    // Timestamps where the session asks for them (SessionOptions::timestamps) and the device
    // has them (`validBits` > 0); a pair per dispatch as well with SessionOptions::profile.
    TimestampLayout(const SessionOptions& options, uint32_t validBits, size_t dispatchCount)
        : enabled_(options.timestamps && validBits > 0), profile_(enabled_ && options.profile),
          validBits_(validBits), dispatchCount_(dispatchCount) {}

    bool enabled() const { return enabled_; }
    bool profile() const { return profile_; }

    // The separate-context run brackets its phases: uploads, dispatches, readback.
    static constexpr uint32_t kBeforeUploads = 0;
    static constexpr uint32_t kBeforeDispatches = 1;
    static constexpr uint32_t kAfterDispatches = 2;
    static constexpr uint32_t kAfterReadback = 3;
    // Then, when profiling, when dispatch i is reached and when it has finished.
    static constexpr uint32_t kFirstDispatchQuery = 4;
    static uint32_t startQuery(size_t i) { return kFirstDispatchQuery + 2 * static_cast<uint32_t>(i); }
    static uint32_t endQuery(size_t i) { return startQuery(i) + 1; }
    uint32_t count() const {
        return kFirstDispatchQuery + (profile_ ? 2 * static_cast<uint32_t>(dispatchCount_) : 0);
    }

    // Resets the GPU times of `stats` and fills in those `pool` holds (left at -1 and empty
    // without timestamps, or when the results are not available).
    void readGpuTimes(const detail::ContextImpl& ctx, VkQueryPool pool, RunStats& stats) const;

private:
    bool enabled_;
    bool profile_;
    uint32_t validBits_;  // of the queue family the timestamps are written on
    size_t dispatchCount_;
};

}  // namespace vkinfer::rt
