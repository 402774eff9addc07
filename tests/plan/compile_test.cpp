// Compiled plans of the shared test models (pure CPU, no GPU): barrier counts against the
// wave bound, the independent barrier checker, in-place Concat in SqueezeNet's fire modules,
// arena reuse, and the JSON report.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "plan/barrier_checker.h"
#include "plan/plan_checks.h"
#include "plan/compile.h"
#include "runtime/model_data.h"
#include "support/gpu_context.h"

namespace vkinfer::plan {
namespace {

struct ModelCase {
    std::string model;
    std::vector<int64_t> shape;  // of the first input; empty: the declared shape
};

std::string caseName(const ModelCase& c) {
    std::string s = c.model;
    for (size_t i = 0; i < c.shape.size(); ++i) {
        s += i ? 'x' : '_';
        s += std::to_string(c.shape[i]);
    }
    return s;
}

// Loads a shared model once; null (with `why` set) when the models are not available.
const Model* sharedModel(const std::string& name, std::string* why) {
    static std::map<std::string, std::unique_ptr<Model>> cache;
    std::string dir = testing::modelsDir();
    if (dir.empty()) {
        *why = "shared test models not found (../shared/models; set VKINFER_MODELS_DIR)";
        return nullptr;
    }
    auto it = cache.find(name);
    if (it != cache.end()) return it->second.get();
    std::string path = dir + "/" + name + "/model.onnx";
    if (!std::filesystem::exists(path)) {
        *why = "model not found: " + path;
        return nullptr;
    }
    auto m = Model::load(path);
    if (!m.ok()) {
        ADD_FAILURE() << "loading " << path << ": " << m.status().toString();
        *why = "model failed to load";
        return nullptr;
    }
    return cache.emplace(name, std::make_unique<Model>(std::move(*m))).first->second.get();
}

// Compiles once per (case, mode).
const CompiledPlan* compiled(const ModelCase& c, SyncMode mode, std::string* why) {
    static std::map<std::pair<std::string, int>, std::unique_ptr<CompiledPlan>> cache;
    auto key = std::make_pair(caseName(c), static_cast<int>(mode));
    auto it = cache.find(key);
    if (it != cache.end()) return it->second.get();
    const Model* model = sharedModel(c.model, why);
    if (!model) return nullptr;
    InputShapes given;
    if (!c.shape.empty()) given.push_back({model->inputs().at(0).name, c.shape});
    auto shapes = model->resolveShapes(given);
    if (!shapes.ok()) {
        ADD_FAILURE() << caseName(c) << ": " << shapes.status().toString();
        *why = "shapes do not resolve";
        return nullptr;
    }
    PlanOptions opt;
    opt.sync = mode;
    try {
        auto plan = std::make_unique<CompiledPlan>(compilePlan(model->data()->graph, *shapes, opt));
        return cache.emplace(key, std::move(plan)).first->second.get();
    } catch (const std::exception& e) {
        ADD_FAILURE() << caseName(c) << ": compilePlan threw: " << e.what();
        *why = "compilePlan failed";
        return nullptr;
    }
}

#define COMPILED_OR_SKIP(var, c, mode)                 \
    std::string why_##var;                             \
    const CompiledPlan* var = compiled(c, mode, &why_##var); \
    if (!var) GTEST_SKIP() << why_##var;

size_t presentCount(const std::vector<Barrier>& bs) {
    return static_cast<size_t>(std::count_if(bs.begin(), bs.end(), [](const Barrier& b) { return b.present; }));
}

std::string nodeName(const CompiledPlan& p, const ops::Dispatch& d) {
    return d.node >= 0 ? p.graph.nodes[d.node].name : std::string();
}

// ---- Every model ---------------------------------------------------------------------------

class ModelPlanTest : public ::testing::TestWithParam<ModelCase> {};

TEST_P(ModelPlanTest, MinimalReachesWaveBoundAndPassesChecker) {
    COMPILED_OR_SKIP(p, GetParam(), SyncMode::Minimal);
    const auto& s = p->summary;
    ASSERT_GT(s.dispatches, 0u);
    EXPECT_EQ(s.dispatches, p->dispatches.size());
    EXPECT_EQ(p->commands.size(), p->dispatches.size());
    EXPECT_EQ(p->barriers.size(), p->dispatches.size());
    EXPECT_EQ(s.barriers, presentCount(p->barriers));
    EXPECT_EQ(s.barrierLowerBound, s.waves - 1);
    EXPECT_EQ(s.barriers, s.barrierLowerBound);
    EXPECT_LT(s.barriers, s.dispatches);

    auto e = check::checkOrdering(p->commands, p->barriers, false);
    EXPECT_TRUE(e.empty()) << check::joined(e);
    e = check::checkMinimality(p->commands, p->barriers);
    EXPECT_TRUE(e.empty()) << check::joined(e);
    e = check::checkReports(p->commands, p->barriers, false);
    EXPECT_TRUE(e.empty()) << check::joined(e);
}

TEST_P(ModelPlanTest, RecordingOrderIsByWaveWithOneBarrierPerWaveBoundary) {
    COMPILED_OR_SKIP(p, GetParam(), SyncMode::Minimal);
    ASSERT_EQ(p->wave.size(), p->dispatches.size());
    EXPECT_EQ(p->wave.front(), 0);
    EXPECT_EQ(p->wave.back() + 1, p->waves);
    for (size_t i = 1; i < p->wave.size(); ++i) {
        ASSERT_LE(p->wave[i - 1], p->wave[i]) << "dispatch " << i;
        // A barrier exactly where a new wave starts.
        EXPECT_EQ(p->barriers[i].present, p->wave[i] != p->wave[i - 1]) << "dispatch " << i;
    }
    // Commands of one wave never conflict (on the final, arena-reused bytes).
    for (size_t j = 0; j < p->commands.size(); ++j)
        for (size_t i = 0; i < j; ++i)
            if (p->wave[i] == p->wave[j]) {
                ASSERT_EQ(check::kindsBetween(p->commands, static_cast<int>(i), static_cast<int>(j)), 0u)
                    << "dispatches " << i << " and " << j << " of wave " << p->wave[i] << " conflict";
            }
}

TEST_P(ModelPlanTest, ConservativeHasBarrierAfterEveryDispatch) {
    COMPILED_OR_SKIP(p, GetParam(), SyncMode::Conservative);
    EXPECT_EQ(p->summary.barriers, p->summary.dispatches - 1);
    EXPECT_EQ(presentCount(p->barriers), p->dispatches.size() - 1);
    EXPECT_FALSE(p->barriers.front().present);
    auto e = check::checkOrdering(p->commands, p->barriers, true);
    EXPECT_TRUE(e.empty()) << check::joined(e);
    e = check::checkReports(p->commands, p->barriers, true);
    EXPECT_TRUE(e.empty()) << check::joined(e);
}

// Both modes must compute the same thing: same dispatches, same bytes; only barriers differ.
TEST_P(ModelPlanTest, ModesDifferOnlyInBarriers) {
    COMPILED_OR_SKIP(minimal, GetParam(), SyncMode::Minimal);
    COMPILED_OR_SKIP(conservative, GetParam(), SyncMode::Conservative);
    ASSERT_EQ(minimal->dispatches.size(), conservative->dispatches.size());
    EXPECT_EQ(minimal->summary.arenaBytes, conservative->summary.arenaBytes);
    EXPECT_EQ(minimal->wave, conservative->wave);
    for (size_t i = 0; i < minimal->dispatches.size(); ++i) {
        EXPECT_EQ(minimal->dispatches[i].kernel, conservative->dispatches[i].kernel) << i;
        const auto& a = minimal->commands[i];
        const auto& b = conservative->commands[i];
        ASSERT_EQ(a.reads.size(), b.reads.size());
        ASSERT_EQ(a.writes.size(), b.writes.size());
        for (size_t k = 0; k < a.reads.size(); ++k)
            EXPECT_TRUE(a.reads[k].alloc == b.reads[k].alloc && a.reads[k].begin == b.reads[k].begin &&
                        a.reads[k].end == b.reads[k].end);
        for (size_t k = 0; k < a.writes.size(); ++k)
            EXPECT_TRUE(a.writes[k].alloc == b.writes[k].alloc && a.writes[k].begin == b.writes[k].begin &&
                        a.writes[k].end == b.writes[k].end);
    }
}

// Every access lies inside its allocation, and arena accesses respect the alignment.
TEST_P(ModelPlanTest, AccessesStayInsideTheirAllocations) {
    COMPILED_OR_SKIP(p, GetParam(), SyncMode::Minimal);
    EXPECT_EQ(static_cast<uint64_t>(p->allocations[kArenaAlloc].size), p->summary.arenaBytes);
    for (size_t i = 0; i < p->commands.size(); ++i)
        for (const auto* rs : {&p->commands[i].reads, &p->commands[i].writes})
            for (const Range& r : *rs) {
                ASSERT_GE(r.alloc, 0);
                ASSERT_LT(r.alloc, static_cast<int>(p->allocations.size()));
                EXPECT_GE(r.begin, 0) << "dispatch " << i;
                EXPECT_LT(r.begin, r.end) << "dispatch " << i;
                EXPECT_LE(r.end, p->allocations[r.alloc].size) << "dispatch " << i << " " << p->allocations[r.alloc].name;
            }
    // Nothing writes the weights.
    for (const auto& c : p->commands)
        for (const Range& r : c.writes) EXPECT_NE(r.alloc, kWeightsAlloc);
    // Every tensor in the arena or the weights starts at an aligned offset (bindable as is).
    int located = 0;
    for (size_t v = 0; v < p->location.size(); ++v) {
        const Location& loc = p->location[v];
        if (loc.alloc != kArenaAlloc && loc.alloc != kWeightsAlloc) continue;
        ++located;
        EXPECT_EQ(loc.offset % p->alignment, 0) << p->graph.values[v].name << " at " << loc.offset;
    }
    EXPECT_GT(located, 0);
}

TEST_P(ModelPlanTest, ArenaReuseNeverOverlapsLiveTensors) {
    COMPILED_OR_SKIP(p, GetParam(), SyncMode::Minimal);
    auto r = check::checkArena(*p);
    EXPECT_TRUE(r.errors.empty()) << check::joined(r.errors);
    EXPECT_GE(r.families, 2);
    // Where some tensors' lifetimes are disjoint, some bytes are reused. (ESPCN's plan on a CPU
    // has none: two intermediates, each read by the next conv while the following one is
    // written, its DepthToSpace stored by the last conv.)
    if (r.disjointPairs > 0) {
        EXPECT_GT(r.reusedPairs, 0) << "no arena bytes reused at all";
        EXPECT_LT(p->summary.arenaBytes, p->summary.intermediateBytes);
    }
}

TEST_P(ModelPlanTest, JsonReport) {
    COMPILED_OR_SKIP(p, GetParam(), SyncMode::Minimal);
    nlohmann::json j;
    ASSERT_NO_THROW(j = nlohmann::json::parse(planToJson(*p)));
    for (const char* key : {"dispatches", "barriers", "barrier_lower_bound", "arena_bytes", "intermediate_bytes", "schedule"})
        ASSERT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["dispatches"].get<size_t>(), p->summary.dispatches);
    EXPECT_EQ(j["barriers"].get<size_t>(), p->summary.barriers);
    EXPECT_EQ(j["barrier_lower_bound"].get<size_t>(), p->summary.barrierLowerBound);
    EXPECT_EQ(j["arena_bytes"].get<uint64_t>(), p->summary.arenaBytes);
    EXPECT_EQ(j["intermediate_bytes"].get<uint64_t>(), p->summary.intermediateBytes);
    const auto& sched = j["schedule"];
    ASSERT_TRUE(sched.is_array());
    ASSERT_EQ(sched.size(), p->dispatches.size());
    size_t barriers = 0;
    for (size_t i = 0; i < sched.size(); ++i) {
        const auto& e = sched[i];
        for (const char* key : {"nodes", "op", "wave", "barrier"}) ASSERT_TRUE(e.contains(key)) << "entry " << i << " " << key;
        EXPECT_TRUE(e["nodes"].is_array());
        EXPECT_TRUE(e["op"].is_string());
        EXPECT_EQ(e["wave"].get<int>(), p->wave[i]);
        if (e["barrier"].is_null()) {
            EXPECT_FALSE(p->barriers[i].present) << "entry " << i;
            continue;
        }
        ++barriers;
        ASSERT_TRUE(e["barrier"].contains("hazards"));
        const auto& hz = e["barrier"]["hazards"];
        EXPECT_EQ(hz.size(), p->barriers[i].hazards.size());
        for (const auto& h : hz) {
            ASSERT_TRUE(h.contains("kind") && h.contains("allocation") && h.contains("tensors"));
            std::string kind = h["kind"].get<std::string>();
            EXPECT_TRUE(kind == "RAW" || kind == "WAW" || kind == "WAR") << kind;
            EXPECT_EQ(h["tensors"].size(), 2u);
        }
    }
    EXPECT_EQ(barriers, p->summary.barriers);
}

std::vector<ModelCase> allModelCases() {
    return {
        {"resnet18_half", {}},
        {"mobilenet_v2", {}},
        {"squeezenet1_1", {1, 3, 224, 224}},
        {"espcn_x2", {1, 3, 64, 80}},
        {"espcn_x2", {2, 3, 37, 41}},
        {"unet_small", {1, 3, 64, 64}},
        {"unet_small", {2, 3, 32, 48}},
    };
}

INSTANTIATE_TEST_SUITE_P(SharedModels, ModelPlanTest, ::testing::ValuesIn(allModelCases()),
                         [](const ::testing::TestParamInfo<ModelCase>& info) { return caseName(info.param); });

// ---- Model-specific expectations ----------------------------------------------------------

TEST(SqueezeNetPlan, FireModuleExpandsShareAWaveAndWriteTheConcatInPlace) {
    COMPILED_OR_SKIP(p, (ModelCase{"squeezenet1_1", {1, 3, 224, 224}}), SyncMode::Minimal);
    EXPECT_LT(p->summary.barriers, p->summary.dispatches);

    // fire prefix ("/features/features.3/") -> dispatch positions of each expand conv.
    std::map<std::string, std::vector<size_t>> e1, e3;
    for (size_t i = 0; i < p->dispatches.size(); ++i) {
        std::string name = nodeName(*p, p->dispatches[i]);
        for (auto [key, map] : {std::pair{"expand1x1", &e1}, std::pair{"expand3x3", &e3}}) {
            size_t at = name.find(key);
            if (at != std::string::npos) (*map)[name.substr(0, at)].push_back(i);
        }
    }
    ASSERT_EQ(e1.size(), 8u) << "SqueezeNet 1.1 has eight fire modules";
    std::set<std::string> views(p->viewNodes.begin(), p->viewNodes.end());
    for (const auto& [prefix, ones] : e1) {
        SCOPED_TRACE(prefix);
        ASSERT_TRUE(e3.count(prefix));
        const auto& threes = e3.at(prefix);
        // One dispatch each, or two where the reduction is split (conv, then reduce); the
        // two convs run in one wave.
        ASSERT_GE(ones.size(), 1u);
        ASSERT_GE(threes.size(), 1u);
        ASSERT_LE(ones.size(), 2u);
        ASSERT_LE(threes.size(), 2u);
        size_t a = std::min(ones[0], threes[0]), b = std::max(ones[0], threes[0]);
        EXPECT_EQ(p->wave[a], p->wave[b]);
        for (size_t k = a + 1; k <= b; ++k) EXPECT_FALSE(p->barriers[k].present) << "barrier before dispatch " << k;

        // In-place Concat: both write into one allocation, at disjoint (adjacent) ranges, and
        // the Concat itself needs no dispatch.
        const auto& w1 = p->commands[ones.back()].writes;
        const auto& w3 = p->commands[threes.back()].writes;
        ASSERT_EQ(w1.size(), 1u);
        ASSERT_EQ(w3.size(), 1u);
        EXPECT_EQ(w1[0].alloc, w3[0].alloc);
        EXPECT_FALSE(check::touches(w1[0], w3[0]));
        EXPECT_EQ(w1[0].end, w3[0].begin) << "expand3x3 follows expand1x1 in the concatenated output";
        EXPECT_TRUE(views.count(prefix + "Concat")) << "Concat still has a dispatch";
    }
}

TEST(ResNetPlan, ArenaReuseBelowFortyPercent) {
    COMPILED_OR_SKIP(p, (ModelCase{"resnet18_half", {}}), SyncMode::Minimal);
    ASSERT_GT(p->summary.intermediateBytes, 0u);
    EXPECT_LE(static_cast<double>(p->summary.arenaBytes), 0.40 * static_cast<double>(p->summary.intermediateBytes))
        << p->summary.arenaBytes << " arena bytes for " << p->summary.intermediateBytes << " of intermediates";
}

// A residual block's shortcut runs next to the main branch: fewer waves than dispatches.
TEST(ResNetPlan, ParallelWorkSharesWaves) {
    COMPILED_OR_SKIP(p, (ModelCase{"resnet18_half", {}}), SyncMode::Minimal);
    EXPECT_LT(p->summary.waves, p->summary.dispatches);
}

}  // namespace
}  // namespace vkinfer::plan
