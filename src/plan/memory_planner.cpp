#include "plan/memory_planner.h"

#include <algorithm>
#include <numeric>

namespace vkinfer::plan {

namespace {

int64_t alignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

bool livesOverlap(const BufferRequest& a, const BufferRequest& b) {
    return a.firstWave <= b.lastWave && b.firstWave <= a.lastWave;
}

}  // namespace

MemoryPlan planMemory(const std::vector<BufferRequest>& requests, int64_t alignment) {
    MemoryPlan plan;
    plan.offsets.assign(requests.size(), -1);
    std::vector<size_t> bySize(requests.size());
    std::iota(bySize.begin(), bySize.end(), 0);
    std::stable_sort(bySize.begin(), bySize.end(),
                     [&](size_t a, size_t b) { return requests[a].size > requests[b].size; });

    std::vector<size_t> placed;
    for (size_t idx : bySize) {
        const BufferRequest& req = requests[idx];
        int64_t size = alignUp(std::max<int64_t>(req.size, 1), alignment);
        // Byte ranges taken by placed buffers whose lifetimes overlap this one.
        std::vector<std::pair<int64_t, int64_t>> busy;
        for (size_t p : placed)
            if (livesOverlap(requests[p], req))
                busy.emplace_back(plan.offsets[p], plan.offsets[p] + alignUp(std::max<int64_t>(requests[p].size, 1), alignment));
        std::sort(busy.begin(), busy.end());
        // Best fit: the smallest gap that holds it; else after the last busy range.
        int64_t best = -1, bestGap = INT64_MAX, cursor = 0;
        for (const auto& [b, e] : busy) {
            if (b - cursor >= size && b - cursor < bestGap) {
                best = cursor;
                bestGap = b - cursor;
            }
            cursor = std::max(cursor, e);
        }
        if (best < 0) best = cursor;
        plan.offsets[idx] = best;
        plan.arenaSize = std::max(plan.arenaSize, best + size);
        placed.push_back(idx);
    }
    return plan;
}

}  // namespace vkinfer::plan
