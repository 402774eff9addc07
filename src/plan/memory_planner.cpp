#include "plan/memory_planner.h"

#include <algorithm>
#include <numeric>

namespace vkinfer::plan {

namespace {

int64_t alignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

}  // namespace

MemoryPlan planMemory(const std::vector<BufferRequest>& requests, int64_t alignment) {
    MemoryPlan plan;
    plan.offsets.assign(requests.size(), -1);
    std::vector<size_t> bySize(requests.size());
    std::iota(bySize.begin(), bySize.end(), 0);
    std::stable_sort(bySize.begin(), bySize.end(),
                     [&](size_t a, size_t b) { return requests[a].size > requests[b].size; });
    auto bytes = [&](size_t i) { return alignUp(std::max<int64_t>(requests[i].size, 1), alignment); };

    // Placed buffers by the waves they live in, so that a request meets only the buffers that
    // share a wave with it (comparing it with every placed buffer made planning quadratic in a
    // long chain). The cost is the sum of the lifetimes' overlaps, what the layout must know.
    int lastWave = 0;
    for (const auto& r : requests) lastWave = std::max(lastWave, r.lastWave);
    std::vector<std::vector<size_t>> aliveAt(static_cast<size_t>(std::max(lastWave, 0)) + 1);
    std::vector<size_t> seenBy(requests.size(), SIZE_MAX);

    for (size_t idx : bySize) {
        const BufferRequest& req = requests[idx];
        const int64_t size = bytes(idx);
        // Byte ranges taken by placed buffers whose lifetimes overlap this one.
        std::vector<std::pair<int64_t, int64_t>> busy;
        for (int w = std::max(req.firstWave, 0); w <= req.lastWave; ++w)
            for (size_t p : aliveAt[w]) {
                if (seenBy[p] == idx) continue;
                seenBy[p] = idx;
                busy.emplace_back(plan.offsets[p], plan.offsets[p] + bytes(p));
            }
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
        for (int w = std::max(req.firstWave, 0); w <= req.lastWave; ++w) aliveAt[w].push_back(idx);
    }
    return plan;
}

}  // namespace vkinfer::plan
