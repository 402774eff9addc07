// Compiled plans of small in-memory graphs: the aliasing corner cases (nested and shared
// Concat inputs, outputs that alias inputs or each other) stay correct under the checkers.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>

#include "plan/barrier_checker.h"
#include "plan/compile.h"
#include "plan/plan_checks.h"
#include "runtime/model_data.h"
#include "support/onnx_builder.h"

namespace vkinfer::plan {
namespace {

using testing::attr;
using testing::int64Tensor;
using testing::OnnxBuilder;

CompiledPlan compileBuilt(const OnnxBuilder& b, SyncMode mode = SyncMode::Minimal) {
    auto m = b.build();
    if (!m.ok()) throw std::runtime_error("model does not build: " + m.status().toString());
    auto shapes = m->resolveShapes({});
    if (!shapes.ok()) throw std::runtime_error(shapes.status().toString());
    PlanOptions opt;
    opt.sync = mode;
    // The graphs are element-wise nodes standing for any producer, to exercise the planners:
    // each node keeps its dispatch (the pointwise fusion would make chains of them one).
    opt.kernels.fusePointwise = false;
    return compilePlan(m->data()->graph, *shapes, opt);
}

size_t presentCount(const CompiledPlan& p) {
    return static_cast<size_t>(
        std::count_if(p.barriers.begin(), p.barriers.end(), [](const Barrier& b) { return b.present; }));
}

// Everything every plan must satisfy, in both modes.
void expectSound(const OnnxBuilder& b) {
    for (SyncMode mode : {SyncMode::Minimal, SyncMode::Conservative}) {
        SCOPED_TRACE(syncModeName(mode));
        CompiledPlan p = compileBuilt(b, mode);
        bool conservative = mode == SyncMode::Conservative;
        auto e = check::checkOrdering(p.commands, p.barriers, conservative);
        EXPECT_TRUE(e.empty()) << check::joined(e);
        e = check::checkReports(p.commands, p.barriers, conservative);
        EXPECT_TRUE(e.empty()) << check::joined(e);
        if (!conservative) {
            e = check::checkMinimality(p.commands, p.barriers);
            EXPECT_TRUE(e.empty()) << check::joined(e);
            EXPECT_EQ(p.summary.barriers, p.summary.barrierLowerBound);
        } else {
            EXPECT_EQ(presentCount(p), p.dispatches.size() - 1);
        }
        auto arena = check::checkArena(p);
        EXPECT_TRUE(arena.errors.empty()) << check::joined(arena.errors);
        // Every graph output has an allocation of its own that some dispatch writes.
        for (int k = 0; k < static_cast<int>(p.outputNames.size()); ++k) {
            bool written = false;
            for (const auto& c : p.commands)
                for (const Range& r : c.writes) written |= r.alloc == p.outputAlloc(k);
            EXPECT_TRUE(written) << "output " << p.outputNames[k] << " is never written";
        }
        // Nothing writes a graph input or the weights.
        for (const auto& c : p.commands)
            for (const Range& r : c.writes) {
                EXPECT_NE(r.alloc, kWeightsAlloc);
                for (int i = 0; i < p.inputCount; ++i) EXPECT_NE(r.alloc, p.inputAlloc(i));
            }
    }
}

TEST(CompileSmall, DiamondNeedsOneBarrierPerWave) {
    OnnxBuilder b;
    b.input("x", {1, 4, 8, 8}).output("z");
    b.node("Relu", {"x"}, {"y"}, "stem");
    b.node("Relu", {"y"}, {"a"}, "left");
    b.node("Sigmoid", {"y"}, {"s"}, "right");
    b.node("Add", {"a", "s"}, {"z"}, "join");
    CompiledPlan p = compileBuilt(b);
    EXPECT_EQ(p.summary.dispatches, 4u);
    EXPECT_EQ(p.summary.waves, 3u);
    EXPECT_EQ(p.summary.barriers, 2u);
    expectSound(b);
}

TEST(CompileSmall, NestedConcatIsWrittenInPlaceByAllProducers) {
    OnnxBuilder b;
    b.input("x", {1, 4, 8, 8}).output("out");
    b.node("Relu", {"x"}, {"a"}, "ra");
    b.node("Sigmoid", {"x"}, {"s"}, "rb");
    b.node("Tanh", {"x"}, {"t"}, "rc");
    attr(b.node("Concat", {"a", "s"}, {"inner"}, "inner"), "axis", int64_t{1});
    attr(b.node("Concat", {"inner", "t"}, {"c"}, "outer"), "axis", int64_t{1});
    b.node("Relu", {"c"}, {"out"}, "tail");
    CompiledPlan p = compileBuilt(b);
    // Three producers write the concatenation in place, one wave, no copies.
    EXPECT_EQ(p.summary.dispatches, 4u);
    EXPECT_EQ(p.summary.waves, 2u);
    EXPECT_EQ(p.summary.barriers, 1u);
    std::vector<Range> writes;
    for (size_t i = 0; i < 3 && i < p.commands.size(); ++i)
        for (const Range& r : p.commands[i].writes) writes.push_back(r);
    ASSERT_EQ(writes.size(), 3u);
    std::sort(writes.begin(), writes.end(), [](const Range& x, const Range& y) { return x.begin < y.begin; });
    EXPECT_EQ(writes[0].alloc, writes[2].alloc);
    EXPECT_EQ(writes[0].end, writes[1].begin);
    EXPECT_EQ(writes[1].end, writes[2].begin);
    expectSound(b);
}

TEST(CompileSmall, ConcatInputThatIsAlsoAGraphOutputIsCopied) {
    OnnxBuilder b;
    b.input("x", {1, 4, 8, 8}).output("c").output("a");
    b.node("Relu", {"x"}, {"a"}, "ra");
    b.node("Sigmoid", {"x"}, {"s"}, "rb");
    attr(b.node("Concat", {"a", "s"}, {"c"}, "cat"), "axis", int64_t{1});
    expectSound(b);
}

TEST(CompileSmall, ConcatOfOneValueTwiceAndOfAGraphInput) {
    OnnxBuilder b;
    b.input("x", {1, 4, 8, 8}).output("out");
    b.node("Relu", {"x"}, {"a"}, "ra");
    attr(b.node("Concat", {"a", "x", "a"}, {"c"}, "cat"), "axis", int64_t{1});
    b.node("Sigmoid", {"c"}, {"out"}, "tail");
    expectSound(b);
}

TEST(CompileSmall, ValueFeedingTwoConcats) {
    OnnxBuilder b;
    b.input("x", {1, 4, 8, 8}).output("o1").output("o2");
    b.node("Relu", {"x"}, {"a"}, "ra");
    b.node("Sigmoid", {"x"}, {"s"}, "rb");
    b.node("Tanh", {"x"}, {"t"}, "rc");
    attr(b.node("Concat", {"a", "s"}, {"c1"}, "cat1"), "axis", int64_t{1});
    attr(b.node("Concat", {"a", "t"}, {"c2"}, "cat2"), "axis", int64_t{1});
    b.node("Relu", {"c1"}, {"o1"}, "t1");
    b.node("Relu", {"c2"}, {"o2"}, "t2");
    expectSound(b);
}

TEST(CompileSmall, ConcatOnAnInnerAxisIsCopied) {
    OnnxBuilder b;
    b.input("x", {1, 4, 8, 8}).output("out");
    b.node("Relu", {"x"}, {"a"}, "ra");
    b.node("Sigmoid", {"x"}, {"s"}, "rb");
    attr(b.node("Concat", {"a", "s"}, {"c"}, "cat"), "axis", int64_t{2});
    b.node("Tanh", {"c"}, {"out"}, "tail");
    CompiledPlan p = compileBuilt(b);
    EXPECT_EQ(p.summary.dispatches, 4u);  // two producers, one copy of both parts, the tail
    expectSound(b);
}

TEST(CompileSmall, OutputsThatAliasTheInputOrEachOther) {
    OnnxBuilder b;
    b.input("x", {1, 4, 8, 8}).output("view").output("y").output("y2");
    b.initializer("shape", int64Tensor({2}, {4, 64}));
    b.node("Reshape", {"x", "shape"}, {"view"}, "reshape");  // a view of the input
    b.node("Relu", {"x"}, {"y"}, "ra");
    b.node("Identity", {"y"}, {"y2"}, "same");  // shares y's bytes
    expectSound(b);
}

TEST(CompileSmall, LongChainReusesTwoBuffers) {
    OnnxBuilder b;
    b.input("x", {1, 16, 16, 16}).output("out");
    std::string prev = "x";
    for (int i = 0; i < 10; ++i) {
        std::string next = i == 9 ? std::string("out") : fmt::format("v{}", i);
        b.node(i % 2 ? "Relu" : "Sigmoid", {prev}, {next}, fmt::format("n{}", i));
        prev = next;
    }
    CompiledPlan p = compileBuilt(b);
    EXPECT_EQ(p.summary.barriers, 9u);
    const uint64_t one = 16 * 16 * 16 * 4;
    EXPECT_EQ(p.summary.intermediateBytes, 9 * one);
    EXPECT_EQ(p.summary.arenaBytes, 2 * one);
    expectSound(b);
}

}  // namespace
}  // namespace vkinfer::plan
