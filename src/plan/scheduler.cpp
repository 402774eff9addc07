#include "plan/scheduler.h"

#include <algorithm>

namespace vkinfer::plan {

namespace {

bool dependsOn(const Command& later, const Command& earlier) {
    for (const auto& w : earlier.writes) {
        for (const auto& r : later.reads)
            if (overlaps(w, r)) return true;
        for (const auto& w2 : later.writes)
            if (overlaps(w, w2)) return true;
    }
    for (const auto& r : earlier.reads)
        for (const auto& w : later.writes)
            if (overlaps(r, w)) return true;
    return false;
}

}  // namespace

Schedule scheduleWaves(const std::vector<Command>& commands) {
    Schedule s;
    const int n = static_cast<int>(commands.size());
    s.wave.assign(n, 0);
    s.deps.assign(n, {});
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < j; ++i) {
            if (!dependsOn(commands[j], commands[i])) continue;
            s.deps[j].push_back(i);
            s.wave[j] = std::max(s.wave[j], s.wave[i] + 1);
        }
        s.waves = std::max(s.waves, s.wave[j] + 1);
    }
    s.order.resize(n);
    for (int i = 0; i < n; ++i) s.order[i] = i;
    std::stable_sort(s.order.begin(), s.order.end(), [&](int a, int b) { return s.wave[a] < s.wave[b]; });
    return s;
}

}  // namespace vkinfer::plan
