// Fused pointwise programs (passes/pointwise_fusion.h, shaders/pointwise.comp) on the GPU
// against the unfused CPU reference, float32 and float16: every step the kernel runs, erf
// Gelu, broadcast operands, groups that store an intermediate (a graph output, a value read
// elsewhere), LayerNorm as exported (one LayerNormalization, or fused runs before opset 17),
// NAFNet's LayerNorm2d and SimpleGate, and the same models with the fusion off. Dispatch
// counts (float32 plans) check that each fusion fired.
#include <cmath>

#include "ops/op_harness.h"
#include "support/small_models.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

const Tolerance kFp16{1e-2, 4e-3, true};

Tensor scalar(float v) { return Tensor::fromVector<float>(DataType::Float32, {}, {v}); }

// Both precisions, the float32 plan at `dispatches`, and the same model with the fusion off.
void expectFused(const OnnxBuilder& b, const std::vector<NamedTensor>& in, int64_t dispatches, const std::string& what,
                 bool fp16 = true) {
    SCOPED_TRACE(what);
    EXPECT_EQ(planDispatches(b, in), dispatches) << what;
    expectGpuMatchesCpu(b, in, what);
    if (fp16) expectGpuMatchesCpu(b, in, what + " fp16", kFp16, Precision::Float16);
    SessionOptions off;
    off.kernels.fusePointwise = false;
    expectGpuMatchesCpuWith(b, in, what + " unfused", opTolerance(), off);
}

struct StepCase {
    const char* op;
    float lo, hi;
    int64_t opset = 13;
    bool fp16 = true;
};

TEST(PointwiseFusionOp, EveryStepFollowedByAnAdd) {
    VKINFER_REQUIRE_GPU();
    // op(x) + y: the op on a graph input has no producer to fuse into, so the two nodes are one
    // program. Inputs where each op is defined.
    const StepCase cases[] = {
        {"Neg", -5, 5},         {"Abs", -5, 5},        {"Sqrt", 0, 50},         {"Exp", -8, 8},
        {"Log", 0.01f, 50},     {"Erf", -4, 4},        {"Reciprocal", 0.1f, 4}, {"Floor", -5, 5, 13, false},
        {"Ceil", -5, 5, 13, false}, {"Tanh", -6, 6},   {"Sigmoid", -8, 8},      {"Relu", -3, 3},
        {"LeakyRelu", -3, 3},   {"HardSigmoid", -5, 5}, {"HardSwish", -5, 5, 14},   {"Gelu", -5, 5, 20},
        {"Clip", -3, 3},        {"Pow", 0.1f, 3},      {"Max", -3, 3},          {"Min", -3, 3},
        {"Sub", -3, 3},         {"Div", -3, 3},
    };
    for (const auto& c : cases) {
        const std::string op = c.op;
        OnnxBuilder b(c.opset);
        b.input("x", {2, 3, 17, 19}).input("y", {2, 3, 17, 19}).output("z");
        if (op == "Clip") {
            b.initializer("lo", scalar(-1.5f)).initializer("hi", scalar(0.75f));
            b.node("Clip", {"x", "lo", "hi"}, {"t"});
        } else if (op == "Pow" || op == "Max" || op == "Min" || op == "Sub" || op == "Div") {
            b.initializer("k", scalar(op == "Pow" ? 2.5f : 0.625f));
            b.node(op, {"x", "k"}, {"t"});
        } else {
            auto& n = b.node(op, {"x"}, {"t"});
            if (op == "LeakyRelu") attr(n, "alpha", 0.15f);
            if (op == "HardSigmoid") attr(n, "alpha", 0.3f);
        }
        b.node("Add", {"t", "y"}, {"z"});
        std::vector<NamedTensor> in{{"x", randomTensor({2, 3, 17, 19}, seedOf(op), c.lo, c.hi)},
                                    {"y", randomTensor({2, 3, 17, 19}, seedOf(op) + 1)}};
        expectFused(b, in, 1, op + " -> Add", c.fp16);
    }
    {  // Gelu's tanh approximation
        OnnxBuilder b(20);
        b.input("x", {5, 33}).input("y", {5, 33}).output("z");
        attr(b.node("Gelu", {"x"}, {"t"}), "approximate", std::string("tanh"));
        b.node("Add", {"t", "y"}, {"z"});
        expectFused(b, {{"x", randomTensor({5, 33}, 1, -5, 5)}, {"y", randomTensor({5, 33}, 2)}}, 1, "Gelu tanh -> Add");
    }
}

void addErfGelu(OnnxBuilder& b, const std::string& x, const std::string& y) {
    b.initializer(y + "_sqrt2", scalar(std::sqrt(2.0f))).initializer(y + "_one", scalar(1.0f));
    b.initializer(y + "_half", scalar(0.5f));
    b.node("Div", {x, y + "_sqrt2"}, {y + "_d"});
    b.node("Erf", {y + "_d"}, {y + "_e"});
    b.node("Add", {y + "_e", y + "_one"}, {y + "_p"});
    b.node("Mul", {x, y + "_p"}, {y + "_m"});
    b.node("Mul", {y + "_m", y + "_half"}, {y});
}

TEST(PointwiseFusionOp, ErfGeluWithoutAProducer) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b;
    b.input("x", {2, 50, 96}).output("y");
    addErfGelu(b, "x", "y");
    expectFused(b, {{"x", randomTensor({2, 50, 96}, 3, -5.0f, 5.0f)}}, 1, "erf Gelu on a graph input");
}

TEST(PointwiseFusionOp, BroadcastOperands) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b;
    b.input("x", {2, 3, 4, 5}).input("r", {1, 3, 1, 5}).output("y");
    b.initializer("gamma", randomTensor({3, 1, 1}, 4)).initializer("beta", randomTensor({1, 1, 5}, 5));
    b.initializer("two", Tensor::fromVector<float>(DataType::Float32, {1}, {2.0f}));
    b.node("Mul", {"x", "gamma"}, {"a"});
    b.node("Add", {"a", "beta"}, {"c"});
    b.node("Pow", {"c", "two"}, {"d"});
    b.node("Sqrt", {"d"}, {"e"});
    b.node("Sub", {"r", "e"}, {"f"});  // the broadcast input first: its operand order kept
    b.node("Tanh", {"f"}, {"y"});
    expectFused(b, {{"x", randomTensor({2, 3, 4, 5}, 6)}, {"r", randomTensor({1, 3, 1, 5}, 7)}}, 1,
                "Mul Add Pow Sqrt Sub Tanh, broadcast");
}

TEST(PointwiseFusionOp, IntermediateGraphOutputIsStored) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b;
    b.input("x", {7, 33}).output("a").output("y");
    b.initializer("k", scalar(0.25f));
    b.node("Add", {"x", "k"}, {"a"});
    b.node("Sigmoid", {"a"}, {"s"});
    b.node("Mul", {"a", "s"}, {"y"});
    expectFused(b, {{"x", randomTensor({7, 33}, 8, -4, 4)}}, 1, "Add (graph output) -> SiLU: two outputs");
}

TEST(PointwiseFusionOp, IntermediateReadElsewhereIsStored) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b;
    b.input("x", {16, 16}).output("y").output("z");
    b.node("Relu", {"x"}, {"a"});
    b.node("Neg", {"a"}, {"n"});
    b.node("Exp", {"n"}, {"y"});
    b.node("MatMul", {"a", "x"}, {"z"});
    expectFused(b, {{"x", randomTensor({16, 16}, 9)}}, 2, "Relu (read by a MatMul) -> Neg -> Exp");
}

TEST(PointwiseFusionOp, ThreeObservableValuesInAChain) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b;
    b.input("x", {100}).output("a").output("b").output("c");
    b.node("Relu", {"x"}, {"a"});
    b.node("Exp", {"a"}, {"b"});
    b.node("Neg", {"b"}, {"c"});
    expectFused(b, {{"x", randomTensor({100}, 10)}}, 2, "three graph outputs in a chain");
}

TEST(PointwiseFusionOp, ProgramsPastTheKernelsLimitsSplit) {
    VKINFER_REQUIRE_GPU();
    {  // 20 steps: 16 in the first program, 4 in the second
        OnnxBuilder b;
        b.input("x", {3, 41}).output("y");
        std::string prev = "x";
        for (int k = 0; k < 20; ++k) {
            const std::string next = k == 19 ? "y" : "t" + std::to_string(k);
            b.node(k % 2 ? "Sigmoid" : "Neg", {prev}, {next});
            prev = next;
        }
        expectFused(b, {{"x", randomTensor({3, 41}, 19, -3, 3)}}, 2, "20 steps");
    }
    {  // 12 distinct scalars: 8 immediates in the first program
        OnnxBuilder b;
        b.input("x", {3, 41}).output("y");
        std::string prev = "x";
        for (int k = 0; k < 12; ++k) {
            const std::string next = k == 11 ? "y" : "t" + std::to_string(k), c = "c" + std::to_string(k);
            b.initializer(c, scalar(k % 2 ? 0.0625f * static_cast<float>(k) : 1.0f + 0.03125f * static_cast<float>(k)));
            b.node(k % 2 ? "Add" : "Mul", {prev, c}, {next});
            prev = next;
        }
        expectFused(b, {{"x", randomTensor({3, 41}, 20)}}, 2, "12 immediates");
    }
    {  // 6 tensor operands: 4 inputs in the first program
        OnnxBuilder b;
        b.input("x", {3, 41}).output("y");
        std::vector<NamedTensor> in{{"x", randomTensor({3, 41}, 21)}};
        std::string prev = "x";
        for (int k = 0; k < 5; ++k) {
            const std::string next = k == 4 ? "y" : "t" + std::to_string(k), o = "o" + std::to_string(k);
            b.input(o, {3, 41});
            in.push_back({o, randomTensor({3, 41}, 22 + static_cast<uint32_t>(k))});
            b.node(k % 2 ? "Sub" : "Mul", {prev, o}, {next});
            prev = next;
        }
        expectFused(b, in, 2, "6 tensor operands");
    }
}

TEST(PointwiseFusionOp, LayerNormAsExported) {
    VKINFER_REQUIRE_GPU();
    const std::vector<NamedTensor> in{{"x", randomTensor({2, 7, 48}, 13, -3, 5)}};
    auto written = [](int64_t opset) { return layerNormAsWritten({.x = {2, 7, 48}, .opset = opset, .seed = 11}); };
    expectFused(written(18), in, 1, "LayerNorm as exported, opset 18: a LayerNormalization");
    expectFused(written(17), in, 1, "LayerNorm as exported, opset 17: a LayerNormalization");
    expectFused(written(13), in, 4, "LayerNorm as exported, opset 13: means and two programs");
}

TEST(PointwiseFusionOp, NafnetLayerNorm2dSimpleGateAndResidual) {
    VKINFER_REQUIRE_GPU();
    const int64_t C = 8;
    OnnxBuilder b(13);
    // (8 x 8 maps: each half of the Split starts where a buffer can be bound, so it is a view)
    b.input("x", {1, 2 * C, 8, 8}).input("inp", {1, C, 8, 8}).output("y");
    b.initializer("eps", scalar(1e-6f)).initializer("two", scalar(2.0f));
    b.initializer("w", randomTensor({1, 2 * C, 1, 1}, 14)).initializer("bias", randomTensor({1, 2 * C, 1, 1}, 15));
    b.initializer("beta", randomTensor({1, C, 1, 1}, 16));
    attr(b.node("ReduceMean", {"x"}, {"mu"}), "axes", std::vector<int64_t>{1});
    b.node("Sub", {"x", "mu"}, {"d"});
    b.node("Pow", {"d", "two"}, {"d2"});
    attr(b.node("ReduceMean", {"d2"}, {"var"}), "axes", std::vector<int64_t>{1});
    b.node("Add", {"var", "eps"}, {"ve"});
    b.node("Sqrt", {"ve"}, {"sd"});
    b.node("Div", {"d", "sd"}, {"n"});
    b.node("Mul", {"n", "w"}, {"nw"});
    b.node("Add", {"nw", "bias"}, {"ln"});
    attr(b.node("Split", {"ln"}, {"x1", "x2"}), "axis", int64_t{1});
    b.node("Mul", {"x1", "x2"}, {"g"});
    b.node("Mul", {"g", "beta"}, {"gb"});
    b.node("Add", {"inp", "gb"}, {"y"});
    expectFused(b, {{"x", randomTensor({1, 2 * C, 8, 8}, 17, -2, 3)}, {"inp", randomTensor({1, C, 8, 8}, 18)}}, 2,
                "NAFNet LayerNorm2d + SimpleGate + scaled residual");
}

// LayerNorm2d over the channels alone as exporters write it, one vkinfer.ChannelNorm: the
// weight as the Mul's first operand ([1, C, 1, 1]), without the affine, on a [N, C, L]
// tensor, with many channels (long strided rows, split across invocations past 32: one
// workgroup of rows and one and a half), batch 2, and `x - mu` once or twice.
// Offsets in the input so that a mean taken over the wrong axis shows.
TEST(PointwiseFusionOp, LayerNorm2dIsOneChannelNorm) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        Shape x;
        bool affine, weightFirst;
        int64_t opset;
        bool subTwice;
    };
    for (const Case& c : {Case{{1, 8, 6, 7}, true, true, 13, true}, Case{{2, 12, 5, 9}, true, false, 18, false},
                          Case{{2, 16, 33}, false, false, 17, true}, Case{{1, 96, 4, 5}, true, true, 18, false},
                          Case{{2, 48, 6, 7}, true, false, 18, false}, Case{{1, 384, 7, 9}, true, true, 17, true}}) {
        const std::string what = "LayerNorm2d " + ::testing::PrintToString(c.x) + (c.affine ? " affine" : "") +
                                 (c.weightFirst ? " weight first" : "") + " opset " + std::to_string(c.opset) +
                                 (c.subTwice ? " x-mu twice" : "");
        Tensor x = randomTensor(c.x, seedOf(what), -2, 3);
        for (int64_t i = 0; i < x.elementCount(); ++i) x.as<float>()[i] += float(i % 5);  // per-pixel offsets
        expectFused(layerNormAsWritten({.x = c.x,
                                        .opset = c.opset,
                                        .axis = 1,
                                        .affine = c.affine,
                                        .weightFirst = c.weightFirst,
                                        .subTwice = c.subTwice,
                                        .seed = 21}),
                    {{"x", x}}, 1, what);
    }
}

// LayerNorm over the channels as torchvision's LayerNorm2d writes it (ConvNeXt: Transpose to
// channels last, LayerNormalization, Transpose back) and as Restormer does (Reshape to
// [B, C, HW], Transpose, LN, Transpose, Reshape back): one vkinfer.ChannelNorm
// (passes/channel_norm.h). Not when the normalized tensor is read elsewhere, or the way back
// is not the inverse.
OnnxBuilder permutedLayerNorm(const Shape& x, bool restormer, bool bias, const Shape& backPerm = {}) {
    const int64_t C = x[1];
    OnnxBuilder b(17);
    b.input("x", x).output("y");
    b.initializer("g", randomTensor({C}, 3, 0.5f, 1.5f));
    if (bias) b.initializer("b", randomTensor({C}, 4, -0.5f, 0.5f));
    std::vector<std::string> lnIn{"t", "g"};
    if (bias) lnIn.push_back("b");
    if (restormer) {
        b.initializer("to3", int64Tensor({3}, {x[0], C, x[2] * x[3]})).initializer("to4", int64Tensor({4}, x));
        b.node("Reshape", {"x", "to3"}, {"r"});
        attr(b.node("Transpose", {"r"}, {"t"}), "perm", std::vector<int64_t>{0, 2, 1});
        auto& ln = b.node("LayerNormalization", lnIn, {"n"});
        attr(ln, "axis", int64_t{-1});
        attr(ln, "epsilon", 1e-5f);
        attr(b.node("Transpose", {"n"}, {"u"}), "perm", std::vector<int64_t>{0, 2, 1});
        b.node("Reshape", {"u", "to4"}, {"y"});
    } else {
        attr(b.node("Transpose", {"x"}, {"t"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
        auto& ln = b.node("LayerNormalization", lnIn, {"n"});
        attr(ln, "axis", int64_t{-1});
        attr(ln, "epsilon", 1e-6f);
        attr(b.node("Transpose", {"n"}, {"y"}), "perm", backPerm.empty() ? std::vector<int64_t>{0, 3, 1, 2} : backPerm);
    }
    return b;
}

TEST(PointwiseFusionOp, PermutedLayerNormIsOneChannelNorm) {
    const Shape x{2, 24, 5, 7};
    for (bool restormer : {false, true})
        for (bool bias : {true, false}) {
            const std::string what = std::string(restormer ? "Restormer" : "LayerNorm2d") + (bias ? " with bias" : "");
            Tensor in = randomTensor(x, seedOf(what), -2, 3);
            for (int64_t i = 0; i < in.elementCount(); ++i) in.as<float>()[i] += float(i % 7);  // per-pixel offsets
            if (!gpuAvailable()) {
                EXPECT_EQ(planDispatches(permutedLayerNorm(x, restormer, bias), {{"x", in}}), 1) << what;
                continue;
            }
            expectFused(permutedLayerNorm(x, restormer, bias), {{"x", in}}, 1, what);
        }
    // The way back is not the inverse (H and W swapped): three dispatches, still correct.
    const Tensor in = randomTensor(x, 9, -2, 3);
    OnnxBuilder swapped = permutedLayerNorm(x, false, true, {0, 3, 2, 1});
    EXPECT_EQ(planDispatches(swapped, {{"x", in}}), 3);
    if (gpuAvailable()) expectGpuMatchesCpu(swapped, {{"x", in}}, "not the inverse");
    // The normalized tensor also read by another node: stays a LayerNormalization.
    OnnxBuilder shared = permutedLayerNorm(x, false, true);
    shared.output("n");
    EXPECT_EQ(planDispatches(shared, {{"x", in}}), 3);
}

// GroupNorm as torchlib exports it (Reshape, InstanceNormalization, Reshape, Mul, Add, then
// SiLU): one vkinfer.GroupNorm dispatch with per-channel parameters and the SiLU in its
// epilogue, against the unfused CPU reference in both precisions.
TEST(PointwiseFusionOp, GroupNormAsExportedIsOneDispatch) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        Shape x;
        int64_t groups;
        bool affine, silu;
    };
    for (const Case& c : {Case{{1, 8, 5, 6}, 4, true, true}, Case{{2, 6, 7}, 3, true, false},
                          Case{{1, 32, 12, 9}, 8, true, true}, Case{{1, 8, 4, 4}, 8, false, true}}) {
        const std::string what = "GroupNorm " + ::testing::PrintToString(c.x) + " G=" + std::to_string(c.groups) +
                                 (c.affine ? " affine" : "") + (c.silu ? " SiLU" : "");
        expectFused(groupNormAsExported(c.x, c.groups, c.affine, c.silu), {{"x", randomTensor(c.x, seedOf(what), -3, 4)}},
                    1, what);
    }
}

}  // namespace
}  // namespace vkinfer::testing
