// Fused GPU kernels against the unfused CPU reference: Conv->activation, Conv->Clip,
// Conv->Add(residual)->Relu, Conv->BatchNormalization->Relu, Gemm/MatMul/Add/Mul/BN->activation,
// depthwise Conv + residual. Dispatch counts check that each fusion actually fired (or,
// where the intermediate is observable, that it did not).
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

void addConv(OnnxBuilder& b, const std::string& in, const std::string& out, int64_t c, int64_t m, uint32_t seed,
             int64_t k = 3, int64_t group = 1, bool bias = true) {
    b.initializer(out + "_w", randomTensor({m, c / group, k, k}, seed));
    std::vector<std::string> ins{in, out + "_w"};
    if (bias) {
        b.initializer(out + "_b", randomTensor({m}, seed + 1));
        ins.push_back(out + "_b");
    }
    auto& n = b.node("Conv", ins, {out});
    attr(n, "pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
    if (group != 1) attr(n, "group", group);
}

onnx::NodeProto& addBatchNorm(OnnxBuilder& b, const std::string& in, const std::string& out, int64_t c, uint32_t seed) {
    b.initializer(out + "_s", randomTensor({c}, seed, 0.5f, 2.0f)).initializer(out + "_bias", randomTensor({c}, seed + 1));
    b.initializer(out + "_m", randomTensor({c}, seed + 2)).initializer(out + "_v", randomTensor({c}, seed + 3, 0.1f, 2.0f));
    return b.node("BatchNormalization", {in, out + "_s", out + "_bias", out + "_m", out + "_v"}, {out});
}

void expectFused(const OnnxBuilder& b, const std::vector<NamedTensor>& in, int64_t dispatches, const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_EQ(planDispatches(b, in), dispatches) << what;
    expectGpuMatchesCpu(b, in, what);
}

TEST(FusionOp, ConvActivations) {
    VKINFER_REQUIRE_GPU();
    for (const char* act : {"Relu", "Sigmoid", "Tanh", "LeakyRelu"})
        for (int64_t m : {8, 40}) {  // both GEMM tiles
            OnnxBuilder b;
            b.input("x", {1, 6, 11, 13}).output("y");
            addConv(b, "x", "c", 6, m, 1);
            auto& n = b.node(act, {"c"}, {"y"});
            if (std::string(act) == "LeakyRelu") attr(n, "alpha", 0.2f);
            expectFused(b, {{"x", randomTensor({1, 6, 11, 13}, 2, -2.0f, 2.0f)}}, 1,
                        std::string("Conv->") + act + " M=" + std::to_string(m));
        }
}

TEST(FusionOp, SiluIntoItsProducer) {
    VKINFER_REQUIRE_GPU();
    // Mul(x, Sigmoid(x)) as exporters write SiLU, either operand order, after a Conv (both
    // tiles), a Gemm and an Add; float32 and float16 plans.
    for (bool sigmoidFirst : {false, true})
        for (int64_t m : {8, 40}) {
            OnnxBuilder b;
            b.input("x", {1, 6, 11, 13}).output("y");
            addConv(b, "x", "c", 6, m, 1);
            b.node("Sigmoid", {"c"}, {"s"});
            b.node("Mul", sigmoidFirst ? std::vector<std::string>{"s", "c"} : std::vector<std::string>{"c", "s"}, {"y"});
            std::vector<NamedTensor> in{{"x", randomTensor({1, 6, 11, 13}, 2, -4.0f, 4.0f)}};
            expectFused(b, in, 1, "Conv->SiLU M=" + std::to_string(m));
            expectGpuMatchesCpu(b, in, "Conv->SiLU fp16", Tolerance{1e-2, 2e-3, true}, Precision::Float16);
        }
    {
        OnnxBuilder b;
        b.input("a", {4, 5}).input("r", {4, 5}).output("y");
        b.node("Add", {"a", "r"}, {"c"});
        b.node("Sigmoid", {"c"}, {"s"});
        b.node("Mul", {"c", "s"}, {"y"});
        expectFused(b, {{"a", randomTensor({4, 5}, 3)}, {"r", randomTensor({4, 5}, 4)}}, 1, "Add->SiLU");
    }
}

TEST(FusionOp, SiluStaysUnfusedWhereItsInputIsObservable) {
    VKINFER_REQUIRE_GPU();
    // The conv output is also a graph output, or also read by another node: the conv stores
    // it, then the Sigmoid and the Mul (and the Add) run as one pointwise program
    // (passes/pointwise_fusion.h): two dispatches.
    for (bool extraReader : {false, true}) {
        OnnxBuilder b;
        b.input("x", {1, 6, 11, 13}).output("y");
        addConv(b, "x", "c", 6, 8, 1);
        b.node("Sigmoid", {"c"}, {"s"});
        b.node("Mul", {"c", "s"}, {extraReader ? "m" : "y"});
        if (extraReader) {
            b.node("Add", {"m", "c"}, {"y"});
        } else {
            b.output("c");
        }
        std::vector<NamedTensor> in{{"x", randomTensor({1, 6, 11, 13}, 2, -4.0f, 4.0f)}};
        EXPECT_EQ(planDispatches(b, in), 2) << (extraReader ? "conv output read twice" : "conv output observable");
        expectGpuMatchesCpu(b, in, "unfused SiLU");
    }
}

TEST(FusionOp, ConvClip) {
    VKINFER_REQUIRE_GPU();
    // Opset 13: min and max as constant inputs (ReLU6), only min, only max.
    struct Case {
        const char* what;
        bool hasMin, hasMax;
    };
    for (const Case& c : {Case{"min and max", true, true}, Case{"only min", true, false}, Case{"only max", false, true}}) {
        OnnxBuilder b(13);
        b.input("x", {1, 4, 9, 9}).output("y");
        addConv(b, "x", "c", 4, 12, 1);
        b.initializer("lo", floatTensor({}, {-0.25f})).initializer("hi", floatTensor({}, {0.5f}));
        std::vector<std::string> ins{"c", c.hasMin ? "lo" : ""};
        if (c.hasMax) ins.push_back("hi");
        b.node("Clip", ins, {"y"});
        expectFused(b, {{"x", randomTensor({1, 4, 9, 9}, 2)}}, 1, std::string("Conv->Clip opset 13 ") + c.what);
    }
    // Opset 6: min/max attributes.
    OnnxBuilder b(6);
    b.input("x", {1, 4, 9, 9}).output("y");
    addConv(b, "x", "c", 4, 12, 1);
    auto& n = b.node("Clip", {"c"}, {"y"});
    attr(n, "min", 0.0f);
    attr(n, "max", 0.3f);
    expectFused(b, {{"x", randomTensor({1, 4, 9, 9}, 2)}}, 1, "Conv->Clip opset 6 attributes");
}

TEST(FusionOp, ResidualAddRelu) {
    VKINFER_REQUIRE_GPU();
    for (int order = 0; order < 2; ++order)
        for (int64_t m : {8, 24}) {
            // The residual comes from a second conv listed after the fused one, so fusion
            // must reorder: conv a (reads r), conv r, add, relu.
            OnnxBuilder b;
            b.input("x", {1, 5, 10, 9}).output("y");
            addConv(b, "x", "a", 5, m, 1);
            addConv(b, "x", "r", 5, m, 3, 1);
            b.node("Add", order == 0 ? std::vector<std::string>{"a", "r"} : std::vector<std::string>{"r", "a"}, {"s"});
            b.node("Relu", {"s"}, {"y"});
            // One of the convs absorbs the Add and the Relu.
            expectFused(b, {{"x", randomTensor({1, 5, 10, 9}, 5)}}, 2,
                        std::string("Conv->Add->Relu ") + (order ? "(r, conv)" : "(conv, r)") + " M=" + std::to_string(m));
        }
    // A conv without bias takes the residual.
    {
        OnnxBuilder b;
        b.input("x", {1, 4, 6, 7}).output("y");
        addConv(b, "x", "a", 4, 4, 1, 3, 1, false);
        b.node("Add", {"a", "x"}, {"y"});
        expectFused(b, {{"x", randomTensor({1, 4, 6, 7}, 5)}}, 1, "no-bias Conv + residual");
    }
    // The residual is a graph input (ResNet identity shortcut).
    OnnxBuilder b;
    b.input("x", {2, 6, 7, 8}).output("y");
    addConv(b, "x", "a", 6, 6, 1);
    b.node("Add", {"x", "a"}, {"s"});
    b.node("Relu", {"s"}, {"y"});
    expectFused(b, {{"x", randomTensor({2, 6, 7, 8}, 5)}}, 1, "Conv + identity shortcut -> Relu");
}

TEST(FusionOp, ResNetBlock) {
    VKINFER_REQUIRE_GPU();
    // Conv->BN->Relu->Conv->BN, shortcut Conv->BN, Add, Relu: three dispatches.
    OnnxBuilder b;
    b.input("x", {1, 8, 12, 12}).output("y");
    addConv(b, "x", "c1", 8, 16, 1, 3, 1, false);
    addBatchNorm(b, "c1", "bn1", 16, 10);
    b.node("Relu", {"bn1"}, {"r1"});
    addConv(b, "r1", "c2", 16, 16, 20, 3, 1, false);
    addBatchNorm(b, "c2", "bn2", 16, 30);
    addConv(b, "x", "sc", 8, 16, 40, 1, 1, false);
    addBatchNorm(b, "sc", "bnsc", 16, 50);
    b.node("Add", {"bn2", "bnsc"}, {"s"});
    b.node("Relu", {"s"}, {"y"});
    expectFused(b, {{"x", randomTensor({1, 8, 12, 12}, 6)}}, 3, "ResNet basic block");
}

TEST(FusionOp, ConvBatchNormRelu) {
    VKINFER_REQUIRE_GPU();
    for (bool bias : {true, false})
        for (int64_t group : {1, 4}) {
            OnnxBuilder b;
            b.input("x", {2, 8, 9, 10}).output("y");
            addConv(b, "x", "c", 8, 12, 1, 3, group, bias);
            addBatchNorm(b, "c", "bn", 12, 7);
            b.node("Relu", {"bn"}, {"y"});
            expectFused(b, {{"x", randomTensor({2, 8, 9, 10}, 3)}}, 1,
                        std::string("Conv->BN->Relu") + (bias ? " bias" : " no bias") + " group " + std::to_string(group));
        }
    // BatchNormalization with a non-default epsilon.
    OnnxBuilder b;
    b.input("x", {1, 3, 6, 6}).output("y");
    addConv(b, "x", "c", 3, 5, 1);
    attr(addBatchNorm(b, "c", "bn", 5, 7), "epsilon", 0.5f);
    b.node("Relu", {"bn"}, {"y"});
    expectFused(b, {{"x", randomTensor({1, 3, 6, 6}, 3)}}, 1, "Conv->BN(eps 0.5)->Relu");
}

TEST(FusionOp, GemmMatMulAddMulBatchNormActivations) {
    VKINFER_REQUIRE_GPU();
    {
        OnnxBuilder b;
        b.input("x", {17, 20}).output("y");
        b.initializer("w", randomTensor({30, 20}, 1)).initializer("c", randomTensor({30}, 2));
        attr(b.node("Gemm", {"x", "w", "c"}, {"g"}), "transB", int64_t{1});
        b.node("Relu", {"g"}, {"y"});
        expectFused(b, {{"x", randomTensor({17, 20}, 3)}}, 1, "Gemm->Relu");
    }
    {
        OnnxBuilder b;
        b.input("x", {1, 64}).output("y");
        b.initializer("w", randomTensor({64, 10}, 1));
        b.node("Gemm", {"x", "w"}, {"g"});
        b.node("Sigmoid", {"g"}, {"y"});
        expectFused(b, {{"x", randomTensor({1, 64}, 3)}}, 1, "Gemm (M=1) ->Sigmoid");
    }
    {
        OnnxBuilder b;
        b.input("x", {2, 5, 7}).output("y");
        b.initializer("w", randomTensor({7, 9}, 1));
        b.node("MatMul", {"x", "w"}, {"g"});
        b.node("Tanh", {"g"}, {"y"});
        expectFused(b, {{"x", randomTensor({2, 5, 7}, 3)}}, 1, "MatMul->Tanh");
    }
    {
        OnnxBuilder b;
        b.input("x", {2, 3, 5, 6}).input("z", {3, 1, 1}).output("y");
        b.node("Add", {"x", "z"}, {"s"});
        b.node("Relu", {"s"}, {"y"});
        expectFused(b, {{"x", randomTensor({2, 3, 5, 6}, 3)}, {"z", randomTensor({3, 1, 1}, 4)}}, 1, "Add->Relu");
    }
    {
        OnnxBuilder b;
        b.input("x", {4, 9}).output("y");
        b.initializer("k", randomTensor({9}, 4));
        b.node("Mul", {"x", "k"}, {"s"});
        attr(b.node("LeakyRelu", {"s"}, {"y"}), "alpha", 0.1f);
        expectFused(b, {{"x", randomTensor({4, 9}, 3)}}, 1, "Mul->LeakyRelu");
    }
    {
        OnnxBuilder b;
        b.input("x", {2, 5, 4, 3}).output("y");
        addBatchNorm(b, "x", "bn", 5, 7);
        b.initializer("lo", floatTensor({}, {0.0f})).initializer("hi", floatTensor({}, {6.0f}));
        b.node("Clip", {"bn", "lo", "hi"}, {"y"});
        expectFused(b, {{"x", randomTensor({2, 5, 4, 3}, 3, -8.0f, 8.0f)}}, 1, "BN->Clip");
    }
}

TEST(FusionOp, DepthwiseResidual) {
    VKINFER_REQUIRE_GPU();
    // MobileNetV2 style: depthwise 3x3 (direct kernel) plus a shortcut, then ReLU6.
    OnnxBuilder b;
    b.input("x", {1, 16, 13, 11}).output("y");
    addConv(b, "x", "dw", 16, 16, 1, 3, 16);
    b.node("Add", {"dw", "x"}, {"s"});
    b.initializer("lo", floatTensor({}, {0.0f})).initializer("hi", floatTensor({}, {6.0f}));
    b.node("Clip", {"s", "lo", "hi"}, {"y"});
    expectFused(b, {{"x", randomTensor({1, 16, 13, 11}, 3, -4.0f, 4.0f)}}, 1, "depthwise + residual + ReLU6");
    // Depthwise with multiplier 2 + residual from another conv.
    OnnxBuilder c;
    c.input("x", {2, 8, 9, 9}).output("y");
    addConv(c, "x", "dw", 8, 16, 1, 3, 8);
    addConv(c, "x", "pw", 8, 16, 2, 1);
    c.node("Add", {"pw", "dw"}, {"y"});
    expectFused(c, {{"x", randomTensor({2, 8, 9, 9}, 3)}}, 2, "depthwise x2 + residual");
}

TEST(FusionOp, NotFusedWhenIntermediateIsObservable) {
    VKINFER_REQUIRE_GPU();
    // The conv output is a graph output too: Relu must stay separate.
    {
        OnnxBuilder b;
        b.input("x", {1, 3, 6, 6}).output("c").output("y");
        addConv(b, "x", "c", 3, 4, 1);
        b.node("Relu", {"c"}, {"y"});
        expectFused(b, {{"x", randomTensor({1, 3, 6, 6}, 2)}}, 2, "conv output also a graph output");
    }
    // The conv output has two readers.
    {
        OnnxBuilder b;
        b.input("x", {1, 3, 6, 6}).output("y").output("z");
        addConv(b, "x", "c", 3, 4, 1);
        b.node("Relu", {"c"}, {"y"});
        b.node("Sigmoid", {"c"}, {"z"});
        expectFused(b, {{"x", randomTensor({1, 3, 6, 6}, 2)}}, 3, "conv output read twice");
    }
    // Add(c, c): the same conv output on both sides cannot be a residual.
    {
        OnnxBuilder b;
        b.input("x", {1, 3, 6, 6}).output("y");
        addConv(b, "x", "c", 3, 4, 1);
        b.node("Add", {"c", "c"}, {"s"});
        b.node("Relu", {"s"}, {"y"});
        expectFused(b, {{"x", randomTensor({1, 3, 6, 6}, 2)}}, 2, "Add(c, c) -> Relu");
    }
    // A broadcasting residual cannot fuse into the conv epilogue.
    {
        OnnxBuilder b;
        b.input("x", {1, 3, 6, 6}).input("r", {4, 1, 1}).output("y");
        addConv(b, "x", "c", 3, 4, 1);
        b.node("Add", {"c", "r"}, {"s"});
        b.node("Relu", {"s"}, {"y"});
        expectFused(b, {{"x", randomTensor({1, 3, 6, 6}, 2)}, {"r", randomTensor({4, 1, 1}, 3)}}, 2,
                    "broadcast Add after conv");
    }
    // BN whose input is also read elsewhere stays standalone.
    {
        OnnxBuilder b;
        b.input("x", {1, 3, 6, 6}).output("y").output("z");
        addConv(b, "x", "c", 3, 4, 1);
        addBatchNorm(b, "c", "y", 4, 5);
        b.node("Relu", {"c"}, {"z"});
        expectFused(b, {{"x", randomTensor({1, 3, 6, 6}, 2)}}, 3, "conv read by BN and Relu");
    }
}

TEST(FusionOp, FusedConvWritesInPlaceConcat) {
    VKINFER_REQUIRE_GPU();
    // Conv->BN->Relu and Conv->Add->Relu both written straight into a Concat.
    OnnxBuilder b;
    b.input("x", {1, 4, 4, 4}).output("y");
    addConv(b, "x", "a", 4, 16, 1);
    addBatchNorm(b, "a", "abn", 16, 2);
    b.node("Relu", {"abn"}, {"ar"});
    addConv(b, "x", "c", 4, 4, 3);
    b.node("Add", {"c", "x"}, {"cs"});
    b.node("Relu", {"cs"}, {"cr"});
    attr(b.node("Concat", {"ar", "cr"}, {"y"}), "axis", int64_t{1});
    expectFused(b, {{"x", randomTensor({1, 4, 4, 4}, 3)}}, 2, "fused convs into in-place concat");
}

// Split-K: convolutions with few output tiles and a long reduction run as partial sums over
// slices of the reduction plus a reduce dispatch that adds bias, residual and activation.
// Same results as the CPU reference (and bit-identical in both sync modes), with and
// without the residual, in float32 on the portable tiles (a CPU's float32 default takes the
// register-direct kernel, which does not split) and in float16 on the device's default.
TEST(FusionOp, SplitKConvolutionsWithResidualAndActivation) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        std::string what;
        Shape x;
        int64_t m, k, group;
        bool residual;
    };
    for (const Case& c : std::vector<Case>{{"7x7 map, 256 -> 96 channels, 3x3", {1, 256, 7, 7}, 96, 3, 1, true},
                                           {"batch 2, 5x6 map, K = 1152", {2, 128, 5, 6}, 70, 3, 1, false},
                                           {"2 groups, 4x4 map", {1, 192, 4, 4}, 130, 3, 2, true},
                                           {"1x1 conv, 1x1 map, K = 1024", {1, 1024, 1, 1}, 65, 1, 1, true}}) {
        OnnxBuilder b;
        b.input("x", c.x).output("y");
        addConv(b, "x", "c", c.x[1], c.m, seedOf(c.what), c.k, c.group);
        std::string last = "c";
        if (c.residual) {
            Shape r{c.x[0], c.m, c.x[2], c.x[3]};
            b.input("r", r);
            b.node("Add", {"c", "r"}, {"a"});
            last = "a";
        }
        b.node("Relu", {last}, {"y"});
        std::vector<NamedTensor> in{{"x", randomTensor(c.x, seedOf(c.what) + 7)}};
        if (c.residual) in.push_back({"r", randomTensor({c.x[0], c.m, c.x[2], c.x[3]}, seedOf(c.what) + 8)});
        PlanOptions portable;
        portable.kernels.convTiles = ConvTiles::Small;
        // The split conv and the reduce (residual and Relu fused).
        EXPECT_EQ(planDispatches(b, in, portable), 2) << c.what;
        SessionOptions o;
        o.kernels = portable.kernels;
        expectGpuMatchesCpuWith(b, in, c.what, opTolerance(), o);
        expectGpuMatchesCpu(b, in, c.what + " (fp16)", Tolerance{1e-2, 1e-2, true}, Precision::Float16);
    }
}

}  // namespace
}  // namespace vkinfer::testing
