// Hand-written barrier placement cases beyond those of sync-cases.json.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "plan/barrier_checker.h"
#include "plan/plan_test_util.h"
#include "plan/sync_planner.h"

namespace vkinfer::plan {
namespace {

using testutil::C;
using testutil::R;

constexpr int A = 0, B = 1, X = 2, Y = 3;

std::set<std::pair<HazardKind, int>> kinds(const Barrier& b) {
    std::set<std::pair<HazardKind, int>> s;
    for (const auto& h : b.hazards) s.insert({h.kind, h.alloc});
    return s;
}

int countBarriers(const std::vector<Barrier>& bs) {
    return static_cast<int>(std::count_if(bs.begin(), bs.end(), [](const Barrier& b) { return b.present; }));
}

void expectCheckerAccepts(const std::vector<Command>& cmds, const std::vector<Barrier>& bs) {
    auto e = check::checkOrdering(cmds, bs, false);
    EXPECT_TRUE(e.empty()) << check::joined(e);
    e = check::checkMinimality(cmds, bs);
    EXPECT_TRUE(e.empty()) << check::joined(e);
    e = check::checkReports(cmds, bs, false);
    EXPECT_TRUE(e.empty()) << check::joined(e);
}

TEST(SyncPlanner, EmptyAndAccessFreeCommands) {
    EXPECT_TRUE(placeBarriers({}, false).empty());
    EXPECT_TRUE(placeBarriers({}, true).empty());
    std::vector<Command> cmds(3);
    auto bs = placeBarriers(cmds, false);
    ASSERT_EQ(bs.size(), 3u);
    EXPECT_EQ(countBarriers(bs), 0);
    EXPECT_EQ(countBarriers(placeBarriers(cmds, true)), 2);
}

TEST(SyncPlanner, WarOnlyBarrierIsExecutionOnly) {
    std::vector<Command> cmds = {C({R(A, 0, 64)}, {R(B, 0, 64)}), C({}, {R(A, 0, 64)})};
    auto bs = placeBarriers(cmds, false);
    ASSERT_TRUE(bs[1].present);
    EXPECT_EQ(kinds(bs[1]), (std::set<std::pair<HazardKind, int>>{{HazardKind::WAR, A}}));
    EXPECT_FALSE(bs[1].needsMemoryDependency());
    expectCheckerAccepts(cmds, bs);
}

TEST(SyncPlanner, RawAndWawNeedMemoryDependency) {
    auto raw = placeBarriers({C({}, {R(A, 0, 64)}), C({R(A, 0, 64)}, {})}, false);
    ASSERT_TRUE(raw[1].present);
    EXPECT_EQ(raw[1].hazards.at(0).kind, HazardKind::RAW);
    EXPECT_TRUE(raw[1].needsMemoryDependency());

    auto waw = placeBarriers({C({}, {R(A, 0, 64)}), C({}, {R(A, 32, 96)})}, false);
    ASSERT_TRUE(waw[1].present);
    EXPECT_EQ(waw[1].hazards.at(0).kind, HazardKind::WAW);
    EXPECT_TRUE(waw[1].needsMemoryDependency());

    // A barrier with WAR and RAW hazards together needs the memory dependency.
    auto mixed = placeBarriers({C({R(A, 0, 64)}, {R(B, 0, 64)}), C({R(B, 0, 64)}, {R(A, 0, 64)})}, false);
    ASSERT_TRUE(mixed[1].present);
    EXPECT_EQ(kinds(mixed[1]), (std::set<std::pair<HazardKind, int>>{{HazardKind::RAW, B}, {HazardKind::WAR, A}}));
    EXPECT_TRUE(mixed[1].needsMemoryDependency());
}

TEST(SyncPlanner, HazardRecordsNameCommandsAndTensors) {
    auto bs = placeBarriers({C({}, {R(A, 0, 64, 7)}), C({R(X, 0, 8, 1)}, {}), C({R(A, 16, 32, 9)}, {})}, false);
    ASSERT_TRUE(bs[2].present);
    ASSERT_EQ(bs[2].hazards.size(), 1u);
    const Hazard& h = bs[2].hazards[0];
    EXPECT_EQ(h.kind, HazardKind::RAW);
    EXPECT_EQ(h.alloc, A);
    EXPECT_EQ(h.earlierCommand, 0);
    EXPECT_EQ(h.earlierTag, 7);
    EXPECT_EQ(h.laterTag, 9);
    EXPECT_STREQ(hazardKindName(HazardKind::RAW), "RAW");
    EXPECT_STREQ(hazardKindName(HazardKind::WAW), "WAW");
    EXPECT_STREQ(hazardKindName(HazardKind::WAR), "WAR");
}

// A write ordered against a later command only by an execution-only (WAR) barrier is not
// yet visible: a later reader (or writer) of its bytes still gets a memory barrier.
TEST(SyncPlanner, WriteBehindExecutionOnlyBarrierStillNeedsMemoryBarrier) {
    std::vector<Command> cmds = {
        C({R(A, 0, 64)}, {}),  // 0: reads A
        C({}, {R(B, 0, 64)}),  // 1: writes B
        C({}, {R(A, 0, 64)}),  // 2: WAR on A -> execution-only barrier (B's write now "invisible")
        C({R(B, 0, 64)}, {}),  // 3: RAW on B -> needs a memory barrier despite barrier 2
        C({R(B, 0, 64)}, {}),  // 4: B is visible now: nothing
    };
    auto bs = placeBarriers(cmds, false);
    ASSERT_TRUE(bs[2].present);
    EXPECT_FALSE(bs[2].needsMemoryDependency());
    ASSERT_TRUE(bs[3].present);
    EXPECT_EQ(kinds(bs[3]), (std::set<std::pair<HazardKind, int>>{{HazardKind::RAW, B}}));
    EXPECT_EQ(bs[3].hazards[0].earlierCommand, 1);
    EXPECT_TRUE(bs[3].needsMemoryDependency());
    EXPECT_FALSE(bs[4].present);
    expectCheckerAccepts(cmds, bs);

    // Same for a writer: WAW on the invisible write.
    cmds[3] = C({}, {R(B, 32, 48)});
    bs = placeBarriers(cmds, false);
    ASSERT_TRUE(bs[3].present);
    EXPECT_EQ(kinds(bs[3]), (std::set<std::pair<HazardKind, int>>{{HazardKind::WAW, B}}));
    EXPECT_TRUE(bs[3].needsMemoryDependency());
    expectCheckerAccepts(cmds, bs);
}

// A later memory barrier (for any allocation) makes every earlier write visible, including
// those an execution-only barrier left behind.
TEST(SyncPlanner, MemoryBarrierMakesEarlierInvisibleWritesVisible) {
    std::vector<Command> cmds = {
        C({R(A, 0, 64)}, {}),         // 0
        C({}, {R(B, 0, 64)}),         // 1: writes B
        C({}, {R(A, 0, 64)}),         // 2: WAR A -> execution-only barrier
        C({R(A, 0, 64)}, {}),         // 3: RAW A -> memory barrier (global: also covers B)
        C({R(B, 0, 64)}, {}),         // 4: nothing left to order
    };
    auto bs = placeBarriers(cmds, false);
    EXPECT_FALSE(bs[2].needsMemoryDependency());
    EXPECT_TRUE(bs[3].needsMemoryDependency());
    EXPECT_FALSE(bs[4].present);
    EXPECT_EQ(countBarriers(bs), 2);
    expectCheckerAccepts(cmds, bs);
}

// Two execution-only barriers in a row keep the writes of both windows tracked.
TEST(SyncPlanner, InvisibleWritesAccumulateOverExecutionOnlyBarriers) {
    std::vector<Command> cmds = {
        C({R(A, 0, 64), R(Y, 0, 64)}, {R(B, 0, 64)}),  // 0: writes B
        C({}, {R(A, 0, 64)}),                          // 1: WAR A (exec only); B invisible
        C({}, {R(X, 0, 64), R(Y, 0, 64)}),             // 2: writes X, WAR Y -> barrier (exec only)?
        C({R(B, 0, 64), R(X, 0, 64)}, {}),             // 3: RAW B and X -> memory
    };
    auto bs = placeBarriers(cmds, false);
    ASSERT_TRUE(bs[1].present);
    EXPECT_FALSE(bs[1].needsMemoryDependency());
    // Y was read by command 0, ordered by barrier 1 already: no barrier at 2.
    EXPECT_FALSE(bs[2].present);
    ASSERT_TRUE(bs[3].present);
    EXPECT_EQ(kinds(bs[3]), (std::set<std::pair<HazardKind, int>>{{HazardKind::RAW, B}, {HazardKind::RAW, X}}));
    expectCheckerAccepts(cmds, bs);

    // Force a second execution-only barrier: command 2 now overwrites what command 1 read.
    cmds[1] = C({R(Y, 0, 64)}, {R(A, 0, 64)});
    cmds[2] = C({}, {R(Y, 0, 64), R(X, 0, 64)});
    bs = placeBarriers(cmds, false);
    ASSERT_TRUE(bs[2].present);
    EXPECT_EQ(kinds(bs[2]), (std::set<std::pair<HazardKind, int>>{{HazardKind::WAR, Y}}));
    EXPECT_FALSE(bs[2].needsMemoryDependency());
    ASSERT_TRUE(bs[3].present);
    EXPECT_TRUE(bs[3].needsMemoryDependency());
    EXPECT_EQ(kinds(bs[3]), (std::set<std::pair<HazardKind, int>>{{HazardKind::RAW, B}, {HazardKind::RAW, X}}));
    expectCheckerAccepts(cmds, bs);
}

TEST(SyncPlanner, AllHazardsBeforeOneCommandGoIntoOneBarrier) {
    std::vector<Command> cmds = {
        C({}, {R(A, 0, 64)}),                                      // 0: writes A
        C({}, {R(B, 0, 64)}),                                      // 1: writes B
        C({R(X, 0, 64)}, {R(Y, 0, 64)}),                           // 2: reads X, writes Y
        C({R(A, 0, 64), R(B, 0, 64)}, {R(X, 0, 64), R(Y, 0, 64)}),  // 3: RAW A, B; WAR X; WAW Y
    };
    auto bs = placeBarriers(cmds, false);
    EXPECT_EQ(countBarriers(bs), 1);
    ASSERT_TRUE(bs[3].present);
    EXPECT_EQ(kinds(bs[3]), (std::set<std::pair<HazardKind, int>>{
                                {HazardKind::RAW, A}, {HazardKind::RAW, B}, {HazardKind::WAR, X}, {HazardKind::WAW, Y}}));
    std::set<int> earlier;
    for (const auto& h : bs[3].hazards) earlier.insert(h.earlierCommand);
    EXPECT_EQ(earlier, (std::set<int>{0, 1, 2}));
    EXPECT_TRUE(bs[3].needsMemoryDependency());
    expectCheckerAccepts(cmds, bs);
}

TEST(SyncPlanner, DuplicateBindingsAreReportedOnce) {
    auto bs = placeBarriers({C({}, {R(A, 0, 64, 1)}), C({R(A, 0, 32, 2), R(A, 0, 32, 2)}, {})}, false);
    ASSERT_TRUE(bs[1].present);
    EXPECT_EQ(bs[1].hazards.size(), 1u);
}

// Views and in-place concat: sub-ranges of one allocation conflict exactly when their bytes
// overlap (half-open ranges).
TEST(SyncPlanner, ViewsOfOneAllocationConflictByBytes) {
    std::vector<Command> cmds = {
        C({}, {R(A, 0, 2048, 1)}),            // 0: first half (concat input 1)
        C({}, {R(A, 2048, 4096, 2)}),         // 1: second half (concat input 2): no conflict
        C({R(A, 1024, 3072, 3)}, {R(B, 0, 64)}),  // 2: a view across both: RAW on both writers
        C({}, {R(A, 3072, 4096, 4)}),         // 3: only touches what 2 read: ordered by barrier 2
        C({}, {R(A, 3000, 3100, 5)}),         // 4: overlaps 2's read and 3's write
        C({R(A, 0, 16, 6)}, {}),              // 5: bytes last written by 0, ordered already
    };
    auto bs = placeBarriers(cmds, false);
    EXPECT_FALSE(bs[1].present);
    ASSERT_TRUE(bs[2].present);
    EXPECT_EQ(kinds(bs[2]), (std::set<std::pair<HazardKind, int>>{{HazardKind::RAW, A}}));
    std::set<int> earlier;
    for (const auto& h : bs[2].hazards) earlier.insert(h.earlierCommand);
    EXPECT_EQ(earlier, (std::set<int>{0, 1}));
    EXPECT_FALSE(bs[3].present);
    ASSERT_TRUE(bs[4].present);
    EXPECT_EQ(kinds(bs[4]), (std::set<std::pair<HazardKind, int>>{{HazardKind::WAR, A}, {HazardKind::WAW, A}}));
    EXPECT_FALSE(bs[5].present);
    expectCheckerAccepts(cmds, bs);
}

TEST(SyncPlanner, OneByteOverlapConflicts) {
    auto bs = placeBarriers({C({}, {R(A, 0, 513)}), C({R(A, 512, 1024)}, {})}, false);
    EXPECT_TRUE(bs[1].present);
    bs = placeBarriers({C({}, {R(A, 0, 512)}), C({R(A, 512, 1024)}, {})}, false);
    EXPECT_FALSE(bs[1].present);
}

TEST(SyncPlanner, DistinctAllocationsNeverConflict) {
    // Identical byte ranges, every combination of access kinds, each on its own allocation.
    std::vector<Command> cmds;
    for (int a = 0; a < 8; ++a) cmds.push_back(C({R(a, 0, 4096)}, {R(a + 8, 0, 4096)}));
    for (int a = 0; a < 8; ++a) cmds.push_back(C({R(a + 24, 0, 4096)}, {R(a + 16, 0, 4096)}));
    auto bs = placeBarriers(cmds, false);
    EXPECT_EQ(countBarriers(bs), 0);
    for (const auto& b : bs) EXPECT_TRUE(b.hazards.empty());
    // The conservative mode still puts one before each but the first, with nothing to cover.
    bs = placeBarriers(cmds, true);
    EXPECT_EQ(countBarriers(bs), static_cast<int>(cmds.size()) - 1);
    for (const auto& b : bs) EXPECT_TRUE(b.hazards.empty());
}

TEST(SyncPlanner, InPlaceReadWriteOfOneCommandIsNoHazard) {
    std::vector<Command> cmds = {C({R(A, 0, 64)}, {R(A, 0, 64)}), C({R(B, 0, 64)}, {R(B, 0, 64)}),
                                 C({R(A, 0, 64)}, {R(A, 0, 64)})};
    auto bs = placeBarriers(cmds, false);
    EXPECT_FALSE(bs[0].present);
    EXPECT_FALSE(bs[1].present);
    ASSERT_TRUE(bs[2].present);
    EXPECT_EQ(kinds(bs[2]), (std::set<std::pair<HazardKind, int>>{
                                {HazardKind::RAW, A}, {HazardKind::WAW, A}, {HazardKind::WAR, A}}));
    expectCheckerAccepts(cmds, bs);
}

TEST(SyncPlanner, ConservativeReportsOnlyHazardsWithThePreviousCommand) {
    std::vector<Command> cmds = {C({}, {R(A, 0, 64)}), C({}, {R(B, 0, 64)}), C({R(A, 0, 64)}, {R(X, 0, 64)}),
                                 C({R(X, 0, 64)}, {})};
    auto bs = placeBarriers(cmds, true);
    EXPECT_FALSE(bs[0].present);
    for (size_t i = 1; i < cmds.size(); ++i) EXPECT_TRUE(bs[i].present);
    EXPECT_TRUE(bs[1].hazards.empty());
    EXPECT_TRUE(bs[2].hazards.empty());  // A was written two commands earlier: barrier 1 ordered it
    EXPECT_EQ(kinds(bs[3]), (std::set<std::pair<HazardKind, int>>{{HazardKind::RAW, X}}));
    auto e = check::checkOrdering(cmds, bs, true);
    EXPECT_TRUE(e.empty()) << check::joined(e);
    e = check::checkReports(cmds, bs, true);
    EXPECT_TRUE(e.empty()) << check::joined(e);
}

}  // namespace
}  // namespace vkinfer::plan
