// The barrier-placement cases of tests/plan/sync-cases.json (the design's expected placements,
// docs/DESIGN.md), each its own test, checked in minimal and conservative mode.
#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "plan/barrier_checker.h"
#include "plan/sync_planner.h"

namespace vkinfer::plan {
namespace {

using nlohmann::json;

struct SyncCase {
    std::string name;
    std::vector<Command> commands;
    std::vector<bool> expectBarrier;
    std::vector<std::set<std::pair<std::string, int>>> expectCovers;  // (kind, allocation)
    std::map<std::string, int> allocIds;
};

// Loaded once; empty when the file is missing or unreadable (loadError says why).
std::string& loadError() {
    static std::string e;
    return e;
}

const std::vector<SyncCase>& allCases() {
    static const std::vector<SyncCase> cases = [] {
        std::vector<SyncCase> out;
        std::ifstream f(VKINFER_SYNC_CASES);
        if (!f) {
            loadError() = std::string("sync cases not found at ") + VKINFER_SYNC_CASES;
            return out;
        }
        json doc;
        try {
            doc = json::parse(f);
        } catch (const std::exception& e) {
            loadError() = std::string("sync cases do not parse: ") + e.what();
            return out;
        }
        for (const json& jc : doc.at("cases")) {
            SyncCase c;
            c.name = jc.at("name").get<std::string>();
            int tag = 0;
            auto allocId = [&](const std::string& name) {
                auto [it, fresh] = c.allocIds.emplace(name, static_cast<int>(c.allocIds.size()));
                return it->second;
            };
            auto ranges = [&](const json& cmd, const char* key) {
                std::vector<Range> rs;
                if (!cmd.contains(key)) return rs;
                for (const json& r : cmd.at(key))
                    rs.push_back({allocId(r.at(0).get<std::string>()), r.at(1).get<int64_t>(), r.at(2).get<int64_t>(), tag++});
                return rs;
            };
            for (const json& cmd : jc.at("commands")) c.commands.push_back({ranges(cmd, "reads"), ranges(cmd, "writes")});
            for (const json& e : jc.at("expect")) {
                c.expectBarrier.push_back(e.at("barrier").get<bool>());
                std::set<std::pair<std::string, int>> covers;
                if (e.contains("covers"))
                    for (const json& h : e.at("covers"))
                        covers.insert({h.at(0).get<std::string>(), allocId(h.at(1).get<std::string>())});
                c.expectCovers.push_back(std::move(covers));
            }
            out.push_back(std::move(c));
        }
        return out;
    }();
    return cases;
}

std::set<std::pair<std::string, int>> coveredBy(const Barrier& b) {
    std::set<std::pair<std::string, int>> s;
    for (const auto& h : b.hazards) s.insert({hazardKindName(h.kind), h.alloc});
    return s;
}

std::vector<std::string> caseNames() {
    std::vector<std::string> names;
    for (const auto& c : allCases()) names.push_back(c.name);
    if (names.empty()) names.push_back("missing");  // one test that skips with the reason
    return names;
}

const SyncCase* findCase(const std::string& name) {
    for (const auto& c : allCases())
        if (c.name == name) return &c;
    return nullptr;
}

class SyncCaseTest : public ::testing::TestWithParam<std::string> {
protected:
    const SyncCase& theCase() {
        const SyncCase* c = findCase(GetParam());
        return *c;
    }
    void SetUp() override {
        if (!findCase(GetParam())) GTEST_SKIP() << loadError();
        const SyncCase& c = theCase();
        ASSERT_EQ(c.commands.size(), c.expectBarrier.size()) << "malformed case: one 'expect' per command";
    }
};

TEST_P(SyncCaseTest, Minimal) {
    const SyncCase& c = theCase();
    auto barriers = placeBarriers(c.commands, false);
    ASSERT_EQ(barriers.size(), c.commands.size());
    for (size_t i = 0; i < c.commands.size(); ++i) {
        SCOPED_TRACE("command " + std::to_string(i));
        EXPECT_EQ(barriers[i].present, c.expectBarrier[i]);
        if (c.expectBarrier[i]) {
            EXPECT_EQ(coveredBy(barriers[i]), c.expectCovers[i]);
        } else {
            EXPECT_TRUE(barriers[i].hazards.empty());
        }
    }
    auto errors = check::checkOrdering(c.commands, barriers, false);
    EXPECT_TRUE(errors.empty()) << check::joined(errors);
    errors = check::checkMinimality(c.commands, barriers);
    EXPECT_TRUE(errors.empty()) << check::joined(errors);
    errors = check::checkReports(c.commands, barriers, false);
    EXPECT_TRUE(errors.empty()) << check::joined(errors);
}

TEST_P(SyncCaseTest, Conservative) {
    const SyncCase& c = theCase();
    auto barriers = placeBarriers(c.commands, true);
    ASSERT_EQ(barriers.size(), c.commands.size());
    for (size_t i = 0; i < c.commands.size(); ++i) EXPECT_EQ(barriers[i].present, i > 0) << "command " << i;
    auto errors = check::checkOrdering(c.commands, barriers, true);
    EXPECT_TRUE(errors.empty()) << check::joined(errors);
    errors = check::checkReports(c.commands, barriers, true);
    EXPECT_TRUE(errors.empty()) << check::joined(errors);
}

// The expectations themselves agree with the brute-force checker's view of the rules.
TEST_P(SyncCaseTest, ExpectationsAgreeWithChecker) {
    const SyncCase& c = theCase();
    std::vector<Barrier> expected(c.commands.size());
    for (size_t i = 0; i < c.commands.size(); ++i) {
        expected[i].present = c.expectBarrier[i];
        for (const auto& [kind, alloc] : c.expectCovers[i])
            expected[i].hazards.push_back(
                {kind == "RAW" ? HazardKind::RAW : kind == "WAW" ? HazardKind::WAW : HazardKind::WAR, alloc, -1, -1, -1});
    }
    auto errors = check::checkOrdering(c.commands, expected, false);
    EXPECT_TRUE(errors.empty()) << check::joined(errors);
    errors = check::checkMinimality(c.commands, expected);
    EXPECT_TRUE(errors.empty()) << check::joined(errors);
}

std::string testName(const ::testing::TestParamInfo<std::string>& info) {
    std::string s;
    for (char ch : info.param) s += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
    return std::to_string(info.index) + "_" + s;
}

INSTANTIATE_TEST_SUITE_P(SharedCases, SyncCaseTest, ::testing::ValuesIn(caseNames()), testName);

TEST(SyncCasesFile, HasCases) {
    if (allCases().empty()) GTEST_SKIP() << loadError();
    EXPECT_GE(allCases().size(), 10u);
}

}  // namespace
}  // namespace vkinfer::plan
