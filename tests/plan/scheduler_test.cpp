// Wave scheduling: waves are longest hazard chains; commands of one wave never conflict.
#include <gtest/gtest.h>

#include <algorithm>

#include "plan/barrier_checker.h"
#include "plan/plan_test_util.h"
#include "plan/scheduler.h"

namespace vkinfer::plan {
namespace {

using testutil::C;
using testutil::R;
using testutil::RandomCommands;

// Checks the structural promises of a schedule: order is a permutation sorted by wave,
// stable (original index order) within a wave, and one wave holds no conflicting pair.
void expectWellFormed(const std::vector<Command>& cmds, const Schedule& s) {
    const int n = static_cast<int>(cmds.size());
    ASSERT_EQ(static_cast<int>(s.order.size()), n);
    ASSERT_EQ(static_cast<int>(s.wave.size()), n);
    std::vector<int> sorted = s.order;
    std::sort(sorted.begin(), sorted.end());
    for (int i = 0; i < n; ++i) ASSERT_EQ(sorted[i], i) << "order is not a permutation";
    for (int p = 1; p < n; ++p) {
        int a = s.order[p - 1], b = s.order[p];
        ASSERT_LE(s.wave[a], s.wave[b]) << "order not sorted by wave at " << p;
        if (s.wave[a] == s.wave[b]) {
            ASSERT_LT(a, b) << "order within wave " << s.wave[a] << " is not stable";
        }
    }
    int maxWave = -1;
    for (int i = 0; i < n; ++i) maxWave = std::max(maxWave, s.wave[i]);
    EXPECT_EQ(s.waves, maxWave + 1);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < j; ++i)
            if (s.wave[i] == s.wave[j]) {
                ASSERT_EQ(check::kindsBetween(cmds, i, j), 0u) << i << " and " << j << " conflict";
            }
}

TEST(Scheduler, EmptyInput) {
    Schedule s = scheduleWaves({});
    EXPECT_EQ(s.waves, 0);
    EXPECT_TRUE(s.order.empty());
}

TEST(Scheduler, ChainGetsOneWavePerCommand) {
    std::vector<Command> cmds;
    for (int i = 0; i < 6; ++i) cmds.push_back(C({R(i, 0, 64)}, {R(i + 1, 0, 64)}));
    Schedule s = scheduleWaves(cmds);
    EXPECT_EQ(s.waves, 6);
    for (int i = 0; i < 6; ++i) EXPECT_EQ(s.wave[i], i);
    EXPECT_EQ(s.order, (std::vector<int>{0, 1, 2, 3, 4, 5}));
    for (int i = 1; i < 6; ++i) EXPECT_EQ(s.deps[i], (std::vector<int>{i - 1}));
    expectWellFormed(cmds, s);
}

TEST(Scheduler, DiamondPutsBranchesInOneWave) {
    std::vector<Command> cmds = {
        C({R(9, 0, 64)}, {R(0, 0, 64)}),               // 0: source
        C({R(0, 0, 64)}, {R(1, 0, 64)}),               // 1: branch a
        C({R(1, 0, 64)}, {R(3, 0, 64)}),               // 2: branch a, second step
        C({R(0, 0, 64)}, {R(2, 0, 64)}),               // 3: branch b
        C({R(3, 0, 64), R(2, 0, 64)}, {R(4, 0, 64)}),  // 4: join
    };
    Schedule s = scheduleWaves(cmds);
    EXPECT_EQ(s.wave, (std::vector<int>{0, 1, 2, 1, 3}));
    EXPECT_EQ(s.waves, 4);
    // Branch b moves up next to branch a.
    EXPECT_EQ(s.order, (std::vector<int>{0, 1, 3, 2, 4}));
    EXPECT_EQ(s.deps[4], (std::vector<int>{2, 3}));
    expectWellFormed(cmds, s);
}

TEST(Scheduler, IndependentCommandsShareWaveZeroInOriginalOrder) {
    std::vector<Command> cmds;
    for (int i = 0; i < 5; ++i) cmds.push_back(C({R(100, 0, 64)}, {R(i, 0, 64)}));  // all read one input
    Schedule s = scheduleWaves(cmds);
    EXPECT_EQ(s.waves, 1);
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(s.wave[i], 0);
        EXPECT_TRUE(s.deps[i].empty());
    }
    EXPECT_EQ(s.order, (std::vector<int>{0, 1, 2, 3, 4}));
}

TEST(Scheduler, WarAndWawAreDependencies) {
    std::vector<Command> cmds = {
        C({R(0, 0, 64)}, {R(1, 0, 64)}),  // 0: reads 0
        C({}, {R(0, 0, 64)}),             // 1: overwrites 0: WAR on 0
        C({}, {R(1, 32, 64)}),            // 2: overwrites part of 1: WAW
        C({}, {R(1, 64, 128)}),           // 3: touches 1 only at the end: independent
    };
    Schedule s = scheduleWaves(cmds);
    EXPECT_EQ(s.wave, (std::vector<int>{0, 1, 1, 0}));
    EXPECT_EQ(s.deps[1], (std::vector<int>{0}));
    EXPECT_EQ(s.deps[2], (std::vector<int>{0}));
    EXPECT_EQ(s.order, (std::vector<int>{0, 3, 1, 2}));
    expectWellFormed(cmds, s);
}

TEST(Scheduler, WaveIsTheLongestChainNotTheShortest) {
    std::vector<Command> cmds = {
        C({}, {R(0, 0, 64)}),                          // 0
        C({R(0, 0, 64)}, {R(1, 0, 64)}),               // 1
        C({R(1, 0, 64)}, {R(2, 0, 64)}),               // 2
        C({R(0, 0, 64), R(2, 0, 64)}, {R(3, 0, 64)}),  // 3: reads 0 (wave 0) and 2 (wave 2)
    };
    Schedule s = scheduleWaves(cmds);
    EXPECT_EQ(s.wave[3], 3);
    EXPECT_EQ(s.deps[3], (std::vector<int>{0, 2}));
}

// Random sequences: waves equal an independent longest-path computation, and the schedule
// keeps every hazardous pair in its original relative order.
TEST(Scheduler, RandomSequencesMatchBruteForce) {
    RandomCommands gen;
    gen.maxCommands = 30;
    gen.allocs = 4;
    for (uint32_t seed = 0; seed < 1500; ++seed) {
        auto cmds = gen(seed);
        const int n = static_cast<int>(cmds.size());
        Schedule s = scheduleWaves(cmds);
        std::vector<int> wave(n, 0);
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < j; ++i)
                if (check::kindsBetween(cmds, i, j)) wave[j] = std::max(wave[j], wave[i] + 1);
        ASSERT_EQ(s.wave, wave) << "seed " << seed;
        expectWellFormed(cmds, s);
        if (::testing::Test::HasFatalFailure()) FAIL() << "seed " << seed;
        std::vector<int> pos(n);
        for (int p = 0; p < n; ++p) pos[s.order[p]] = p;
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < j; ++i)
                if (check::kindsBetween(cmds, i, j)) {
                    ASSERT_LT(pos[i], pos[j]) << "seed " << seed;
                }
        for (int j = 0; j < n; ++j)
            for (int i : s.deps[j]) ASSERT_NE(check::kindsBetween(cmds, i, j), 0u) << "seed " << seed;
    }
}

}  // namespace
}  // namespace vkinfer::plan
