#include "plan/scheduler.h"

#include <algorithm>

namespace vkinfer::plan {

namespace {

// The earlier accesses of one allocation, writes and reads apart: a read conflicts only with
// writes, so a tensor read by many commands costs each later reader nothing extra.
struct AllocAccesses {
    std::vector<std::pair<Range, int>> writes, reads;  // (range, command)
};

}  // namespace

Schedule scheduleWaves(const std::vector<Command>& commands) {
    Schedule s;
    const int n = static_cast<int>(commands.size());
    s.wave.assign(n, 0);
    s.deps.assign(n, {});
    // Commands conflict only on the same allocation: index the accesses by it, so that each
    // command is compared with the earlier accesses of its own allocations rather than with
    // every earlier command (quadratic in a long chain).
    std::vector<AllocAccesses> byAlloc;
    auto accessesOf = [&](int alloc) -> AllocAccesses& {
        if (static_cast<size_t>(alloc) >= byAlloc.size()) byAlloc.resize(alloc + 1);
        return byAlloc[alloc];
    };
    for (int j = 0; j < n; ++j) {
        std::vector<int>& deps = s.deps[j];
        for (const Range& r : commands[j].reads)
            for (const auto& [w, i] : accessesOf(r.alloc).writes)
                if (overlaps(w, r)) deps.push_back(i);
        for (const Range& w : commands[j].writes) {
            const AllocAccesses& a = accessesOf(w.alloc);
            for (const auto& [e, i] : a.writes)
                if (overlaps(e, w)) deps.push_back(i);
            for (const auto& [e, i] : a.reads)
                if (overlaps(e, w)) deps.push_back(i);
        }
        std::sort(deps.begin(), deps.end());
        deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
        for (int i : deps) s.wave[j] = std::max(s.wave[j], s.wave[i] + 1);
        s.waves = std::max(s.waves, s.wave[j] + 1);
        for (const Range& r : commands[j].reads) accessesOf(r.alloc).reads.emplace_back(r, j);
        for (const Range& w : commands[j].writes) accessesOf(w.alloc).writes.emplace_back(w, j);
    }
    s.order.resize(n);
    for (int i = 0; i < n; ++i) s.order[i] = i;
    std::stable_sort(s.order.begin(), s.order.end(), [&](int a, int b) { return s.wave[a] < s.wave[b]; });
    return s;
}

}  // namespace vkinfer::plan
