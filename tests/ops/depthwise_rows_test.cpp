// Depthwise convolutions large enough to fill a GPU with a quarter of the invocations run four
// neighbouring outputs of a row per invocation (conv2d_depthwise.comp's X4, ops::
// depthwiseRowsOfFour): each input row's window is loaded once for the four. Against the CPU
// reference in float32 and float16: 3x3, 5x5 and 7x7 taps, rows not a multiple of four, a
// residual, a per-channel PRelu, the channels-last store of ConvNeXt's block, and what keeps one
// output per invocation (strides along x, small layers).
#include "ops/conv_cases.h"

namespace vkinfer::testing {
namespace {

std::string depthwiseKernel(const ConvCase& c, Precision precision) {
    for (const auto& k : planKernels(convModel(c), {{"x", c.x}}, h200Description(), precision))
        if (k.rfind("conv2d_depthwise", 0) == 0) return k;
    return "";
}

TEST(DepthwiseRows, FourOutputsPerInvocationWhereTheRowAllows) {
    struct Case {
        ConvCase conv;
        bool rows;
    };
    std::vector<Case> cases = {
        {{"7x7, ConvNeXt's first stage in small", {1, 32, 64, 64}, 32, 7, 1, 32}, true},
        {{"3x3, 66 wide (a partial last four)", {1, 48, 50, 66}, 48, 3, 1, 48}, true},
        {{"5x5 with a residual", {2, 16, 64, 66}, 16, 5, 1, 16, -1, true, true}, true},
        {{"7x7 stored channels-last", {1, 32, 64, 64}, 32, 7, 1, 32}, true},
        {{"stride 2 keeps one output per invocation", {1, 32, 128, 128}, 32, 3, 2, 32}, false},
        {{"a small layer keeps one output per invocation", {1, 32, 16, 16}, 32, 7, 1, 32}, false},
    };
    cases[3].conv.toChannelsLast = true;
    for (const auto& c : cases) {
        SCOPED_TRACE(c.conv.what);
        for (Precision precision : {Precision::Float32, Precision::Float16}) {
            const std::string kernel = depthwiseKernel(c.conv, precision);
            ASSERT_FALSE(kernel.empty());
            EXPECT_EQ(kernel.find("_x4") != std::string::npos, c.rows) << kernel;
        }
        if (!gpuAvailable()) continue;
        const OnnxBuilder b = convModel(c.conv);
        const auto in = inputsOf(c.conv, b);
        expectGpuMatchesCpu(b, in, c.conv.what);
        expectGpuMatchesCpu(b, in, c.conv.what + " fp16", coopmatTolerance(), Precision::Float16);
    }
}

// A PRelu per channel after a 7x7 depthwise conv of four-wide rows: the slopes after the biases.
TEST(DepthwiseRows, PReluSlopesPerChannel) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b(14);
    b.input("x", {1, 32, 64, 70}).output("y");
    b.initializer("w", rnd({32, 1, 7, 7}, "dw w")).initializer("b", rnd({32}, "dw b"));
    b.initializer("slope", randomTensor({32, 1, 1}, 9, -0.5f, 1.5f));
    auto& conv = b.node("Conv", {"x", "w", "b"}, {"c"});
    attr(conv, "pads", Shape{3, 3, 3, 3});
    attr(conv, "group", int64_t{32});
    b.node("PRelu", {"c", "slope"}, {"y"});
    const std::vector<NamedTensor> in{{"x", rnd({1, 32, 64, 70}, "dw x")}};
    expectGpuMatchesCpu(b, in, "7x7 depthwise + PRelu");
    expectGpuMatchesCpu(b, in, "7x7 depthwise + PRelu fp16", coopmatTolerance(), Precision::Float16);
}

}  // namespace
}  // namespace vkinfer::testing
