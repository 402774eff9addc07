// Small builders shared by the planner tests.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <random>
#include <vector>

#include "plan/access.h"

namespace vkinfer::plan::testutil {

inline Range R(int alloc, int64_t begin, int64_t end, int tag = -1) { return Range{alloc, begin, end, tag}; }

inline Command C(std::initializer_list<Range> reads, std::initializer_list<Range> writes) {
    return Command{std::vector<Range>(reads), std::vector<Range>(writes)};
}

// Random command sequences over a few small allocations. Ranges start and end on a 16-byte
// grid so that overlaps, touching ends and containment are all common. Every range gets a
// unique tag.
struct RandomCommands {
    int maxCommands = 24;
    int allocs = 3;
    int64_t allocBytes = 256;
    int maxReads = 3;
    int maxWrites = 2;

    std::vector<Command> operator()(uint32_t seed) const {
        std::mt19937 rng(seed);
        auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
        const int n = uni(1, maxCommands);
        const int slots = static_cast<int>(allocBytes / 16);
        int tag = 0;
        auto range = [&] {
            int64_t b = 16 * uni(0, slots - 1);
            int64_t e = std::min<int64_t>(allocBytes, b + 16 * uni(1, slots / 2));
            return Range{uni(0, allocs - 1), b, e, tag++};
        };
        std::vector<Command> cmds(n);
        for (auto& c : cmds) {
            for (int k = uni(0, maxReads); k > 0; --k) c.reads.push_back(range());
            for (int k = uni(0, maxWrites); k > 0; --k) c.writes.push_back(range());
        }
        return cmds;
    }
};

}  // namespace vkinfer::plan::testutil
