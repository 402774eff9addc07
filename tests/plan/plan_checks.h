// Independent checks of a compiled plan's memory (tests only): arena reuse never puts two
// tensors that are live in a common wave at overlapping bytes.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "plan/compile.h"

namespace vkinfer::plan::check {

// Storage families: a value and the views / in-place Concat inputs that alias it. Two values
// join a family only when their locations prove the aliasing (a view at exactly its input's
// bytes or inside them; a Concat input at exactly its slot in the output), so an overlap caused by a wrong
// arena offset is not excused.
struct Families {
    std::vector<int> parent;
    int find(int v) { return parent[v] == v ? v : parent[v] = find(parent[v]); }
    void join(int a, int b) { parent[find(a)] = find(b); }
};

inline Families storageFamilies(const CompiledPlan& p) {
    const auto& g = p.graph;
    Families f;
    f.parent.resize(g.values.size());
    std::iota(f.parent.begin(), f.parent.end(), 0);
    std::set<std::string> views(p.viewNodes.begin(), p.viewNodes.end());
    auto at = [&](int a, int b, int64_t delta) {  // a lives at b's bytes + delta
        const Location& la = p.location[a];
        const Location& lb = p.location[b];
        return la.alloc >= 0 && la.alloc == lb.alloc && la.offset == lb.offset + delta;
    };
    for (const auto& n : g.nodes) {
        if (n.removed || n.outputs.empty()) continue;
        int out = n.outputs[0];
        if (n.opType == "Concat") {
            int64_t slot = 0;  // valid as a byte offset when everything before the axis is 1
            for (int in : n.inputs) {
                if (in < 0) continue;
                if (at(in, out, slot)) f.join(in, out);
                slot += g.values[in].byteSize();
            }
        } else if (views.count(n.name) && !n.inputs.empty() && n.inputs[0] >= 0) {
            // A view at its input's bytes, or (a Slice, Split or Gather taking a contiguous
            // run) wholly inside them.
            const int in = n.inputs[0];
            const Location& lo = p.location[out];
            const Location& li = p.location[in];
            const bool inside = lo.alloc >= 0 && lo.alloc == li.alloc && lo.offset >= li.offset &&
                                lo.offset + g.values[out].byteSize() <= li.offset + g.values[in].byteSize();
            if (at(in, out, 0) || inside) f.join(in, out);
        }
    }
    return f;
}

struct ArenaReport {
    std::vector<std::string> errors;
    int families = 0;     // storage families accessed in the arena
    int reusedPairs = 0;  // pairs of families that share bytes (at disjoint lifetimes)
    int disjointPairs = 0;  // pairs of families whose lifetimes are disjoint (could share bytes)
};

// Lifetimes are the waves of the dispatches that access any member of a family.
inline ArenaReport checkArena(const CompiledPlan& p) {
    ArenaReport rep;
    const auto& g = p.graph;
    Families fam = storageFamilies(p);
    struct Span {
        int first = INT_MAX, last = -1;
        int64_t begin = INT64_MAX, end = -1;
    };
    std::map<int, Span> spans;
    for (size_t i = 0; i < p.commands.size(); ++i)
        for (const auto* rs : {&p.commands[i].reads, &p.commands[i].writes})
            for (const Range& r : *rs) {
                if (r.alloc != kArenaAlloc) continue;
                if (r.tag < 0 || p.location[r.tag].alloc != kArenaAlloc) {
                    rep.errors.push_back(fmt::format("dispatch {}: arena access of a value not located in the arena", i));
                    continue;
                }
                const Location& loc = p.location[r.tag];
                Span& s = spans[fam.find(r.tag)];
                s.first = std::min(s.first, p.wave[i]);
                s.last = std::max(s.last, p.wave[i]);
                s.begin = std::min(s.begin, loc.offset);
                s.end = std::max(s.end, loc.offset + g.values[r.tag].byteSize());
                if (r.begin < loc.offset || r.end > loc.offset + g.values[r.tag].byteSize())
                    rep.errors.push_back(fmt::format("dispatch {}: access outside '{}'", i, g.values[r.tag].name));
            }
    rep.families = static_cast<int>(spans.size());
    for (auto a = spans.begin(); a != spans.end(); ++a)
        for (auto b = std::next(a); b != spans.end(); ++b) {
            bool live = a->second.first <= b->second.last && b->second.first <= a->second.last;
            bool bytes = a->second.begin < b->second.end && b->second.begin < a->second.end;
            if (live && bytes)
                rep.errors.push_back(fmt::format("'{}' (waves {}-{}) and '{}' (waves {}-{}) share arena bytes",
                                                 g.values[a->first].name, a->second.first, a->second.last,
                                                 g.values[b->first].name, b->second.first, b->second.last));
            rep.reusedPairs += bytes;
            rep.disjointPairs += !live;
        }
    return rep;
}

}  // namespace vkinfer::plan::check
