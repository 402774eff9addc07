// Planning stays bounded by what a model file holds (found by tests/fuzz/fuzz_onnx): shapes
// beyond 1 TiB are refused, constant folding has a budget past which nodes run on the GPU
// (or fail when their op has no kernel), and shape arithmetic on hostile attributes and
// constant inputs is a shape error naming the node, never an overflow or a huge allocation.
#include <gtest/gtest.h>

#include <limits>

#include "core/error.h"
#include "passes/cpu_reference.h"
#include "passes/specialize.h"
#include "plan/compile.h"
#include "runtime/model_data.h"
#include "support/onnx_builder.h"

namespace vkinfer::plan {
namespace {

using testing::attr;
using testing::floatTensor;
using testing::int64Tensor;
using testing::OnnxBuilder;

const graph::Graph& graphOf(const Result<Model>& m) {
    if (!m.ok()) throw std::runtime_error("model does not build: " + m.status().toString());
    return m->data()->graph;
}

// The failure of compiling the plan (all inputs at their declared shapes), or Ok.
Status planStatus(const OnnxBuilder& b, CompiledPlan* out = nullptr) {
    auto m = b.build();
    const graph::Graph& g = graphOf(m);
    auto shapes = m->resolveShapes({});
    if (!shapes.ok()) return shapes.status();
    try {
        CompiledPlan p = compilePlan(g, *shapes, PlanOptions{});
        if (out) *out = std::move(p);
    } catch (const Error& e) {
        return e.status();
    }
    return Status();
}

bool mentions(const Status& s, const std::string& text) { return s.message().find(text) != std::string::npos; }

TEST(PlanLimits, HugeDeclaredInputIsRefusedNamingIt) {
    OnnxBuilder b;
    b.input("x", {1 << 20, 1 << 20, 1 << 20}).output("y");
    b.node("Relu", {"x"}, {"y"});
    Status s = planStatus(b);
    EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
    EXPECT_TRUE(mentions(s, "input 'x'") && mentions(s, "1 TiB")) << s.toString();
}

TEST(PlanLimits, FoldingPastTheBudgetWithoutAKernelFailsNamingTheNode) {
    // ConstantOfShape of 100000x100000 float32: 37 GiB from a 16-byte initializer.
    OnnxBuilder b;
    b.output("y");
    b.initializer("shape", int64Tensor({2}, {100000, 100000}));
    b.node("ConstantOfShape", {"shape"}, {"y"}, "zeros");
    Status s = planStatus(b);
    EXPECT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
    EXPECT_TRUE(mentions(s, "'zeros' (ConstantOfShape)") && mentions(s, "no GPU kernel")) << s.toString();
}

// y = x + Expand(c, shape): folded on the CPU while small; past the budget, left to the GPU.
OnnxBuilder expandAdd(int64_t rows) {
    OnnxBuilder b;
    b.input("x", {rows, 1024}).output("y");
    b.initializer("c", floatTensor({1}, {2.0f}));
    b.initializer("shape", int64Tensor({2}, {rows, 1024}));
    b.node("Expand", {"c", "shape"}, {"e"}, "expand");
    b.node("Add", {"x", "e"}, {"y"}, "add");
    return b;
}

TEST(PlanLimits, SmallConstantSubgraphFolds) {
    CompiledPlan p;
    ASSERT_TRUE(planStatus(expandAdd(16), &p).ok());
    EXPECT_EQ(p.dispatches.size(), 1u);                     // the Add; the Expand became a constant
    EXPECT_EQ(p.summary.weightBytes, 16u * 1024 * 4);      // ... uploaded as a weight
}

TEST(PlanLimits, ConstantPastTheFoldingBudgetRunsOnTheGpu) {
    // 32768 x 1024 float32 = 128 MiB, past the 64 MiB budget of a model with 20 bytes of weights.
    CompiledPlan p;
    Status s = planStatus(expandAdd(32768), &p);
    ASSERT_TRUE(s.ok()) << s.toString();
    EXPECT_EQ(p.dispatches.size(), 2u);              // Expand and Add
    EXPECT_LT(p.summary.weightBytes, 1024u);         // nothing large was computed on the host
}

// x @ (c @ c) with c = ConstantOfShape(n x n): the square is folded while small; at 1024 x 1024
// (4 MiB of output, well inside the byte budget, but 2^30 multiply-adds: seconds of the CPU
// reference, minutes in a sanitized build) it is left to the GPU.
OnnxBuilder squaredConstant(int64_t n) {
    OnnxBuilder b;
    b.input("x", {n, n}).output("y");  // (rows enough that x's product is not split)
    b.initializer("shape", int64Tensor({2}, {n, n}));
    b.node("ConstantOfShape", {"shape"}, {"c"}, "zeros");
    b.node("MatMul", {"c", "c"}, {"cc"}, "square");
    b.node("MatMul", {"x", "cc"}, {"y"}, "product");
    return b;
}

TEST(PlanLimits, ProductsPastTheFoldingWorkRunOnTheGpu) {
    CompiledPlan small, large;
    ASSERT_TRUE(planStatus(squaredConstant(64), &small).ok());
    EXPECT_EQ(small.dispatches.size(), 1u);  // x @ the folded square
    Status s = planStatus(squaredConstant(1024), &large);
    ASSERT_TRUE(s.ok()) << s.toString();
    EXPECT_EQ(large.dispatches.size(), 2u);  // the square too
}

// The CPU reference (passes::runOnCpu, which the GPU tests compare against) evaluates a product
// past the folding work a plan allows: 8 x 650 x 650 with its weights the square of a constant
// of ones, 650^3 multiply-adds (past 2^28) for the square. It failed there ("has no CPU
// implementation") once the plan's bound applied to it too.
TEST(PlanLimits, TheCpuReferenceEvaluatesPastTheFoldingWork) {
    constexpr int64_t n = 650;
    OnnxBuilder b;
    b.input("x", {8, n}).output("y");
    b.initializer("c", floatTensor({n, n}, std::vector<float>(n * n, 1.0f)));
    b.node("MatMul", {"c", "c"}, {"cc"}, "square");
    b.node("MatMul", {"x", "cc"}, {"y"}, "product");
    std::vector<float> x(8 * n);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) - 3.0f;
    auto m = b.build();
    const std::vector<Tensor> y = passes::runOnCpu(graphOf(m), {{"x", floatTensor({8, n}, x)}});
    ASSERT_EQ(y.size(), 1u);
    ASSERT_EQ(y[0].shape(), (std::vector<int64_t>{8, n}));
    for (int64_t r = 0; r < 8; ++r) {
        double rowSum = 0;
        for (int64_t k = 0; k < n; ++k) rowSum += x[static_cast<size_t>(r * n + k)];
        for (int64_t c : {int64_t{0}, n / 2, n - 1})
            EXPECT_DOUBLE_EQ(y[0].as<float>()[r * n + c], rowSum * n) << "row " << r << ", column " << c;
    }
}

TEST(PlanLimits, ReshapeTargetWhoseProductOverflowsIsAShapeError) {
    OnnxBuilder b;
    b.input("x", {2, 3}).output("y");
    b.initializer("shape", int64Tensor({3}, {int64_t{1} << 40, int64_t{1} << 40, 1}));
    b.node("Reshape", {"x", "shape"}, {"y"});
    Status s = planStatus(b);
    EXPECT_EQ(s.code(), ErrorCode::ShapeError) << s.toString();
}

TEST(PlanLimits, PadsThatOverflowAreAShapeError) {
    OnnxBuilder b;
    b.input("x", {2, 3}).output("y");
    int64_t big = std::numeric_limits<int64_t>::max() - 1;
    b.initializer("pads", int64Tensor({4}, {0, big, 0, big}));
    b.node("Pad", {"x", "pads"}, {"y"}, "pad");
    Status s = planStatus(b);
    EXPECT_EQ(s.code(), ErrorCode::ShapeError) << s.toString();
    EXPECT_TRUE(mentions(s, "'pad' (Pad)")) << s.toString();
}

TEST(PlanLimits, ResizeScaleThatIsNotAPlannableNumberIsAShapeError) {
    for (float scale : {std::numeric_limits<float>::quiet_NaN(), 1e30f, -2.0f}) {
        SCOPED_TRACE(scale);
        OnnxBuilder b;
        b.input("x", {1, 1, 4, 4}).output("y");
        b.initializer("scales", floatTensor({4}, {1, 1, scale, 2}));
        b.node("Resize", {"x", "", "scales"}, {"y"});
        Status s = planStatus(b);
        EXPECT_EQ(s.code(), ErrorCode::ShapeError) << s.toString();
    }
}

TEST(PlanLimits, ConvGeometryBeyondAMillionIsRefused) {
    OnnxBuilder b;
    b.input("x", {1, 1, 8, 8}).output("y");
    b.initializer("w", floatTensor({1, 1, 3, 3}, std::vector<float>(9, 1.0f)));
    auto& conv = b.node("Conv", {"x", "w"}, {"y"});
    attr(conv, "dilations", std::vector<int64_t>{int64_t{1} << 62, 1});
    Status s = planStatus(b);
    EXPECT_EQ(s.code(), ErrorCode::ShapeError) << s.toString();
    EXPECT_TRUE(mentions(s, "dilations")) << s.toString();
}

TEST(PlanLimits, TileOfAnEmptyTensorWithHugeRepeatsIsAShapeError) {
    OnnxBuilder b;
    b.input("x", {2, 0}).output("y");
    b.initializer("repeats", int64Tensor({2}, {int64_t{1} << 31, int64_t{1} << 31}));
    b.node("Tile", {"x", "repeats"}, {"y"});
    EXPECT_EQ(planStatus(b).code(), ErrorCode::ShapeError);
}

TEST(PlanLimits, SliceStepBeyondTheExtentSelectsOneElement) {
    OnnxBuilder b;
    b.input("x", {5, 3}).output("y");
    int64_t max = std::numeric_limits<int64_t>::max();
    b.initializer("starts", int64Tensor({1}, {1}));
    b.initializer("ends", int64Tensor({1}, {max}));
    b.initializer("axes", int64Tensor({1}, {0}));
    b.initializer("steps", int64Tensor({1}, {max}));
    b.node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
    CompiledPlan p;
    Status s = planStatus(b, &p);
    ASSERT_TRUE(s.ok()) << s.toString();
    EXPECT_EQ(p.graph.values[p.graph.outputs[0]].shape, (graph::Shape{1, 3}));
}

TEST(PlanLimits, IntegerRangeNearTheInt64LimitsFoldsToTheRightValues) {
    // start + i * delta: every element fits although 3 * delta alone does not.
    OnnxBuilder b;
    b.input("x", {4}, DataType::Int64).output("y", DataType::Int64);
    auto scalar = [](int64_t v) { return int64Tensor({}, {v}); };
    b.initializer("start", scalar(std::numeric_limits<int64_t>::min()));
    b.initializer("limit", scalar(std::numeric_limits<int64_t>::max()));
    b.initializer("delta", scalar(int64_t{1} << 62));
    b.node("Range", {"start", "limit", "delta"}, {"r"});
    b.node("Add", {"x", "r"}, {"y"});
    auto m = b.build();
    graph::Graph g = passes::specialize(graphOf(m), {{"x", {4}}});
    int r = g.findValue("r");
    ASSERT_GE(r, 0);
    ASSERT_TRUE(g.values[r].constant.has_value());
    const Tensor& t = *g.values[r].constant;
    ASSERT_EQ(t.elementCount(), 4);
    EXPECT_EQ(t.as<int64_t>()[0], std::numeric_limits<int64_t>::min());
    EXPECT_EQ(t.as<int64_t>()[1], -(int64_t{1} << 62));
    EXPECT_EQ(t.as<int64_t>()[2], 0);
    EXPECT_EQ(t.as<int64_t>()[3], int64_t{1} << 62);
}

TEST(PlanLimits, FloatRangeOfNoOrTooManyElements) {
    auto rangeModel = [](float start, float limit, float delta) {
        OnnxBuilder b;
        b.input("x", {1}).output("y");
        b.initializer("start", floatTensor({}, {start}));
        b.initializer("limit", floatTensor({}, {limit}));
        b.initializer("delta", floatTensor({}, {delta}));
        b.node("Range", {"start", "limit", "delta"}, {"r"});
        b.node("Add", {"x", "r"}, {"y"});
        return b;
    };
    float nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(planStatus(rangeModel(0, 1e30f, 1e-30f)).code(), ErrorCode::ShapeError);
    EXPECT_EQ(planStatus(rangeModel(0, 1, nan)).code(), ErrorCode::ShapeError);
    // A length of -1e30 is an empty range (converting it to int64 was undefined).
    auto m = rangeModel(0, -1e30f, 1).build();
    graph::Graph g = passes::specialize(graphOf(m), {{"x", {1}}});
    EXPECT_EQ(g.values[g.findValue("r")].shape, (graph::Shape{0}));
}

}  // namespace
}  // namespace vkinfer::plan
