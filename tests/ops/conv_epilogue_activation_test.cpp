// Activations a convolution's epilogue applies beyond the pure functions of x: PRelu with a
// slope per channel (packed after the biases, read by every convolution kernel), a PRelu with
// one slope (a LeakyRelu), HardSwish and HardSigmoid, on every kernel family (portable, the
// GPU tiles, conv2d_small, the direct kernels, depthwise, split-K's reduce, the tensor cores
// emulated), through a fused DepthToSpace, in float32 and float16, against the unfused CPU
// reference. Plans are checked to hold no standalone activation.
#include "ops/conv_cases.h"

namespace vkinfer::testing {
namespace {

struct ActCase {
    std::string what;
    Shape x;
    int64_t m, k = 3, group = 1;
    std::string act;       // PRelu, PReluScalar, HardSwish, HardSigmoid
    int64_t shuffle = 0;   // a DepthToSpace after the conv (before the activation)
    bool crd = true;
};

OnnxBuilder actModel(const ActCase& c) {
    OnnxBuilder b(14);  // HardSwish is opset 14's
    b.input("x", c.x).output("y");
    const int64_t cin = c.x[1];
    b.initializer("w", rnd({c.m, cin / c.group, c.k, c.k}, c.what + " w")).initializer("b", rnd({c.m}, c.what + " b"));
    auto& conv = b.node("Conv", {"x", "w", "b"}, {"c"});
    attr(conv, "pads", Shape{c.k / 2, c.k / 2, c.k / 2, c.k / 2});
    if (c.group != 1) attr(conv, "group", c.group);
    std::string pre = "c";
    int64_t channels = c.m;
    if (c.shuffle) {
        auto& d2s = b.node("DepthToSpace", {"c"}, {"s"});
        attr(d2s, "blocksize", c.shuffle);
        attr(d2s, "mode", std::string(c.crd ? "CRD" : "DCR"));
        pre = "s";
        channels = c.m / (c.shuffle * c.shuffle);
    }
    if (c.act == "PRelu") {
        // Slopes of both signs and magnitudes, as PyTorch exports them: [C, 1, 1].
        b.initializer("slope", randomTensor({channels, 1, 1}, seedOf(c.what + " slope"), -0.5f, 1.5f));
        b.node("PRelu", {pre, "slope"}, {"y"});
    } else if (c.act == "PReluScalar") {
        b.initializer("slope", floatTensor({1}, {0.3f}));
        b.node("PRelu", {pre, "slope"}, {"y"});
    } else if (c.act == "HardSigmoid") {
        auto& n = b.node("HardSigmoid", {pre}, {"y"});
        attr(n, "alpha", 0.3f);
        attr(n, "beta", 0.4f);
    } else {
        b.node(c.act, {pre}, {"y"});
    }
    return b;
}

const std::vector<ActCase>& actCases() {
    static const std::vector<ActCase> cases = {
        {"PRelu M=8", {1, 6, 9, 11}, 8, 3, 1, "PRelu"},
        {"PRelu M=40 (two channel tiles)", {1, 8, 10, 12}, 40, 3, 1, "PRelu"},
        {"PRelu 1x1 M=16", {2, 16, 7, 9}, 16, 1, 1, "PRelu"},
        {"PRelu depthwise", {1, 16, 8, 8}, 16, 3, 16, "PRelu"},
        {"PRelu long reduction (split-K)", {1, 128, 4, 4}, 24, 3, 1, "PRelu"},
        {"PRelu after DepthToSpace CRD", {1, 8, 6, 7}, 32, 3, 1, "PRelu", 2, true},
        {"PRelu after DepthToSpace DCR", {1, 8, 6, 7}, 32, 3, 1, "PRelu", 2, false},
        {"PRelu one slope", {1, 6, 9, 11}, 8, 3, 1, "PReluScalar"},
        {"HardSwish", {1, 8, 10, 12}, 24, 3, 1, "HardSwish"},
        {"HardSigmoid", {1, 8, 10, 12}, 24, 1, 1, "HardSigmoid"},
    };
    return cases;
}

std::vector<NamedTensor> inputsFor(const ActCase& c) { return {{"x", randomTensor(c.x, seedOf(c.what), -2.0f, 2.0f)}}; }

TEST(ConvEpilogueActivation, FusesIntoTheConv) {
    for (const auto& c : actCases()) {
        SCOPED_TRACE(c.what);
        for (Precision precision : {Precision::Float32, Precision::Float16}) {
            DeviceDescription gpu = h200Description();
            for (const std::string& k : planKernels(actModel(c), {{"x", c.x}}, gpu, precision)) {
                EXPECT_EQ(k.find("binary"), std::string::npos) << k;
                EXPECT_EQ(k.find("eltwise"), std::string::npos) << k;
                EXPECT_EQ(k.find("unary"), std::string::npos) << k;
            }
        }
    }
}

TEST(ConvEpilogueActivation, EveryKernelFamilyMatchesTheCpu) {
    VKINFER_REQUIRE_GPU();
    for (const auto& c : actCases()) {
        SCOPED_TRACE(c.what);
        expectEveryConvFamilyMatchesCpu(actModel(c), inputsFor(c), c.what);
    }
}

// A PRelu whose slope is not per channel (broadcast along the width) or not constant stays a
// node of its own, and still computes the right thing.
TEST(ConvEpilogueActivation, OtherSlopesStayUnfused) {
    OnnxBuilder b;
    b.input("x", {1, 4, 6, 8}).input("s", {4, 1, 1}).output("y").output("z");
    b.initializer("w", rnd({4, 4, 3, 3}, "w")).initializer("b", rnd({4}, "b"));
    b.initializer("w2", rnd({4, 4, 3, 3}, "w2"));  // (two identical Convs would be merged into one)
    b.initializer("wide", randomTensor({8}, 3, -0.5f, 0.5f));
    attr(b.node("Conv", {"x", "w", "b"}, {"c"}), "pads", Shape{1, 1, 1, 1});
    attr(b.node("Conv", {"x", "w2", "b"}, {"d"}), "pads", Shape{1, 1, 1, 1});
    b.node("PRelu", {"c", "wide"}, {"y"});  // [8]: along W, not the channels
    b.node("PRelu", {"d", "s"}, {"z"});     // a graph input
    const std::vector<NamedTensor> in{{"x", randomTensor({1, 4, 6, 8}, 4, -2.0f, 2.0f)},
                                      {"s", randomTensor({4, 1, 1}, 5, -0.5f, 0.5f)}};
    EXPECT_EQ(planDispatches(b, in), 4);
    if (gpuAvailable()) expectGpuMatchesCpu(b, in, "PRelu slopes that do not fuse");
}

}  // namespace
}  // namespace vkinfer::testing
