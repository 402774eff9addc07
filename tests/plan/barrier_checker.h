// An independent, brute-force checker of barrier placements (tests only).
//
// It shares nothing with src/plan/sync_planner.cpp but the data types: it re-derives every
// hazard from scratch by comparing each pair of commands (i < j), then asks of the placement:
//   - ordering:   every hazardous pair has a barrier at some k in (i, j]; a RAW or WAW pair
//                 has one there that carries a memory dependency;
//   - minimality: every placed barrier (minimal mode) orders some hazard that no earlier
//                 barrier already orders, so removing it would break the ordering check;
//                 and every barrier that carries a memory dependency orders some RAW/WAW
//                 hazard that no earlier memory barrier orders;
//   - reports:    the hazards a barrier lists are exactly the ones not yet ordered before it.
// Works on hand-made sequences, random ones and compiled model plans alike.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "plan/access.h"
#include "plan/sync_planner.h"

namespace vkinfer::plan::check {

// Kinds of hazard between an earlier and a later command, as bit flags.
enum : unsigned { kRaw = 1, kWaw = 2, kWar = 4 };

// Own overlap test (half-open ranges, same allocation), deliberately not plan::overlaps.
inline bool touches(const Range& a, const Range& b) {
    return a.alloc == b.alloc && std::max(a.begin, b.begin) < std::min(a.end, b.end);
}

// One hazard between a range of an earlier command and a range of a later one.
struct PairHazard {
    HazardKind kind;
    int alloc;
    int earlier;
    int earlierTag;
    int laterTag;
    bool operator<(const PairHazard& o) const {
        return std::tie(kind, alloc, earlier, earlierTag, laterTag) <
               std::tie(o.kind, o.alloc, o.earlier, o.earlierTag, o.laterTag);
    }
    bool operator==(const PairHazard& o) const { return !(*this < o) && !(o < *this); }
};

inline bool needsMemory(HazardKind k) { return k != HazardKind::WAR; }

// Every hazard between command i (earlier) and command j (later).
inline std::vector<PairHazard> hazardsBetween(const std::vector<Command>& cmds, int i, int j) {
    std::vector<PairHazard> out;
    for (const Range& w : cmds[i].writes) {
        for (const Range& r : cmds[j].reads)
            if (touches(w, r)) out.push_back({HazardKind::RAW, r.alloc, i, w.tag, r.tag});
        for (const Range& w2 : cmds[j].writes)
            if (touches(w, w2)) out.push_back({HazardKind::WAW, w2.alloc, i, w.tag, w2.tag});
    }
    for (const Range& r : cmds[i].reads)
        for (const Range& w : cmds[j].writes)
            if (touches(r, w)) out.push_back({HazardKind::WAR, w.alloc, i, r.tag, w.tag});
    return out;
}

inline unsigned kindsBetween(const std::vector<Command>& cmds, int i, int j) {
    unsigned k = 0;
    for (const auto& h : hazardsBetween(cmds, i, j))
        k |= h.kind == HazardKind::RAW ? kRaw : h.kind == HazardKind::WAW ? kWaw : kWar;
    return k;
}

// Whether the barrier before command k carries a memory dependency. Conservative barriers
// always do (the runtime records them as full barriers); minimal ones when the planner says.
inline bool carriesMemory(const std::vector<Barrier>& b, int k, bool conservative) {
    return b[k].present && (conservative || b[k].needsMemoryDependency());
}

// Whether some barrier in [from, to] orders a hazard of this kind.
inline bool orderedIn(const std::vector<Barrier>& b, int from, int to, bool memory, bool conservative) {
    for (int k = from; k <= to; ++k)
        if (memory ? carriesMemory(b, k, conservative) : b[k].present) return true;
    return false;
}

// The hazards of command j that no barrier before j (strictly) orders yet: what a minimal
// barrier just before j has to cover.
inline std::vector<PairHazard> unorderedBefore(const std::vector<Command>& cmds, const std::vector<Barrier>& b, int j,
                                              bool conservative) {
    std::vector<PairHazard> out;
    for (int i = 0; i < j; ++i)
        for (const auto& h : hazardsBetween(cmds, i, j))
            if (!orderedIn(b, i + 1, j - 1, needsMemory(h.kind), conservative)) out.push_back(h);
    return out;
}

// Ordering: returns one message per hazardous pair left unordered (empty when correct).
inline std::vector<std::string> checkOrdering(const std::vector<Command>& cmds, const std::vector<Barrier>& b,
                                              bool conservative) {
    std::vector<std::string> errors;
    const int n = static_cast<int>(cmds.size());
    if (static_cast<int>(b.size()) != n) {
        errors.push_back(fmt::format("{} barriers for {} commands", b.size(), n));
        return errors;
    }
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < j; ++i) {
            unsigned k = kindsBetween(cmds, i, j);
            if (!k) continue;
            if (!orderedIn(b, i + 1, j, false, conservative))
                errors.push_back(fmt::format("commands {} -> {}: hazard with no barrier in between", i, j));
            else if ((k & (kRaw | kWaw)) && !orderedIn(b, i + 1, j, true, conservative))
                errors.push_back(fmt::format("commands {} -> {}: {} with no memory dependency in between", i, j,
                                             (k & kRaw) ? "RAW" : "WAW"));
        }
    return errors;
}

// Minimality (minimal mode): one message per barrier that orders nothing new, or that
// carries a memory dependency nothing needs.
inline std::vector<std::string> checkMinimality(const std::vector<Command>& cmds, const std::vector<Barrier>& b) {
    std::vector<std::string> errors;
    for (int k = 0; k < static_cast<int>(cmds.size()); ++k) {
        if (!b[k].present) continue;
        auto open = unorderedBefore(cmds, b, k, false);
        if (open.empty()) errors.push_back(fmt::format("barrier before command {} orders nothing new", k));
        bool memoryNeeded = false;
        for (const auto& h : open) memoryNeeded |= needsMemory(h.kind);
        if (b[k].needsMemoryDependency() && !memoryNeeded)
            errors.push_back(fmt::format("barrier before command {} carries a memory dependency nothing needs", k));
    }
    return errors;
}

// Reports: the hazards each present barrier lists equal (as a set) the ones open before it;
// absent barriers list none (minimal mode).
inline std::vector<std::string> checkReports(const std::vector<Command>& cmds, const std::vector<Barrier>& b,
                                             bool conservative) {
    std::vector<std::string> errors;
    for (int k = 0; k < static_cast<int>(cmds.size()); ++k) {
        std::set<std::tuple<int, int, int, int>> want, got;  // kind, alloc, earlierTag, laterTag
        if (b[k].present || !conservative)
            for (const auto& h : unorderedBefore(cmds, b, k, conservative))
                want.insert({static_cast<int>(h.kind), h.alloc, h.earlierTag, h.laterTag});
        for (const auto& h : b[k].hazards) got.insert({static_cast<int>(h.kind), h.alloc, h.earlierTag, h.laterTag});
        if (!b[k].present && !b[k].hazards.empty())
            errors.push_back(fmt::format("command {}: hazards listed without a barrier", k));
        if (b[k].present && want != got)
            errors.push_back(fmt::format("command {}: barrier lists {} hazards, {} are open", k, got.size(), want.size()));
        if (!b[k].present && !conservative && !want.empty())
            errors.push_back(fmt::format("command {}: {} open hazards but no barrier", k, want.size()));
    }
    return errors;
}

// The fewest barriers any placement (for this fixed order) can reach: each hazardous pair
// (i, j) needs a barrier in (i, j], and any barrier may carry a memory dependency, so this
// is interval stabbing, solved exactly by the greedy "stab at the earliest right end".
inline int fewestBarriers(const std::vector<Command>& cmds) {
    const int n = static_cast<int>(cmds.size());
    int count = 0, last = -1;  // position of the last barrier placed
    for (int j = 0; j < n; ++j)
        for (int i = std::max(last, 0); i < j; ++i) {  // (i, j] with i >= last is not stabbed yet
            if (kindsBetween(cmds, i, j)) {
                last = j;
                ++count;
                break;
            }
        }
    return count;
}

inline std::string joined(const std::vector<std::string>& errors, size_t max = 10) {
    std::string s;
    for (size_t i = 0; i < errors.size() && i < max; ++i) s += errors[i] + "\n";
    if (errors.size() > max) s += fmt::format("... and {} more\n", errors.size() - max);
    return s;
}

}  // namespace vkinfer::plan::check
