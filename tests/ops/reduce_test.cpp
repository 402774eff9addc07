// Reductions (src/ops/reduce.cpp): every Reduce* over axis sets, keepdims, axes as an
// attribute (old opsets) or a constant input (ReduceSum 13+, the others 18+),
// noop_with_empty_axes, both kernel modes (one invocation or one workgroup per output), and
// ArgMax/ArgMin with select_last_index; the reference against hand-computed values.
#include <cmath>

#include <limits>

#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

const char* const kReduceOps[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                                  "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"};

// `axes` as an attribute (opset 13, ReduceSum: 11) or, with `axesInput`, as a constant
// input (opset 18). An empty `axes` omits them.
OnnxBuilder reduceModel(const std::string& op, const Shape& x, const std::vector<int64_t>& axes, int64_t keepdims,
                        bool axesInput, DataType t = DataType::Float32, int64_t noop = -1) {
    int64_t opset = axesInput ? 18 : (op == "ReduceSum" ? 11 : 13);
    OnnxBuilder m(opset);
    m.input("x", x, t).output("y", t);
    std::vector<std::string> ins = {"x"};
    if (axesInput && !axes.empty()) {
        m.initializer("axes", int64Tensor({static_cast<int64_t>(axes.size())}, axes));
        ins.push_back("axes");
    }
    auto& n = m.node(op, ins, {"y"});
    if (!axesInput && !axes.empty()) attr(n, "axes", axes);
    if (keepdims >= 0) attr(n, "keepdims", keepdims);
    if (noop >= 0) attr(n, "noop_with_empty_axes", noop);
    return m;
}

// Positive inputs where the op needs them (log of a sum, products that stay finite).
Tensor reduceInput(const std::string& op, const Shape& s, uint32_t seed) {
    if (op == "ReduceLogSum") return randomTensor(s, seed, 0.5f, 1.5f);
    if (op == "ReduceProd") return randomTensor(s, seed, 0.95f, 1.05f);  // 2000 factors stay normal
    return randomTensor(s, seed, -2.0f, 2.0f);
}

TEST(ReduceOp, AxesAndKeepdims) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        Shape x;
        std::vector<int64_t> axes;
    };
    const Case cases[] = {
        {{3, 4, 5}, {1}},            // middle axis: strided rows
        {{3, 4, 5}, {-1}},           // innermost, negative
        {{3, 4, 5}, {0, 2}},         // two non-adjacent axes
        {{2, 3, 4, 5}, {1, 2}},      // adjacent axes merge
        {{3, 4, 5}, {}},             // all axes (default)
        {{2, 300}, {1}},             // long rows: one workgroup per output
        {{40, 3, 50}, {0, 2}},       // 2000 elements per output, strided
    };
    for (const char* op : kReduceOps)
        for (size_t k = 0; k < std::size(cases); ++k) {
            const Case& c = cases[k];
            int64_t keep = static_cast<int64_t>(k % 2);
            std::string what = std::string(op) + " " + shapeToString(c.x) + " axes " + std::to_string(c.axes.size()) +
                               (c.axes.empty() ? "" : "@" + std::to_string(c.axes[0])) + " keepdims " + std::to_string(keep);
            SCOPED_TRACE(what);
            expectGpuMatchesCpu(reduceModel(op, c.x, c.axes, keep, false), {{"x", reduceInput(op, c.x, seedOf(what))}}, what,
                                Tolerance{2e-4, 1e-5, true});
        }
}

TEST(ReduceOp, AxesAsInputAndNoop) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceLogSumExp"}) {
        std::string what = std::string(op) + " axes input";
        expectGpuMatchesCpu(reduceModel(op, {3, 4, 5}, {0, -1}, 1, true), {{"x", reduceInput(op, {3, 4, 5}, seedOf(what))}}, what);
        // No axes: all of them, or (noop_with_empty_axes) the identity.
        expectGpuMatchesCpu(reduceModel(op, {3, 4, 5}, {}, 0, true), {{"x", reduceInput(op, {3, 4, 5}, seedOf(what))}},
                            what + " (none: all)");
        expectGpuMatchesCpu(reduceModel(op, {3, 4, 5}, {}, 1, true, DataType::Float32, 1),
                            {{"x", reduceInput(op, {3, 4, 5}, seedOf(what))}}, what + " (none: noop)");
    }
}

TEST(ReduceOp, EmptyAxesGraphInput) {
    VKINFER_REQUIRE_GPU();
    // An axes graph input with no elements is known from its shape alone (the node tests feed
    // axes that way); one with elements would make the output shape depend on data.
    for (int64_t noop : {0, 1}) {
        OnnxBuilder m(13);
        m.input("x", {3, 4, 5}).input("axes", {0}, DataType::Int64).output("y");
        attr(m.node("ReduceSum", {"x", "axes"}, {"y"}), "noop_with_empty_axes", noop);
        expectGpuMatchesCpu(m, {{"x", randomTensor({3, 4, 5}, 8)}, {"axes", Tensor(DataType::Int64, {0})}},
                            "ReduceSum empty axes input, noop " + std::to_string(noop));
    }
    OnnxBuilder m(13);
    m.input("x", {3, 4, 5}).input("axes", {1}, DataType::Int64).output("y");
    m.node("ReduceSum", {"x", "axes"}, {"y"});
    expectUnsupported(m, {{"x", randomTensor({3, 4, 5}, 8)}, {"axes", int64Tensor({1}, {1})}}, "ReduceSum axes graph input");
}

TEST(ReduceOp, ManyOutputs) {
    VKINFER_REQUIRE_GPU();
    // Many short rows: one invocation per output; 1200 rows of 80: one workgroup per output.
    expectGpuMatchesCpu(reduceModel("ReduceMean", {70000, 3}, {1}, 1, false), {{"x", randomTensor({70000, 3}, 1)}},
                        "ReduceMean 70000 short rows");
    expectGpuMatchesCpu(reduceModel("ReduceMax", {1200, 80}, {1}, 0, false), {{"x", randomTensor({1200, 80}, 2)}},
                        "ReduceMax 1200 rows of 80");
}

TEST(ReduceOp, Integers) {
    VKINFER_REQUIRE_GPU();
    for (DataType t : {DataType::Int32, DataType::Int64})
        for (const char* op : {"ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceMean", "ReduceL1"}) {
            std::string what = std::string(op) + " " + dataTypeName(t);
            int64_t lo = std::string(op) == "ReduceProd" ? -3 : -1000, hi = std::string(op) == "ReduceProd" ? 3 : 1000;
            expectGpuMatchesCpu(reduceModel(op, {6, 7, 5}, {0, 2}, 1, false, t), {{"x", randomIntTensor({6, 7, 5}, t, seedOf(what), lo, hi)}},
                                what);
            expectGpuMatchesCpu(reduceModel(op, {3, 200}, {1}, 0, false, t), {{"x", randomIntTensor({3, 200}, t, seedOf(what), lo, hi)}},
                                what + " long rows");
        }
    expectReferenceEquals(reduceModel("ReduceMax", {2, 3}, {1}, 0, false, DataType::Int64),
                          {{"x", typedTensor(DataType::Int64, {2, 3}, {-5, -9, -7, 5000000000.0, 3, 4})}},
                          {typedTensor(DataType::Int64, {2}, {-5, 5000000000.0})}, "int64 ReduceMax of negatives and beyond 32 bits");
    expectReferenceEquals(reduceModel("ReduceMean", {4}, {0}, 0, false, DataType::Int32),
                          {{"x", typedTensor(DataType::Int32, {4}, {1, 2, 3, 1})}}, {typedTensor(DataType::Int32, {}, {1})},
                          "int32 ReduceMean truncates");
}

// A reduction over an empty axis is the operation's value for an empty set (ONNX 18), folded
// at planning: no kernel binds the empty input. Integers have no infinities: their max of
// nothing is the type's lowest value, their min the highest.
TEST(ReduceOp, EmptyAxisGivesTheEmptySetsValue) {
    const double inf = std::numeric_limits<double>::infinity();
    const std::pair<const char*, double> floats[] = {
        {"ReduceSum", 0.0},   {"ReduceSumSquare", 0.0}, {"ReduceL1", 0.0},        {"ReduceL2", 0.0},
        {"ReduceMax", -inf},  {"ReduceMin", inf},       {"ReduceProd", 1.0},      {"ReduceLogSum", -inf},
        {"ReduceLogSumExp", -inf}};
    for (const auto& [op, value] : floats) {
        std::string what = std::string(op) + " over an empty axis";
        expectReferenceEquals(reduceModel(op, {2, 0, 3}, {1}, 1, true), {{"x", Tensor(DataType::Float32, {2, 0, 3})}},
                              {typedTensor(DataType::Float32, {2, 1, 3}, std::vector<double>(6, value))}, what);
    }
    auto mean = cpuReference(reduceModel("ReduceMean", {2, 0}, {1}, 0, true), {{"x", Tensor(DataType::Float32, {2, 0})}},
                             "ReduceMean over an empty axis");
    ASSERT_EQ(mean.size(), 1u);
    EXPECT_TRUE(std::isnan(mean[0].as<float>()[0])) << "0 / 0";
    expectReferenceEquals(reduceModel("ReduceMin", {3, 0}, {1}, 0, true, DataType::Int32), {{"x", Tensor(DataType::Int32, {3, 0})}},
                          {typedTensor(DataType::Int32, {3}, std::vector<double>(3, 2147483647.0))}, "int32 ReduceMin of nothing");
    expectReferenceEquals(reduceModel("ReduceMax", {3, 0}, {1}, 0, true, DataType::Int64), {{"x", Tensor(DataType::Int64, {3, 0})}},
                          {typedTensor(DataType::Int64, {3}, std::vector<double>(3, -9223372036854775808.0))},
                          "int64 ReduceMax of nothing");
}

// Bool ReduceMax and ReduceMin (opset 20): any and all; over nothing, false and true.
TEST(ReduceOp, BoolMaxIsAnyMinIsAll) {
    const Tensor x = typedTensor(DataType::Bool, {3, 4}, {0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1});
    expectReferenceEquals(reduceModel("ReduceMax", {3, 4}, {1}, 0, true, DataType::Bool), {{"x", x}},
                          {typedTensor(DataType::Bool, {3}, {0, 1, 1})}, "bool ReduceMax (any)");
    expectReferenceEquals(reduceModel("ReduceMin", {3, 4}, {1}, 0, true, DataType::Bool), {{"x", x}},
                          {typedTensor(DataType::Bool, {3}, {0, 0, 1})}, "bool ReduceMin (all)");
    expectReferenceEquals(reduceModel("ReduceMin", {3, 4}, {0}, 1, true, DataType::Bool), {{"x", x}},
                          {typedTensor(DataType::Bool, {1, 4}, {0, 0, 0, 0})}, "bool ReduceMin over rows");
    expectReferenceEquals(reduceModel("ReduceMax", {2, 0}, {1}, 0, true, DataType::Bool), {{"x", Tensor(DataType::Bool, {2, 0})}},
                          {typedTensor(DataType::Bool, {2}, {0, 0})}, "bool ReduceMax of nothing");
    expectReferenceEquals(reduceModel("ReduceMin", {2, 0}, {1}, 0, true, DataType::Bool), {{"x", Tensor(DataType::Bool, {2, 0})}},
                          {typedTensor(DataType::Bool, {2}, {1, 1})}, "bool ReduceMin of nothing");
    // The other reductions stay undefined for bool.
    expectUnsupported(reduceModel("ReduceSum", {3, 4}, {1}, 0, true, DataType::Bool), {{"x", x}}, "bool ReduceSum");
}

// The reference's integer edges (constant folding; the fuzzer found the first): |INT64_MIN|
// wraps to itself, a mean divides by the count in int64 (int8 over 256 elements: by 256, not by
// the count converted to int8, 0).
TEST(ReduceOp, IntegerEdges) {
    const double kMin = -9223372036854775808.0;
    auto ref = cpuReference(reduceModel("ReduceL1", {2}, {0}, 0, false, DataType::Int64),
                            {{"x", typedTensor(DataType::Int64, {2}, {kMin, 1})}}, "int64 ReduceL1 of MIN");
    ASSERT_EQ(ref.size(), 1u);
    EXPECT_EQ(ref[0].as<int64_t>()[0], std::numeric_limits<int64_t>::min() + 1);
    Tensor ones(DataType::Int8, {256});
    for (int64_t i = 0; i < 256; ++i) ones.as<int8_t>()[i] = 1;
    ref = cpuReference(reduceModel("ReduceMean", {256}, {0}, 0, false, DataType::Int8), {{"x", ones}}, "int8 mean of 256");
    ASSERT_EQ(ref.size(), 1u);
    EXPECT_EQ(ref[0].as<int8_t>()[0], 0) << "the sum 256 wraps to 0 in int8; 0 / 256 = 0";
    Tensor hundred(DataType::Int8, {100});
    for (int64_t i = 0; i < 100; ++i) hundred.as<int8_t>()[i] = 1;
    ref = cpuReference(reduceModel("ReduceMean", {100}, {0}, 0, false, DataType::Int8), {{"x", hundred}}, "int8 mean of 100");
    ASSERT_EQ(ref.size(), 1u);
    EXPECT_EQ(ref[0].as<int8_t>()[0], 1);
}

TEST(ReduceOp, ReferenceMatchesHandComputed) {
    // x = [[1, -2, 3], [4, 5, -6]], reduced over axis 1 (keepdims) and over both.
    Tensor x = floatTensor({2, 3}, {1, -2, 3, 4, 5, -6});
    auto run = [&](const char* op, std::vector<float> rows, float all) {
        expectReferenceEquals(reduceModel(op, {2, 3}, {1}, 1, false), {{"x", x}}, {floatTensor({2, 1}, rows)},
                              std::string(op) + " rows");
        expectReferenceEquals(reduceModel(op, {2, 3}, {}, 0, false), {{"x", x}}, {floatTensor({}, {all})},
                              std::string(op) + " all");
    };
    run("ReduceSum", {2, 3}, 5);
    run("ReduceMean", {2.0f / 3, 1}, 5.0f / 6);
    run("ReduceMax", {3, 5}, 5);
    run("ReduceMin", {-2, -6}, -6);
    run("ReduceProd", {-6, -120}, 720);
    run("ReduceSumSquare", {14, 77}, 91);
    run("ReduceL1", {6, 15}, 21);
    run("ReduceL2", {std::sqrt(14.0f), std::sqrt(77.0f)}, std::sqrt(91.0f));
    run("ReduceLogSumExp",
        {static_cast<float>(std::log(std::exp(1.0) + std::exp(-2.0) + std::exp(3.0))),
         static_cast<float>(std::log(std::exp(4.0) + std::exp(5.0) + std::exp(-6.0)))},
        static_cast<float>(std::log(std::exp(1.0) + std::exp(-2.0) + std::exp(3.0) + std::exp(4.0) + std::exp(5.0) + std::exp(-6.0))));
    Tensor p = floatTensor({2, 2}, {1, 2, 3, 4});
    expectReferenceEquals(reduceModel("ReduceLogSum", {2, 2}, {0}, 0, false), {{"x", p}},
                          {floatTensor({2}, {std::log(4.0f), std::log(6.0f)})}, "ReduceLogSum");
    // LogSumExp does not overflow for large inputs: log(e^1000 + e^1000) = 1000 + log 2.
    expectReferenceEquals(reduceModel("ReduceLogSumExp", {2}, {0}, 0, false), {{"x", floatTensor({2}, {1000, 1000})}},
                          {floatTensor({}, {1000.0f + std::log(2.0f)})}, "ReduceLogSumExp large");
}

OnnxBuilder argModel(const std::string& op, const Shape& x, int64_t axis, int64_t keepdims, int64_t last,
                     DataType t = DataType::Float32) {
    OnnxBuilder m(13);
    m.input("x", x, t).output("y", DataType::Int64);
    auto& n = m.node(op, {"x"}, {"y"});
    attr(n, "axis", axis);
    attr(n, "keepdims", keepdims);
    if (last >= 0) attr(n, "select_last_index", last);
    return m;
}

TEST(ArgReduceOp, AxesAndTies) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"ArgMax", "ArgMin"})
        for (int64_t axis : {0, 1, -1})
            for (int64_t last : {0, 1}) {
                std::string what = std::string(op) + " axis " + std::to_string(axis) + " last " + std::to_string(last);
                // Few distinct values: many ties, so select_last_index matters.
                Tensor x = convertTensor(randomIntTensor({4, 6, 5}, DataType::Int32, seedOf(what), 0, 3), DataType::Float32);
                expectGpuMatchesCpu(argModel(op, {4, 6, 5}, axis, axis == 1 ? 0 : 1, last), {{"x", x}}, what);
            }
    expectGpuMatchesCpu(argModel("ArgMax", {3, 1000}, 1, 0, 0, DataType::Int64),
                        {{"x", randomIntTensor({3, 1000}, DataType::Int64, 4, -100000, 100000)}}, "ArgMax int64 long rows");
    Tensor x = floatTensor({2, 4}, {1, 3, 3, 0, 2, 2, 1, 2});
    expectReferenceEquals(argModel("ArgMax", {2, 4}, 1, 1, 0), {{"x", x}}, {int64Tensor({2, 1}, {1, 0})}, "ArgMax first");
    expectReferenceEquals(argModel("ArgMax", {2, 4}, 1, 1, 1), {{"x", x}}, {int64Tensor({2, 1}, {2, 3})}, "ArgMax last");
    expectReferenceEquals(argModel("ArgMin", {2, 4}, 0, 0, 0), {{"x", x}}, {int64Tensor({4}, {0, 1, 1, 0})}, "ArgMin axis 0");
    expectReferenceEquals(argModel("ArgMin", {2, 4}, -1, 0, 1), {{"x", x}}, {int64Tensor({2}, {3, 2})}, "ArgMin last");
}

}  // namespace
}  // namespace vkinfer::testing
