// Element-wise math functions (src/ops/unary.cpp): every op on the GPU against the CPU
// reference over inputs in its domain, attributes, float16 and integer variants, and the
// reference itself against hand-computed values.
#include <cmath>

#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

OnnxBuilder unaryModel(const std::string& op, const Shape& shape, DataType type = DataType::Float32, int64_t opset = 14) {
    OnnxBuilder b(opset);
    b.input("x", shape, type).output("y", type);
    b.node(op, {"x"}, {"y"});
    return b;
}

struct Domain {
    const char* op;
    float lo, hi;
};

// Each op's inputs stay where it is defined (and away from poles: Tan, Reciprocal).
const Domain kDomains[] = {
    {"Neg", -5, 5},       {"Abs", -5, 5},       {"Sign", -2, 2},      {"Exp", -8, 8},
    {"Log", 0.01f, 50},   {"Sqrt", 0, 50},      {"Reciprocal", 0.1f, 4}, {"Floor", -5, 5},
    {"Ceil", -5, 5},      {"Round", -5, 5},     {"Erf", -4, 4},       {"Elu", -4, 4},
    {"Selu", -4, 4},      {"Celu", -4, 4},      {"Softplus", -30, 30}, {"Softsign", -5, 5},
    {"HardSigmoid", -5, 5}, {"HardSwish", -5, 5}, {"ThresholdedRelu", -3, 3}, {"Shrink", -2, 2},
    {"Sin", -6, 6},       {"Cos", -6, 6},       {"Tan", -1.2f, 1.2f}, {"Asin", -0.99f, 0.99f},
    {"Acos", -0.99f, 0.99f}, {"Atan", -10, 10}, {"Sinh", -5, 5},      {"Cosh", -5, 5},
    {"Asinh", -20, 20},   {"Acosh", 1.01f, 20}, {"Atanh", -0.95f, 0.95f},
};

TEST(UnaryMathOp, EveryOpMatchesReference) {
    VKINFER_REQUIRE_GPU();
    for (const auto& d : kDomains) {
        for (const Shape& shape : {Shape{37}, Shape{2, 3, 17, 19}}) {
            std::string what = std::string(d.op) + " " + shapeToString(shape);
            SCOPED_TRACE(what);
            expectGpuMatchesCpu(unaryModel(d.op, shape), {{"x", randomTensor(shape, seedOf(what), d.lo, d.hi)}}, what);
        }
    }
}

TEST(UnaryMathOp, ErfSmallArgumentsStayRelativelyAccurate) {
    VKINFER_REQUIRE_GPU();
    // GELU evaluates erf(x / sqrt 2) near 0 as often as anywhere: the fit must not lose digits there.
    expectGpuMatchesCpu(unaryModel("Erf", {4, 64}), {{"x", randomTensor({4, 64}, 5, -1e-3f, 1e-3f)}}, "Erf near 0");
}

TEST(UnaryMathOp, Attributes) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        const char* op;
        std::vector<std::pair<const char*, float>> attrs;
    };
    const Case cases[] = {
        {"Elu", {{"alpha", 0.5f}}},
        {"Selu", {{"alpha", 2.0f}, {"gamma", 3.0f}}},
        {"Celu", {{"alpha", 2.5f}}},
        {"HardSigmoid", {{"alpha", 0.5f}, {"beta", 0.6f}}},
        {"ThresholdedRelu", {{"alpha", 0.4f}}},
        {"Shrink", {{"lambd", 1.0f}, {"bias", 0.3f}}},
    };
    for (const auto& c : cases) {
        OnnxBuilder b;
        b.input("x", {5, 13}).output("y");
        auto& n = b.node(c.op, {"x"}, {"y"});
        for (const auto& [k, v] : c.attrs) attr(n, k, v);
        std::string what = std::string(c.op) + " with attributes";
        expectGpuMatchesCpu(b, {{"x", randomTensor({5, 13}, seedOf(what), -3, 3)}}, what);
    }
}

TEST(UnaryMathOp, IntegerNegAbsSign) {
    VKINFER_REQUIRE_GPU();
    for (DataType t : {DataType::Int32, DataType::Int64})
        for (const char* op : {"Neg", "Abs", "Sign"}) {
            std::string what = std::string(op) + " " + dataTypeName(t);
            expectGpuMatchesCpu(unaryModel(op, {3, 41}, t), {{"x", randomIntTensor({3, 41}, t, seedOf(what), -1000, 1000)}},
                                what);
        }
    Tensor x = typedTensor(DataType::Int64, {5}, {-7, 0, 3, -2147483649.0, 5000000000.0});
    expectReferenceEquals(unaryModel("Abs", {5}, DataType::Int64), {{"x", x}},
                          {typedTensor(DataType::Int64, {5}, {7, 0, 3, 2147483649.0, 5000000000.0})}, "Abs int64 beyond 32 bits");
    expectReferenceEquals(unaryModel("Neg", {5}, DataType::Int64), {{"x", x}},
                          {typedTensor(DataType::Int64, {5}, {7, 0, -3, 2147483649.0, -5000000000.0})}, "Neg int64");
}

TEST(UnaryMathOp, Float16) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"Exp", "Erf", "Neg", "Sqrt"}) {
        std::string what = std::string(op) + " float16";
        Tensor x = convertTensor(randomTensor({3, 29}, seedOf(what), 0.0f, 3.0f), DataType::Float16);
        expectGpuMatchesCpu(unaryModel(op, {3, 29}, DataType::Float16), {{"x", x}}, what, Tolerance{2e-3, 1e-3, true});
    }
}

TEST(UnaryMathOp, ReferenceMatchesHandComputed) {
    const std::vector<float> xs = {-3.0f, -1.5f, -0.5f, 0.0f, 0.5f, 2.5f};
    auto run = [&](const char* op, const std::vector<float>& want, std::vector<std::pair<const char*, float>> attrs = {}) {
        OnnxBuilder b(14);  // HardSwish's opset
        b.input("x", {6}).output("y");
        auto& n = b.node(op, {"x"}, {"y"});
        for (const auto& [k, v] : attrs) attr(n, k, v);
        expectReferenceEquals(b, {{"x", floatTensor({6}, xs)}}, {floatTensor({6}, want)}, op);
    };
    // erf values from tables (Abramowitz & Stegun 7.1): erf(0.5) = 0.5204998778, erf(1.5) = 0.9661051465.
    run("Erf", {-0.9999779095f, -0.9661051465f, -0.5204998778f, 0.0f, 0.5204998778f, 0.9995930480f});
    run("Sign", {-1, -1, -1, 0, 1, 1});
    run("Round", {-3, -2, -0.0f, 0, 0, 2});  // halves to even
    run("Floor", {-3, -2, -1, 0, 0, 2});
    run("Ceil", {-3, -1, -0.0f, 0, 1, 3});
    run("Abs", {3, 1.5f, 0.5f, 0, 0.5f, 2.5f});
    run("Softsign", {-0.75f, -0.6f, -1.0f / 3, 0, 1.0f / 3, 2.5f / 3.5f});
    run("HardSigmoid", {0, 0.2f, 0.4f, 0.5f, 0.6f, 1.0f});  // alpha 0.2, beta 0.5, clamped
    run("HardSwish", {0, -1.5f * 0.25f, -0.5f * (5.0f / 12), 0, 0.5f * (7.0f / 12), 2.5f * (11.0f / 12)});
    run("ThresholdedRelu", {0, 0, 0, 0, 0, 2.5f});  // alpha 1
    run("Shrink", {-2.5f, -1.0f, 0, 0, 0, 2.0f}, {{"bias", 0.5f}});  // lambd 0.5: |x| <= 0.5 -> 0
    const float e = 2.718281828f;
    run("Elu", {2 * (1 / (e * e * e) - 1), 2 * (1 / std::exp(1.5f) - 1), 2 * (1 / std::sqrt(e) - 1), 0, 0.5f, 2.5f},
        {{"alpha", 2.0f}});
    // Selu defaults: alpha 1.6732632, gamma 1.0507010.
    const float a = 1.67326319f, g = 1.05070102f;
    run("Selu", {g * a * (1 / (e * e * e) - 1), g * a * (1 / std::exp(1.5f) - 1), g * a * (1 / std::sqrt(e) - 1), 0,
                 g * 0.5f, g * 2.5f});
    // log(1 + e^x): log(1 + e^-3) = 0.0485873516, log(1 + e^2.5) = 2.5788897.
    run("Softplus", {0.0485873516f, 0.2014132779f, 0.4740769842f, 0.6931471806f, 0.9740769842f, 2.5788897343f});
    run("Neg", {3, 1.5f, 0.5f, -0.0f, -0.5f, -2.5f});
}

// Each op from the opset ONNX introduced it in: an older model naming it is refused.
TEST(UnaryMathOp, OpsetsBeforeAnOpExistedAreRefused) {
    for (const auto& [op, first] : std::vector<std::pair<const char*, int64_t>>{{"HardSwish", 14}, {"Celu", 12},
                                                                                 {"Round", 11}, {"Sinh", 9}}) {
        auto older = unaryModel(op, {4}, DataType::Float32, first - 1).build();
        ASSERT_FALSE(older.ok()) << op << " at opset " << first - 1;
        EXPECT_EQ(older.status().code(), ErrorCode::Unsupported) << older.status().toString();
        auto current = unaryModel(op, {4}, DataType::Float32, first).build();
        EXPECT_TRUE(current.ok()) << op << " at opset " << first << ": " << current.status().toString();
    }
}

TEST(UnaryMathOp, RejectsUnsignedNeg) {
    expectUnsupported(unaryModel("Neg", {4}, DataType::UInt8), {{"x", Tensor(DataType::UInt8, {4})}}, "Neg uint8");
    expectUnsupported(unaryModel("Exp", {4}, DataType::Int32), {{"x", Tensor(DataType::Int32, {4})}}, "Exp int32");
}

}  // namespace
}  // namespace vkinfer::testing
