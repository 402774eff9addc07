// Randomized property tests of the sync planner against the independent brute-force checker
// (barrier_checker.h), and tests that the checker itself catches broken placements.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "plan/barrier_checker.h"
#include "plan/plan_test_util.h"
#include "plan/scheduler.h"
#include "plan/sync_planner.h"

namespace vkinfer::plan {
namespace {

using testutil::C;
using testutil::R;
using testutil::RandomCommands;

constexpr uint32_t kSeeds = 3000;

int countBarriers(const std::vector<Barrier>& bs) {
    return static_cast<int>(std::count_if(bs.begin(), bs.end(), [](const Barrier& b) { return b.present; }));
}

// The generator must actually produce every kind of hazard, or the properties are vacuous.
TEST(SyncProperty, GeneratorCoversAllHazardKinds) {
    RandomCommands gen;
    int raw = 0, waw = 0, war = 0, execOnly = 0, invisibleRaw = 0;
    for (uint32_t seed = 0; seed < 500; ++seed) {
        auto cmds = gen(seed);
        auto bs = placeBarriers(cmds, false);
        for (size_t k = 0; k < bs.size(); ++k) {
            for (const auto& h : bs[k].hazards) {
                raw += h.kind == HazardKind::RAW;
                waw += h.kind == HazardKind::WAW;
                war += h.kind == HazardKind::WAR;
                // A RAW whose writer sits before an earlier (execution-only) barrier.
                for (size_t m = h.earlierCommand + 1; m < k; ++m)
                    if (h.kind == HazardKind::RAW && bs[m].present) {
                        ++invisibleRaw;
                        break;
                    }
            }
            execOnly += bs[k].present && !bs[k].needsMemoryDependency();
        }
    }
    EXPECT_GT(raw, 100);
    EXPECT_GT(waw, 100);
    EXPECT_GT(war, 100);
    EXPECT_GT(execOnly, 20);
    EXPECT_GT(invisibleRaw, 5);
}

TEST(SyncProperty, MinimalModeOrdersEveryHazardWithNoSpareBarrier) {
    RandomCommands gen;
    for (uint32_t seed = 0; seed < kSeeds; ++seed) {
        auto cmds = gen(seed);
        auto bs = placeBarriers(cmds, false);
        auto e = check::checkOrdering(cmds, bs, false);
        ASSERT_TRUE(e.empty()) << "seed " << seed << ":\n" << check::joined(e);
        e = check::checkMinimality(cmds, bs);
        ASSERT_TRUE(e.empty()) << "seed " << seed << ":\n" << check::joined(e);
        e = check::checkReports(cmds, bs, false);
        ASSERT_TRUE(e.empty()) << "seed " << seed << ":\n" << check::joined(e);
        ASSERT_FALSE(!bs.empty() && bs[0].present) << "seed " << seed << ": barrier before the first command";
    }
}

TEST(SyncProperty, ConservativeModeBarrierBeforeEveryCommandButTheFirst) {
    RandomCommands gen;
    for (uint32_t seed = 0; seed < kSeeds; seed += 3) {
        auto cmds = gen(seed);
        auto bs = placeBarriers(cmds, true);
        for (size_t i = 0; i < bs.size(); ++i) ASSERT_EQ(bs[i].present, i > 0) << "seed " << seed;
        auto e = check::checkOrdering(cmds, bs, true);
        ASSERT_TRUE(e.empty()) << "seed " << seed << ":\n" << check::joined(e);
        e = check::checkReports(cmds, bs, true);
        ASSERT_TRUE(e.empty()) << "seed " << seed << ":\n" << check::joined(e);
    }
}

// Denser sequences: many commands on one or two allocations.
TEST(SyncProperty, DenseSequencesOnFewAllocations) {
    RandomCommands gen;
    gen.maxCommands = 40;
    gen.allocs = 2;
    gen.maxReads = 2;
    gen.maxWrites = 3;
    for (uint32_t seed = 0; seed < 1000; ++seed) {
        auto cmds = gen(1000000 + seed);
        auto bs = placeBarriers(cmds, false);
        auto e = check::checkOrdering(cmds, bs, false);
        ASSERT_TRUE(e.empty()) << "seed " << seed << ":\n" << check::joined(e);
        e = check::checkMinimality(cmds, bs);
        ASSERT_TRUE(e.empty()) << "seed " << seed << ":\n" << check::joined(e);
    }
}

// The placement never beats the exact optimum (a sanity check of both), and reaches it
// whenever no execution-only barrier is involved: then it is the greedy interval stabbing.
TEST(SyncProperty, BarrierCountAgainstExactOptimum) {
    RandomCommands gen;
    int compared = 0;
    for (uint32_t seed = 0; seed < kSeeds; ++seed) {
        auto cmds = gen(seed);
        auto bs = placeBarriers(cmds, false);
        int placed = countBarriers(bs);
        int best = check::fewestBarriers(cmds);
        ASSERT_GE(placed, best) << "seed " << seed;
        bool allMemory = std::all_of(bs.begin(), bs.end(), [](const Barrier& b) { return !b.present || b.needsMemoryDependency(); });
        if (allMemory) {
            ASSERT_EQ(placed, best) << "seed " << seed;
            ++compared;
        }
    }
    EXPECT_GT(compared, 500);
}

// Waves: recording wave by wave never needs fewer than waves - 1 barriers, and the placement
// stays correct in the scheduled order.
TEST(SyncProperty, ScheduledOrderNeedsAtLeastWavesMinusOneBarriers) {
    RandomCommands gen;
    for (uint32_t seed = 0; seed < 1000; ++seed) {
        auto cmds = gen(seed);
        Schedule s = scheduleWaves(cmds);
        std::vector<Command> ordered;
        for (int c : s.order) ordered.push_back(cmds[c]);
        auto bs = placeBarriers(ordered, false);
        ASSERT_GE(countBarriers(bs), s.waves - 1) << "seed " << seed;
        auto e = check::checkOrdering(ordered, bs, false);
        ASSERT_TRUE(e.empty()) << "seed " << seed << ":\n" << check::joined(e);
    }
}

// With single-assignment data flow (each range written once, before its reads: what lowered
// graphs look like), the scheduled order reaches the bound exactly.
TEST(SyncProperty, SingleAssignmentDataFlowReachesWaveBound) {
    for (uint32_t seed = 0; seed < 1000; ++seed) {
        std::mt19937 rng(seed);
        auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
        int n = uni(1, 30);
        std::vector<Command> cmds(n);
        for (int i = 0; i < n; ++i) {
            cmds[i].writes.push_back(R(i, 0, 64, i));
            for (int k = uni(0, 3); k > 0 && i > 0; --k) {
                int src = uni(std::max(0, i - 6), i - 1);
                cmds[i].reads.push_back(R(src, 16 * uni(0, 2), 64, src));
            }
        }
        Schedule s = scheduleWaves(cmds);
        std::vector<Command> ordered;
        for (int c : s.order) ordered.push_back(cmds[c]);
        auto bs = placeBarriers(ordered, false);
        ASSERT_EQ(countBarriers(bs), s.waves - 1) << "seed " << seed;
    }
}

// The checker has teeth: dropping any necessary barrier, or stripping the memory dependency
// off a barrier that needs it, is caught.
TEST(SyncProperty, CheckerCatchesMutatedPlacements) {
    RandomCommands gen;
    int dropped = 0, downgraded = 0;
    for (uint32_t seed = 0; seed < 1000; ++seed) {
        auto cmds = gen(seed);
        auto bs = placeBarriers(cmds, false);
        for (size_t k = 0; k < bs.size(); ++k) {
            if (!bs[k].present) continue;
            auto mutated = bs;
            mutated[k].present = false;
            mutated[k].hazards.clear();
            ASSERT_FALSE(check::checkOrdering(cmds, mutated, false).empty()) << "seed " << seed << " dropping " << k;
            ++dropped;
            if (bs[k].needsMemoryDependency()) {
                mutated = bs;
                mutated[k].hazards = {{HazardKind::WAR, 0, 0, -1, -1}};  // execution only
                ASSERT_FALSE(check::checkOrdering(cmds, mutated, false).empty()) << "seed " << seed << " downgrading " << k;
                ++downgraded;
            }
        }
        // An extra barrier where none is needed is reported as not minimal.
        for (size_t k = 1; k < bs.size(); ++k) {
            if (bs[k].present) continue;
            auto mutated = bs;
            mutated[k].present = true;
            mutated[k].hazards = {{HazardKind::RAW, 0, 0, -1, -1}};
            ASSERT_FALSE(check::checkMinimality(cmds, mutated).empty()) << "seed " << seed << " adding " << k;
            break;
        }
    }
    EXPECT_GT(dropped, 1000);
    EXPECT_GT(downgraded, 500);
}

TEST(SyncChecker, FlagsHandMadeMistakes) {
    std::vector<Command> cmds = {C({}, {R(0, 0, 64)}), C({R(0, 0, 64)}, {})};
    std::vector<Barrier> none(2);
    EXPECT_EQ(check::checkOrdering(cmds, none, false).size(), 1u);
    std::vector<Barrier> execOnly(2);
    execOnly[1].present = true;
    execOnly[1].hazards = {{HazardKind::WAR, 0, 0, -1, -1}};
    EXPECT_EQ(check::checkOrdering(cmds, execOnly, false).size(), 1u);
    EXPECT_TRUE(check::checkOrdering(cmds, execOnly, true).empty());  // conservative: full barriers
    EXPECT_EQ(check::checkOrdering(cmds, std::vector<Barrier>(1), false).size(), 1u);  // wrong length
    EXPECT_EQ(check::fewestBarriers(cmds), 1);
    EXPECT_EQ(check::fewestBarriers({C({}, {R(0, 0, 64)}), C({}, {R(1, 0, 64)})}), 0);
}

}  // namespace
}  // namespace vkinfer::plan
