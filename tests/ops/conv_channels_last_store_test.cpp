// A Transpose(0, 2, 3, 1) after a Conv (ConvNeXt's depthwise conv and Swin's patch embedding,
// each before a LayerNorm over the channels) is the conv's channels-last store
// (passes::foldTransposesIntoConvOutput): the plan holds the conv's kernels and nothing else,
// and every kernel family (portable, conv2d_small, the GPU tiles, the direct kernels,
// depthwise, split-K's reduce, the tensor cores emulated) stores NHWC right, in float32 and
// float16, against the CPU reference of the unfused graph.
#include "ops/conv_cases.h"

namespace vkinfer::testing {
namespace {

const std::vector<ConvCase>& storeCases() {
    static const std::vector<ConvCase> cases = [] {
        std::vector<ConvCase> c = {
            {"depthwise 7x7 (ConvNeXt)", {1, 32, 9, 11}, 32, 7, 1, 32},
            {"patch embedding 4x4 stride 4 (Swin)", {1, 3, 16, 20}, 24, 4, 4, 1, 0},
            {"3x3 then Relu", {2, 8, 10, 12}, 40, 3, 1, 1, -1, true, false, true},
            {"1x1", {1, 16, 7, 9}, 16, 1},
            {"long reduction (split-K)", {1, 128, 4, 4}, 24, 3},
        };
        for (auto& k : c) k.toChannelsLast = true;
        return c;
    }();
    return cases;
}

ConvCase withoutTranspose(ConvCase c) {
    c.toChannelsLast = false;
    return c;
}

TEST(ConvChannelsLastStore, TheTransposeLeavesThePlan) {
    for (const ConvCase& c : storeCases()) {
        SCOPED_TRACE(c.what);
        const InputShapes shapes{{"x", c.x}};
        for (Precision precision : {Precision::Float32, Precision::Float16})
            for (const DeviceDescription& dev : {h200Description(), withDirect(h200Description(), DirectConv::Off)}) {
                const auto folded = planKernels(convModel(c), shapes, dev, precision);
                const auto bare = planKernels(convModel(withoutTranspose(c)), shapes, dev, precision);
                ASSERT_FALSE(bare.empty());
                EXPECT_EQ(folded.size(), bare.size());
                for (const auto& k : folded) EXPECT_EQ(k.find("copy"), std::string::npos) << k;
            }
    }
}

TEST(ConvChannelsLastStore, EveryKernelFamilyMatchesTheCpu) {
    VKINFER_REQUIRE_GPU();
    for (const ConvCase& c : storeCases()) {
        SCOPED_TRACE(c.what);
        const OnnxBuilder b = convModel(c);
        expectEveryConvFamilyMatchesCpu(b, inputsOf(c, b), c.what);
    }
}

// What keeps its Transpose: another permutation, a conv output something else also reads, a
// fused residual (read in the conv's own layout); each still right.
TEST(ConvChannelsLastStore, OtherTransposesStay) {
    VKINFER_REQUIRE_GPU();
    {
        SCOPED_TRACE("perm 0, 3, 1, 2");
        OnnxBuilder b;
        b.input("x", {1, 4, 6, 8}).output("y");
        b.initializer("w", rnd({8, 4, 3, 3}, "w"));
        attr(b.node("Conv", {"x", "w"}, {"c"}), "pads", Shape{1, 1, 1, 1});
        attr(b.node("Transpose", {"c"}, {"y"}), "perm", std::vector<int64_t>{0, 3, 1, 2});
        const std::vector<NamedTensor> in{{"x", rnd({1, 4, 6, 8}, "x")}};
        EXPECT_EQ(planDispatches(b, in), 2);
        expectGpuMatchesCpu(b, in, "perm 0, 3, 1, 2");
    }
    {
        SCOPED_TRACE("two readers");
        OnnxBuilder b;
        b.input("x", {1, 4, 6, 8}).output("y").output("z");
        b.initializer("w", rnd({8, 4, 3, 3}, "w"));
        attr(b.node("Conv", {"x", "w"}, {"c"}), "pads", Shape{1, 1, 1, 1});
        attr(b.node("Transpose", {"c"}, {"y"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
        b.node("Relu", {"c"}, {"z"});
        const std::vector<NamedTensor> in{{"x", rnd({1, 4, 6, 8}, "x")}};
        EXPECT_EQ(planDispatches(b, in), 3);
        expectGpuMatchesCpu(b, in, "two readers");
    }
    {
        ConvCase c{"residual", {1, 8, 6, 8}, 8, 3, 1, 1, -1, true, true};
        c.toChannelsLast = true;
        SCOPED_TRACE(c.what);
        const OnnxBuilder b = convModel(c);
        const auto in = inputsOf(c, b);
        EXPECT_EQ(planDispatches(b, in), 2);
        expectGpuMatchesCpu(b, in, c.what);
    }
}

}  // namespace
}  // namespace vkinfer::testing
