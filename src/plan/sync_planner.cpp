#include "plan/sync_planner.h"

#include <algorithm>

namespace vkinfer::plan {

const char* hazardKindName(HazardKind kind) {
    switch (kind) {
        case HazardKind::RAW: return "RAW";
        case HazardKind::WAW: return "WAW";
        case HazardKind::WAR: return "WAR";
    }
    return "?";
}

bool Barrier::needsMemoryDependency() const {
    return std::any_of(hazards.begin(), hazards.end(), [](const Hazard& h) { return h.kind != HazardKind::WAR; });
}

namespace {

struct PendingAccess {
    Range range;
    bool write;
    int command;
};

void addHazard(std::vector<Hazard>& hazards, Hazard h) {
    for (const auto& e : hazards)
        if (e.kind == h.kind && e.alloc == h.alloc && e.earlierTag == h.earlierTag && e.laterTag == h.laterTag) return;
    hazards.push_back(h);
}

}  // namespace

std::vector<Barrier> placeBarriers(const std::vector<Command>& commands, bool conservative) {
    std::vector<Barrier> result(commands.size());
    // Accesses recorded since the last barrier: not yet ordered against what comes next.
    std::vector<PendingAccess> pending;
    // Writes ordered by an execution-only barrier but not yet made visible: a later reader
    // or writer of their bytes still needs a memory dependency.
    std::vector<PendingAccess> invisible;
    for (size_t c = 0; c < commands.size(); ++c) {
        const Command& cmd = commands[c];
        Barrier& b = result[c];
        for (const auto& p : pending) {
            for (const auto& r : cmd.reads)
                if (p.write && overlaps(p.range, r))
                    addHazard(b.hazards, {HazardKind::RAW, r.alloc, p.command, p.range.tag, r.tag});
            for (const auto& w : cmd.writes)
                if (overlaps(p.range, w))
                    addHazard(b.hazards, {p.write ? HazardKind::WAW : HazardKind::WAR, w.alloc, p.command, p.range.tag,
                                          w.tag});
        }
        for (const auto& p : invisible) {
            for (const auto& r : cmd.reads)
                if (overlaps(p.range, r)) addHazard(b.hazards, {HazardKind::RAW, r.alloc, p.command, p.range.tag, r.tag});
            for (const auto& w : cmd.writes)
                if (overlaps(p.range, w)) addHazard(b.hazards, {HazardKind::WAW, w.alloc, p.command, p.range.tag, w.tag});
        }
        b.present = conservative ? c > 0 : !b.hazards.empty();
        if (b.present) {
            if (conservative || b.needsMemoryDependency()) {
                invisible.clear();
            } else {
                for (const auto& p : pending)
                    if (p.write) invisible.push_back(p);
            }
            pending.clear();
        }
        for (const auto& r : cmd.reads) pending.push_back({r, false, static_cast<int>(c)});
        for (const auto& w : cmd.writes) pending.push_back({w, true, static_cast<int>(c)});
    }
    return result;
}

}  // namespace vkinfer::plan
