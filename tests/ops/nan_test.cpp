// NaN propagates as PyTorch and NumPy propagate it: Relu(NaN), Clip(NaN), max(NaN, x),
// min(x, NaN) and a max-pool window holding a NaN are NaN, in the CPU reference and on the GPU
// (standalone and fused activations, float32 and float16 kernels). GLSL's max, min and clamp
// are undefined for NaN (lavapipe and NVIDIA return the other operand), so the kernels test
// for it. Infinities where they mean something: Relu(-inf) = 0, Clip(+inf) = max, a window of
// -inf pools to -inf.
#include <cmath>
#include <limits>
#include <set>

#include "ops/op_harness.h"
#include "support/gpu_context.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Random values in [-2, 2] with NaN, +inf and -inf at the given flat indices.
Tensor withSpecials(const Shape& shape, uint32_t seed, const std::set<int64_t>& nan, const std::set<int64_t>& posInf = {},
                    const std::set<int64_t>& negInf = {}) {
    Tensor t = randomTensor(shape, seed, -2.0f, 2.0f);
    for (int64_t i : nan) t.as<float>()[i] = kNaN;
    for (int64_t i : posInf) t.as<float>()[i] = kInf;
    for (int64_t i : negInf) t.as<float>()[i] = -kInf;
    return t;
}

Tensor asFloat(const Tensor& t) {
    if (t.dtype() == DataType::Float32) return t;
    Tensor f(DataType::Float32, t.shape());
    for (int64_t i = 0; i < t.elementCount(); ++i) f.as<float>()[i] = static_cast<float>(t.getDouble(i));
    return f;
}

// NaN exactly at `nanAt` (flat indices), nowhere else.
void expectNanExactlyAt(const Tensor& t, const std::set<int64_t>& nanAt, const std::string& what) {
    int64_t wrong = 0;
    std::string first;
    for (int64_t i = 0; i < t.elementCount(); ++i) {
        bool isNan = std::isnan(t.getDouble(i));
        if (isNan != (nanAt.count(i) > 0)) {
            if (wrong++ == 0)
                first = "index " + std::to_string(i) + " is " + std::to_string(t.getDouble(i)) +
                        (isNan ? " (NaN not expected)" : " (NaN expected)");
        }
    }
    EXPECT_EQ(wrong, 0) << what << ": " << wrong << " elements wrong, first " << first;
}

// The model's first output has NaN exactly at `nanAt` in the CPU reference and on the GPU
// (float32 and float16 plans, both sync modes, under validation when ctest runs it), and the
// GPU matches the reference elsewhere (infinities included: compareTensors matches an
// infinity only by the same one). `check` is called on the reference output for value checks.
template <class Check>
void expectNan(const OnnxBuilder& b, const std::vector<NamedTensor>& inputs, const std::set<int64_t>& nanAt,
               const std::string& what, Check check, bool fp16 = true) {
    SCOPED_TRACE(what);
    std::vector<Tensor> cpu = cpuReference(b, inputs, what);
    ASSERT_FALSE(cpu.empty());
    expectNanExactlyAt(cpu[0], nanAt, what + " (CPU reference)");
    check(asFloat(cpu[0]));
    if (!gpuAvailable()) return;
    auto model = b.build();
    ASSERT_TRUE(model.ok()) << model.status().toString();
    std::vector<Precision> precisions{Precision::Float32};
    if (fp16) precisions.push_back(Precision::Float16);
    for (Precision p : precisions) {
        SessionOptions o;
        o.precision = p;
        auto session = Session::create(gpuContext(), *model, o);
        ASSERT_TRUE(session.ok()) << session.status().toString();
        auto out = session->run(inputs);
        ASSERT_TRUE(out.ok()) << what << ": " << out.status().toString();
        const std::string label = what + " (GPU, " + precisionName(p) + ")";
        expectNanExactlyAt((*out)[0].tensor, nanAt, label);
        check(asFloat((*out)[0].tensor));
    }
    // Both sync modes, bit for bit, and the values elsewhere (float32).
    expectGpuMatchesCpu(b, inputs, what);
    if (fp16) expectGpuMatchesCpu(b, inputs, what + " fp16", Tolerance{2e-2, 2e-2, true}, Precision::Float16);
}

void noCheck(const Tensor&) {}

OnnxBuilder unaryModel(const std::string& op, const Shape& shape, int64_t opset = 14) {
    OnnxBuilder b(opset);
    b.input("x", shape).output("y");
    b.node(op, {"x"}, {"y"});
    return b;
}

const Shape kShape{2, 3, 4, 5};
const std::set<int64_t> kNanAt{0, 7, 33, 64, 119};
const std::set<int64_t> kPosInfAt{3, 50};
const std::set<int64_t> kNegInfAt{4, 51};

TEST(NanOp, Activations) {
    Tensor x = withSpecials(kShape, 1, kNanAt, kPosInfAt, kNegInfAt);
    expectNan(unaryModel("Relu", kShape), {{"x", x}}, kNanAt, "Relu", [](const Tensor& y) {
        EXPECT_EQ(y.as<float>()[3], kInf);
        EXPECT_EQ(y.as<float>()[4], 0.0f);
    });
    {
        OnnxBuilder b = unaryModel("LeakyRelu", kShape);
        attr(*b.proto().mutable_graph()->mutable_node(0), "alpha", 0.1f);
        expectNan(b, {{"x", x}}, kNanAt, "LeakyRelu", [](const Tensor& y) { EXPECT_EQ(y.as<float>()[4], -kInf); });
    }
    expectNan(unaryModel("Sigmoid", kShape), {{"x", x}}, kNanAt, "Sigmoid", [](const Tensor& y) {
        EXPECT_EQ(y.as<float>()[3], 1.0f);
        EXPECT_EQ(y.as<float>()[4], 0.0f);
    });
    expectNan(unaryModel("Tanh", kShape), {{"x", x}}, kNanAt, "Tanh", [](const Tensor& y) {
        EXPECT_EQ(y.as<float>()[3], 1.0f);
        EXPECT_EQ(y.as<float>()[4], -1.0f);
    });
}

TEST(NanOp, Clip) {
    Tensor x = withSpecials(kShape, 2, kNanAt, kPosInfAt, kNegInfAt);
    auto bounds = [](const Tensor& y) {
        EXPECT_EQ(y.as<float>()[3], 1.0f);
        EXPECT_EQ(y.as<float>()[4], -0.5f);
    };
    {  // Opset 13, constant bounds: the activation kernel.
        OnnxBuilder b(13);
        b.input("x", kShape).output("y");
        b.initializer("lo", floatTensor({}, {-0.5f})).initializer("hi", floatTensor({}, {1.0f}));
        b.node("Clip", {"x", "lo", "hi"}, {"y"});
        expectNan(b, {{"x", x}}, kNanAt, "Clip constant bounds", bounds);
    }
    {  // Opset 6: attributes.
        OnnxBuilder b(6);
        b.input("x", kShape).output("y");
        auto& n = b.node("Clip", {"x"}, {"y"});
        attr(n, "min", -0.5f);
        attr(n, "max", 1.0f);
        expectNan(b, {{"x", x}}, kNanAt, "Clip opset 6", bounds);
    }
    {  // Bounds given at run time: Max then Min dispatches.
        OnnxBuilder b(13);
        b.input("x", kShape).input("lo", {}).input("hi", {}).output("y");
        b.node("Clip", {"x", "lo", "hi"}, {"y"});
        expectNan(b, {{"x", x}, {"lo", floatTensor({}, {-0.5f})}, {"hi", floatTensor({}, {1.0f})}}, kNanAt,
                  "Clip run-time bounds", bounds);
    }
}

TEST(NanOp, MaxMinElementwise) {
    const std::set<int64_t> nanA{1, 20, 77}, nanB{2, 20, 100, 118};
    std::set<int64_t> both = nanA;
    both.insert(nanB.begin(), nanB.end());
    Tensor a = withSpecials(kShape, 3, nanA, {5}, {6});
    Tensor b = withSpecials(kShape, 4, nanB, {6}, {5});
    for (const char* op : {"Max", "Min"}) {
        OnnxBuilder m;
        m.input("a", kShape).input("b", kShape).output("y");
        m.node(op, {"a", "b"}, {"y"});
        const bool isMax = std::string(op) == "Max";
        expectNan(m, {{"a", a}, {"b", b}}, both, std::string(op) + "(a, b)", [&](const Tensor& y) {
            EXPECT_EQ(y.as<float>()[5], isMax ? kInf : -kInf);
            EXPECT_EQ(y.as<float>()[6], isMax ? kInf : -kInf);
        });
        // NaN as the second operand, broadcast: every element.
        OnnxBuilder s;
        s.input("a", kShape).input("n", {1}).output("y");
        s.node(op, {"a", "n"}, {"y"});
        std::set<int64_t> all;
        for (int64_t i = 0; i < 120; ++i) all.insert(i);
        expectNan(s, {{"a", a}, {"n", floatTensor({1}, {kNaN})}}, all, std::string(op) + "(a, NaN)", noCheck);
        // Variadic, three inputs: NaN from any of them.
        OnnxBuilder v;
        v.input("a", kShape).input("b", kShape).input("c", kShape).output("y");
        v.node(op, {"a", "b", "c"}, {"y"});
        std::set<int64_t> three = both;
        three.insert(60);
        expectNan(v, {{"a", a}, {"b", b}, {"c", withSpecials(kShape, 5, {60})}}, three, std::string(op) + "(a, b, c)",
                  noCheck);
        // float64 (its own exact kernel, and the reference in double).
        OnnxBuilder d;
        d.input("a", kShape, DataType::Float64).input("b", kShape, DataType::Float64).output("y", DataType::Float64);
        d.node(op, {"a", "b"}, {"y"});
        expectNan(d, {{"a", convertTensor(a, DataType::Float64)}, {"b", convertTensor(b, DataType::Float64)}}, both,
                  std::string(op) + " float64", noCheck, false);
    }
}

TEST(NanOp, MaxPool) {
    // [1, 2, 6, 6], 2x2 windows, stride 2: a NaN poisons its window only.
    const Shape shape{1, 2, 6, 6};
    // (c, y, x) -> flat: NaN at (0,0,0), (0,3,4), (1,5,5); a window of -inf at (1, 0..1, 2..3).
    const std::set<int64_t> nan{0, 3 * 6 + 4, 36 + 5 * 6 + 5};
    const std::set<int64_t> negInf{36 + 2, 36 + 3, 36 + 6 + 2, 36 + 6 + 3};
    Tensor x = withSpecials(shape, 6, nan, {}, negInf);
    // Output [1, 2, 3, 3]: windows (0,0,0), (0,1,2), (1,2,2).
    const std::set<int64_t> pooledNan{0, 1 * 3 + 2, 9 + 2 * 3 + 2};
    auto negInfWindow = [](const Tensor& y) { EXPECT_EQ(y.as<float>()[9 + 1], -kInf); };
    auto pool = [&](bool indices, const std::vector<int64_t>& pads) {
        OnnxBuilder b;
        b.input("x", shape).output("y");
        if (indices) b.output("i", DataType::Int64);
        auto& n = b.node("MaxPool", {"x"}, indices ? std::vector<std::string>{"y", "i"} : std::vector<std::string>{"y"});
        attr(n, "kernel_shape", std::vector<int64_t>{2, 2});
        attr(n, "strides", std::vector<int64_t>{2, 2});
        if (!pads.empty()) attr(n, "pads", pads);
        return b;
    };
    expectNan(pool(false, {}), {{"x", x}}, pooledNan, "MaxPool 2x2", negInfWindow);
    // With the Indices output (pool_nd.comp): NaN too, and the index of the (first) NaN.
    expectNan(pool(true, {}), {{"x", x}}, pooledNan, "MaxPool with indices", negInfWindow, false);
    auto idx = cpuReference(pool(true, {}), {{"x", x}}, "MaxPool indices");
    ASSERT_EQ(idx.size(), 2u);
    EXPECT_EQ(idx[1].as<int64_t>()[1 * 3 + 2], 3 * 6 + 4);
    // 3x3 windows, stride 1, padded: a NaN poisons every window over it.
    {
        OnnxBuilder b;
        b.input("x", shape).output("y");
        auto& n = b.node("MaxPool", {"x"}, {"y"});
        attr(n, "kernel_shape", std::vector<int64_t>{3, 3});
        attr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
        std::set<int64_t> spread;
        for (int64_t f : nan) {
            int64_t c = f / 36, yy = f % 36 / 6, xx = f % 6;
            for (int64_t dy = -1; dy <= 1; ++dy)
                for (int64_t dx = -1; dx <= 1; ++dx)
                    if (yy + dy >= 0 && yy + dy < 6 && xx + dx >= 0 && xx + dx < 6)
                        spread.insert(c * 36 + (yy + dy) * 6 + xx + dx);
        }
        expectNan(b, {{"x", x}}, spread, "MaxPool 3x3 padded", noCheck);
    }
    // 3-D pooling (pool_nd.comp): [1, 1, 2, 4, 4], 2x2x2 windows.
    {
        OnnxBuilder b;
        b.input("x", {1, 1, 2, 4, 4}).output("y");
        auto& n = b.node("MaxPool", {"x"}, {"y"});
        attr(n, "kernel_shape", std::vector<int64_t>{2, 2, 2});
        attr(n, "strides", std::vector<int64_t>{2, 2, 2});
        // (z, y, x) = (1, 3, 0) -> window (0, 1, 0), output index 2.
        expectNan(b, {{"x", withSpecials({1, 1, 2, 4, 4}, 7, {16 + 12})}}, {2}, "MaxPool 3-D", noCheck, false);
    }
}

TEST(NanOp, GlobalMaxPool) {
    // [2, 3, 5, 5]: NaN in planes (0, 1) and (1, 2); plane (1, 0) all -inf.
    const Shape shape{2, 3, 5, 5};
    std::set<int64_t> negInf;
    for (int64_t i = 0; i < 25; ++i) negInf.insert(75 + i);
    Tensor x = withSpecials(shape, 8, {25 + 24, 125 + 3}, {}, negInf);
    OnnxBuilder b;
    b.input("x", shape).output("y");
    b.node("GlobalMaxPool", {"x"}, {"y"});
    expectNan(b, {{"x", x}}, {1, 5}, "GlobalMaxPool", [](const Tensor& y) { EXPECT_EQ(y.as<float>()[3], -kInf); });
    // A plane larger than the workgroup: the NaN must survive the tree reduction.
    OnnxBuilder big;
    big.input("x", {1, 2, 40, 40}).output("y");
    big.node("GlobalMaxPool", {"x"}, {"y"});
    expectNan(big, {{"x", withSpecials({1, 2, 40, 40}, 9, {1600 + 1234})}}, {1}, "GlobalMaxPool 40x40", noCheck);
}

TEST(NanOp, ReduceMaxMin) {
    const Shape shape{3, 4, 10};
    Tensor x = withSpecials(shape, 10, {5, 40 + 39}, {80}, {81});
    for (const char* op : {"ReduceMax", "ReduceMin"}) {
        OnnxBuilder b;
        b.input("x", shape).output("y");
        auto& n = b.node(op, {"x"}, {"y"});
        attr(n, "axes", std::vector<int64_t>{2});
        attr(n, "keepdims", int64_t{0});
        // Rows 0 and 7 (of 12) hold a NaN.
        expectNan(b, {{"x", x}}, {0, 7}, op, [&](const Tensor& y) {
            EXPECT_EQ(y.as<float>()[8], std::string(op) == "ReduceMax" ? kInf : -kInf);
        });
    }
}

// Fused activations: each epilogue (conv, gemm, matmul, binary, residual, batch norm) keeps a
// NaN that reaches it.
TEST(NanOp, FusedActivations) {
    // Conv 1x1 -> Relu: a NaN pixel (any channel) poisons every output channel at that pixel.
    const Shape shape{1, 3, 5, 6};
    Tensor x = withSpecials(shape, 11, {7, 30 + 20});  // pixels 7 and 20
    std::set<int64_t> pixels;
    for (int64_t m = 0; m < 8; ++m) pixels.insert({m * 30 + 7, m * 30 + 20});
    for (const char* act : {"Relu", "LeakyRelu", "Clip", "Sigmoid", "Tanh"}) {
        OnnxBuilder b(13);
        b.input("x", shape).output("y");
        b.initializer("w", randomTensor({8, 3, 1, 1}, 12)).initializer("bias", randomTensor({8}, 13));
        b.node("Conv", {"x", "w", "bias"}, {"c"});
        std::vector<std::string> ins{"c"};
        if (std::string(act) == "Clip") {
            b.initializer("lo", floatTensor({}, {0.0f})).initializer("hi", floatTensor({}, {6.0f}));
            ins = {"c", "lo", "hi"};
        }
        b.node(act, ins, {"y"});
        EXPECT_EQ(planDispatches(b, {{"x", x}}), 1) << "Conv->" << act << " fused";
        expectNan(b, {{"x", x}}, pixels, std::string("Conv 1x1->") + act, noCheck);
    }
    // Conv 3x3 (padded) -> Relu: a NaN poisons its 3x3 neighbourhood in every channel.
    {
        OnnxBuilder b;
        b.input("x", shape).output("y");
        b.initializer("w", randomTensor({4, 3, 3, 3}, 14));
        auto& n = b.node("Conv", {"x", "w"}, {"c"});
        attr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
        b.node("Relu", {"c"}, {"y"});
        Tensor one = withSpecials(shape, 15, {30 + 2 * 6 + 3});  // channel 1, (2, 3)
        std::set<int64_t> spread;
        for (int64_t m = 0; m < 4; ++m)
            for (int64_t yy = 1; yy <= 3; ++yy)
                for (int64_t xx = 2; xx <= 4; ++xx) spread.insert(m * 30 + yy * 6 + xx);
        expectNan(b, {{"x", one}}, spread, "Conv 3x3->Relu", noCheck);
    }
    // Gemm -> Relu and MatMul -> Relu: a NaN in row r of A poisons row r of the output.
    for (const char* op : {"Gemm", "MatMul"}) {
        OnnxBuilder b;
        b.input("a", {6, 8}).output("y");
        b.initializer("w", randomTensor({8, 5}, 16));
        b.node(op, {"a", "w"}, {"g"});
        b.node("Relu", {"g"}, {"y"});
        std::set<int64_t> row2;
        for (int64_t j = 0; j < 5; ++j) row2.insert(2 * 5 + j);
        expectNan(b, {{"a", withSpecials({6, 8}, 17, {2 * 8 + 5})}}, row2, std::string(op) + "->Relu", noCheck);
    }
    // Add -> Relu and Mul -> Relu (the binary epilogue), with -inf: Relu(-inf + 1) = 0.
    for (const char* op : {"Add", "Mul"}) {
        OnnxBuilder b;
        b.input("a", kShape).input("b", kShape).output("y");
        b.node(op, {"a", "b"}, {"s"});
        b.node("Relu", {"s"}, {"y"});
        expectNan(b, {{"a", withSpecials(kShape, 18, {1, 2}, {}, {9})}, {"b", withSpecials(kShape, 19, {2, 3}, {}, {})}},
                  {1, 2, 3}, std::string(op) + "->Relu", noCheck);
    }
    // Conv -> Add(residual with NaN) -> Relu.
    {
        OnnxBuilder b;
        b.input("x", shape).input("r", {1, 4, 5, 6}).output("y");
        b.initializer("w", randomTensor({4, 3, 1, 1}, 20));
        b.node("Conv", {"x", "w"}, {"c"});
        b.node("Add", {"c", "r"}, {"s"});
        b.node("Relu", {"s"}, {"y"});
        expectNan(b, {{"x", randomTensor(shape, 21)}, {"r", withSpecials({1, 4, 5, 6}, 22, {0, 95})}}, {0, 95},
                  "Conv->Add(residual)->Relu", noCheck);
    }
    // BatchNormalization -> Relu.
    {
        OnnxBuilder b;
        b.input("x", shape).output("y");
        b.initializer("s", randomTensor({3}, 23, 0.5f, 2.0f)).initializer("bb", randomTensor({3}, 24));
        b.initializer("m", randomTensor({3}, 25)).initializer("v", randomTensor({3}, 26, 0.5f, 2.0f));
        b.node("BatchNormalization", {"x", "s", "bb", "m", "v"}, {"n"});
        b.node("Relu", {"n"}, {"y"});
        expectNan(b, {{"x", withSpecials(shape, 27, {4, 61})}}, {4, 61}, "BatchNormalization->Relu", noCheck);
    }
}

// Element-wise math whose ONNX definitions (NumPy's) give NaN for NaN but whose kernels used
// max, min, clamp or sign, which drop it.
TEST(NanOp, UnaryMath) {
    Tensor x = withSpecials(kShape, 28, kNanAt);
    for (const char* op : {"Sign", "Celu", "Softplus", "HardSigmoid", "HardSwish", "Abs", "Elu", "Exp", "Floor"})
        expectNan(unaryModel(op, kShape), {{"x", x}}, kNanAt, op, noCheck);
}

}  // namespace
}  // namespace vkinfer::testing
