// Element-wise ops: Add/Sub/Mul/Div/Pow with NumPy broadcasting, and the standalone
// activations Relu, Clip (opset 6 attributes and opset 13 inputs), Sigmoid, Tanh, LeakyRelu.
#include <cfloat>
#include <cmath>
#include <limits>

#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

// Operand values per op: denominators kept away from zero, Pow bases positive.
Tensor operandA(const std::string& op, const Shape& s, uint32_t seed) {
    if (op == "Pow") return randomTensor(s, seed, 0.1f, 2.0f);
    return randomTensor(s, seed, -2.0f, 2.0f);
}
Tensor operandB(const std::string& op, const Shape& s, uint32_t seed) {
    if (op == "Div") {
        Tensor t = randomTensor(s, seed, 0.5f, 2.0f);
        for (int64_t i = 0; i < t.elementCount(); i += 2) t.as<float>()[i] = -t.as<float>()[i];
        return t;
    }
    if (op == "Pow") return randomTensor(s, seed, -2.0f, 2.0f);
    return randomTensor(s, seed, -2.0f, 2.0f);
}

void runBinary(const std::string& op, const Shape& a, const Shape& b, bool bConstant = false, bool aConstant = false) {
    std::string what = op + " " + shapeToString(a) + " , " + shapeToString(b) + (aConstant ? " (A constant)" : "") +
                       (bConstant ? " (B constant)" : "");
    SCOPED_TRACE(what);
    uint32_t seed = seedOf(what);
    OnnxBuilder m;
    std::vector<NamedTensor> inputs;
    if (aConstant) m.initializer("a", operandA(op, a, seed));
    else {
        m.input("a", a);
        inputs.push_back({"a", operandA(op, a, seed)});
    }
    if (bConstant) m.initializer("b", operandB(op, b, seed + 1));
    else {
        m.input("b", b);
        inputs.push_back({"b", operandB(op, b, seed + 1)});
    }
    m.output("y");
    m.node(op, {"a", "b"}, {"y"});
    expectGpuMatchesCpu(m, inputs, what);
}

const std::vector<std::pair<Shape, Shape>>& broadcastCases() {
    static const std::vector<std::pair<Shape, Shape>> cases{
        {{2, 3, 4, 5}, {2, 3, 4, 5}},              // identical
        {{}, {2, 3, 5}},                           // scalar (rank 0) on the left
        {{2, 3, 5}, {}},                           // and on the right
        {{1}, {4, 5}},                             // [1]
        {{2, 3, 7, 9}, {3, 1, 1}},                 // per-channel [C,1,1] vs NCHW
        {{3, 1, 1}, {2, 3, 7, 9}},                 // ... on the left
        {{2, 3, 7, 9}, {7, 9}},                    // rank mismatch
        {{9}, {2, 3, 7, 9}},                       // rank mismatch, vector on the left
        {{3, 1}, {1, 4}},                          // both sides broadcast
        {{2, 1, 5, 1}, {1, 3, 1, 4}},              // both sides, interleaved
        {{2, 1, 3, 1, 2, 5}, {1, 4, 1, 3, 2, 1}},  // rank 6
        {{1, 1, 1, 13}, {11, 1}},                  // leading ones
        {{5, 1, 7}, {5, 6, 1}},                    // odd sizes
    };
    return cases;
}

TEST(BinaryOp, BroadcastShapes) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow"})
        for (const auto& [a, b] : broadcastCases()) runBinary(op, a, b);
}

TEST(BinaryOp, ConstantOperand) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow"}) {
        runBinary(op, {2, 4, 5, 6}, {4, 1, 1}, true);
        runBinary(op, {4, 1, 1}, {2, 4, 5, 6}, false, true);
        runBinary(op, {3, 7}, {}, true);
    }
}

TEST(BinaryOp, ManyWorkgroups) {
    VKINFER_REQUIRE_GPU();
    runBinary("Add", {1, 3, 100, 101}, {3, 1, 1});
    runBinary("Mul", {2, 3, 100, 101}, {2, 3, 100, 101});
    runBinary("Sub", {100, 1}, {1, 1001});
}

TEST(BinaryOp, RankAboveSixThatCollapses) {
    VKINFER_REQUIRE_GPU();
    // Unit dimensions drop and contiguous ones merge, so rank 8 fits the 6-dimension kernel.
    runBinary("Add", {1, 2, 1, 3, 4, 1, 5, 2}, {1, 2, 1, 3, 4, 1, 5, 2});
    runBinary("Mul", {2, 1, 3, 1, 4, 1, 2}, {1});
}

TEST(BinaryOp, SameTensorTwice) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
        OnnxBuilder b;
        b.input("x", {3, 5, 7}).output("y");
        b.node(op, {"x", "x"}, {"y"});
        expectGpuMatchesCpu(b, {{"x", randomTensor({3, 5, 7}, 11, 0.5f, 2.0f)}}, std::string(op) + "(x, x)");
    }
}

TEST(BinaryOp, PowNegativeBaseIntegerExponent) {
    VKINFER_REQUIRE_GPU();
    // ONNX Pow follows NumPy: a negative base with an integral exponent is well defined
    // ((-2)^3 = -8), unlike GLSL pow(), which is undefined for x < 0.
    OnnxBuilder b;
    b.input("x", {3, 6}).input("e", {3, 6}).output("y");
    b.node("Pow", {"x", "e"}, {"y"});
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    Tensor x = floatTensor({3, 6}, {-2, -2, -3, -1.5f, -4, -0.5f, 2, 0, 0, -1, 3, -2, 0, -2, 5, 1, -3, -1});
    Tensor e = floatTensor({3, 6}, {3, 2, -1, 2, 0.0f, -2, 0.5f, 2, 0, 7, -2, 1, -1, 0.5f, 1, 100, 4, 1e10f});
    Tensor want = floatTensor({3, 6}, {-8, 4, -1.0f / 3.0f, 2.25f, 1, 4, std::sqrt(2.0f), 0, 1, -1, 1.0f / 9.0f, -2,
                                       inf, nan, 5, 1, 81, 1});
    expectReferenceEquals(b, {{"x", x}, {"e", e}}, {want}, "pow negative base");
}

TEST(BinaryOp, ReferenceMatchesHandComputed) {
    OnnxBuilder b;
    b.input("a", {3, 1}).input("c", {1, 4}).output("add").output("sub").output("mul").output("div");
    b.node("Add", {"a", "c"}, {"add"});
    b.node("Sub", {"a", "c"}, {"sub"});
    b.node("Mul", {"a", "c"}, {"mul"});
    b.node("Div", {"a", "c"}, {"div"});
    Tensor a = floatTensor({3, 1}, {1, 2, 3});
    Tensor c = floatTensor({1, 4}, {10, 20, 40, 80});
    std::vector<float> add, sub, mul, div;
    for (float x : {1.0f, 2.0f, 3.0f})
        for (float y : {10.0f, 20.0f, 40.0f, 80.0f}) {
            add.push_back(x + y);
            sub.push_back(x - y);
            mul.push_back(x * y);
            div.push_back(x / y);
        }
    expectReferenceEquals(b, {{"a", a}, {"c", c}},
                          {floatTensor({3, 4}, add), floatTensor({3, 4}, sub), floatTensor({3, 4}, mul),
                           floatTensor({3, 4}, div)},
                          "[3,1] op [1,4]");
}

// ---- activations ----

void runUnary(OnnxBuilder& b, const Shape& shape, const std::string& what, float lo = -3.0f, float hi = 3.0f) {
    SCOPED_TRACE(what);
    expectGpuMatchesCpu(b, {{"x", randomTensor(shape, seedOf(what), lo, hi)}}, what);
}

TEST(ActivationOp, ReluSigmoidTanhLeakyRelu) {
    VKINFER_REQUIRE_GPU();
    for (const auto& shape : std::vector<Shape>{{7}, {3, 5, 7}, {1, 3, 100, 101}, {2, 1, 1, 1, 257}}) {
        for (const char* op : {"Relu", "Sigmoid", "Tanh", "LeakyRelu"}) {
            OnnxBuilder b;
            b.input("x", shape).output("y");
            b.node(op, {"x"}, {"y"});
            runUnary(b, shape, std::string(op) + " " + shapeToString(shape));
        }
    }
    OnnxBuilder b;
    b.input("x", {4, 33}).output("y");
    attr(b.node("LeakyRelu", {"x"}, {"y"}), "alpha", 0.3f);
    runUnary(b, {4, 33}, "LeakyRelu alpha 0.3");
}

TEST(ActivationOp, LargeMagnitudes) {
    VKINFER_REQUIRE_GPU();
    for (const char* op : {"Sigmoid", "Tanh", "Relu", "LeakyRelu"}) {
        OnnxBuilder b;
        b.input("x", {5, 40}).output("y");
        b.node(op, {"x"}, {"y"});
        runUnary(b, {5, 40}, std::string(op) + " wide range", -100.0f, 100.0f);
    }
}

TEST(ActivationOp, SmallMagnitudes) {
    VKINFER_REQUIRE_GPU();
    // Near 0, tanh(x) ~ x: the result must stay accurate relative to x (the tolerance scales
    // with max |y|, about 1e-3 here), not just absolutely.
    for (const char* op : {"Tanh", "Sigmoid", "LeakyRelu"}) {
        OnnxBuilder b;
        b.input("x", {4, 50}).output("y");
        b.node(op, {"x"}, {"y"});
        runUnary(b, {4, 50}, std::string(op) + " small range", -1e-3f, 1e-3f);
    }
    // And fused into a producer (the same activate() in every kernel).
    OnnxBuilder b;
    b.input("x", {4, 50}).output("y");
    b.initializer("k", floatTensor({}, {1e-3f}));
    b.node("Mul", {"x", "k"}, {"m"});
    b.node("Tanh", {"m"}, {"y"});
    runUnary(b, {4, 50}, "Mul->Tanh small range", -1.0f, 1.0f);
}

TEST(ActivationOp, ReferenceMatchesHandComputed) {
    Tensor x = floatTensor({8}, {-50, -10, -1, -0.0f, 0, 0.5f, 10, 50});
    auto model = [](const char* op, float alpha = -1) {
        OnnxBuilder b;
        b.input("x", {8}).output("y");
        auto& n = b.node(op, {"x"}, {"y"});
        if (alpha >= 0) attr(n, "alpha", alpha);
        return b;
    };
    std::vector<float> relu, sig, th, leaky, leaky2;
    for (int i = 0; i < 8; ++i) {
        double v = x.as<float>()[i];
        relu.push_back(static_cast<float>(v > 0 ? v : 0));
        sig.push_back(static_cast<float>(1.0 / (1.0 + std::exp(-v))));
        th.push_back(static_cast<float>(std::tanh(v)));
        leaky.push_back(static_cast<float>(v >= 0 ? v : 0.01 * v));
        leaky2.push_back(static_cast<float>(v >= 0 ? v : 0.25 * v));
    }
    // Spot checks that do not depend on libm: tanh saturates to exactly +-1 in float.
    EXPECT_EQ(th[0], -1.0f);
    EXPECT_EQ(th[7], 1.0f);
    expectReferenceEquals(model("Relu"), {{"x", x}}, {floatTensor({8}, relu)}, "Relu");
    expectReferenceEquals(model("Sigmoid"), {{"x", x}}, {floatTensor({8}, sig)}, "Sigmoid");
    expectReferenceEquals(model("Tanh"), {{"x", x}}, {floatTensor({8}, th)}, "Tanh +-50");
    expectReferenceEquals(model("LeakyRelu"), {{"x", x}}, {floatTensor({8}, leaky)}, "LeakyRelu default alpha");
    expectReferenceEquals(model("LeakyRelu", 0.25f), {{"x", x}}, {floatTensor({8}, leaky2)}, "LeakyRelu alpha 0.25");
}

// Clip with opset 6 attributes (min/max, either one defaulting to the float range) and
// with opset 13 inputs (min and/or max, "" for an omitted one).
std::vector<float> clipValues(float lo, float hi) {
    std::vector<float> out;
    for (float v : {-5.0f, -1.0f, -0.25f, 0.0f, 0.75f, 1.0f, 3.0f, 1e30f})
        out.push_back(std::min(std::max(v, lo), hi));
    return out;
}
Tensor clipInput() { return floatTensor({8}, {-5.0f, -1.0f, -0.25f, 0.0f, 0.75f, 1.0f, 3.0f, 1e30f}); }

TEST(ClipOp, Opset6Attributes) {
    struct Case {
        const char* what;
        bool hasMin, hasMax;
        float lo, hi;
    };
    for (const Case& c : {Case{"min and max", true, true, -1.0f, 1.0f}, Case{"only min", true, false, -0.5f, FLT_MAX},
                          Case{"only max", false, true, -FLT_MAX, 0.8f}, Case{"neither", false, false, -FLT_MAX, FLT_MAX},
                          Case{"Relu6", true, true, 0.0f, 6.0f}}) {
        OnnxBuilder b(6);
        b.input("x", {8}).output("y");
        auto& n = b.node("Clip", {"x"}, {"y"});
        if (c.hasMin) attr(n, "min", c.lo);
        if (c.hasMax) attr(n, "max", c.hi);
        expectReferenceEquals(b, {{"x", clipInput()}}, {floatTensor({8}, clipValues(c.lo, c.hi))},
                              std::string("Clip opset 6 ") + c.what);
        if (gpuAvailable()) {
            OnnxBuilder big(6);
            big.input("x", {2, 3, 17, 19}).output("y");
            auto& m = big.node("Clip", {"x"}, {"y"});
            if (c.hasMin) attr(m, "min", c.lo);
            if (c.hasMax) attr(m, "max", c.hi);
            runUnary(big, {2, 3, 17, 19}, std::string("Clip opset 6 random ") + c.what);
        }
    }
}

TEST(ClipOp, Opset13Inputs) {
    struct Case {
        const char* what;
        bool hasMin, hasMax;
        float lo, hi;
    };
    for (const Case& c : {Case{"min and max", true, true, -1.0f, 1.0f}, Case{"only min", true, false, -0.5f, FLT_MAX},
                          Case{"only max", false, true, -FLT_MAX, 0.8f}, Case{"neither", false, false, -FLT_MAX, FLT_MAX},
                          Case{"min > max", true, true, 2.0f, 1.0f}}) {
        for (int shape = 0; shape < 2; ++shape) {
            OnnxBuilder b(13);
            Shape s = shape == 0 ? Shape{8} : Shape{3, 4, 25};
            b.input("x", s).output("y");
            if (c.hasMin) b.initializer("lo", floatTensor({}, {c.lo}));
            if (c.hasMax) b.initializer("hi", floatTensor({}, {c.hi}));
            std::vector<std::string> ins{"x"};
            if (c.hasMin || c.hasMax) ins.push_back(c.hasMin ? "lo" : "");
            if (c.hasMax) ins.push_back("hi");
            b.node("Clip", ins, {"y"});
            std::string what = std::string("Clip opset 13 ") + c.what;
            if (shape == 0) expectReferenceEquals(b, {{"x", clipInput()}}, {floatTensor({8}, clipValues(c.lo, c.hi))}, what);
            else if (gpuAvailable()) runUnary(b, s, what + " random");
        }
    }
}

}  // namespace
}  // namespace vkinfer::testing
