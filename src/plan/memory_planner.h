// Arena sub-allocation by liveness (pure).
//
// Lifetimes are counted in waves: a buffer is live from the wave of its first access to the
// wave of its last, inclusive. Two buffers share bytes only if their lifetimes are disjoint,
// so the reuse never needs a barrier of its own: the barrier that starts the later buffer's
// first wave already orders it after every access of the earlier buffer (DESIGN.md: "prefer
// reuse that creates no new barrier"). Placement is greedy by size, largest first, at the
// lowest offset that fits (best-fit in the style of TFLite's greedy-by-size planner).
#pragma once

#include <cstdint>
#include <vector>

namespace vkinfer::plan {

struct BufferRequest {
    int64_t size = 0;
    int firstWave = 0;
    int lastWave = 0;
};

struct MemoryPlan {
    std::vector<int64_t> offsets;  // per request
    int64_t arenaSize = 0;
};

MemoryPlan planMemory(const std::vector<BufferRequest>& requests, int64_t alignment);

}  // namespace vkinfer::plan
