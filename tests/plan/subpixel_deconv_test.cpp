// The sub-pixel plan of a transposed convolution (passes/subpixel_deconv.h) from its geometry,
// with no GPU: the Conv's window, pads and output per axis, whether a crop follows, the work
// it costs against the transposed conv's, and where the rewrite does not apply. (That the
// rewritten Conv computes the transposed conv is tests/ops/conv_transpose_test.cpp's, on the
// GPU against the CPU reference.)
#include <gtest/gtest.h>

#include "passes/subpixel_deconv.h"

namespace vkinfer::passes {
namespace {

// A ConvTranspose node of stride s, symmetric pads p and output_padding op; its kernel (the
// first argument, for the reader) comes from the weight shape planFor gives.
graph::Node deconv(int64_t /*kernel*/, int64_t s, int64_t p, int64_t op = 0, int64_t d = 1, std::vector<int64_t> strides = {}) {
    graph::Node n;
    n.name = "up";
    n.opType = "ConvTranspose";
    n.attrs["strides"] = strides.empty() ? std::vector<int64_t>{s, s} : strides;
    n.attrs["pads"] = std::vector<int64_t>{p, p, p, p};
    n.attrs["output_padding"] = std::vector<int64_t>{op, op};
    n.attrs["dilations"] = std::vector<int64_t>{d, d};
    return n;
}

std::optional<SubPixelPlan> planFor(const graph::Node& n, int64_t k, int64_t h = 10, int64_t w = 12) {
    return subPixelPlan(ops::tconvGeometry(n, {1, 8, h, w}, {8, 3, k, k}));
}

TEST(SubPixelPlan, FsrcnnNineByNineStrideTwoIsAFiveByFiveConv) {
    auto p = planFor(deconv(9, 2, 4, 1), 9);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->stride, 2);
    for (int a = 0; a < 2; ++a) {
        EXPECT_EQ(p->window[a], 5);
        EXPECT_EQ(p->lowest[a], -2);
        EXPECT_EQ(p->padBegin[a], 2);
        EXPECT_EQ(p->cropStart[a], 0);
    }
    EXPECT_EQ(p->convOut[0], 10);  // 2 * 10 = the 20 output rows
    EXPECT_EQ(p->convOut[1], 12);
    EXPECT_FALSE(p->crop);
    EXPECT_NEAR(p->workRatio, 25.0 * 4 / 81, 1e-12);
}

TEST(SubPixelPlan, RifeFourByFourStrideTwoIsAThreeByThreeConv) {
    auto p = planFor(deconv(4, 2, 1), 4);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->window[0], 3);
    EXPECT_EQ(p->padBegin[0], 1);
    EXPECT_EQ(p->padEnd[0], 1);
    EXPECT_EQ(p->convOut[0], 10);
    EXPECT_FALSE(p->crop);
    EXPECT_NEAR(p->workRatio, 2.25, 1e-12);
}

TEST(SubPixelPlan, OddOutputsAreCropped) {
    // 3x3, stride 2, pads 1, no output_padding: 2 * (10 - 1) + 3 - 2 = 19 rows, 10 per phase.
    auto p = planFor(deconv(3, 2, 1), 3);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->convOut[0], 10);
    EXPECT_TRUE(p->crop);
    // With output_padding 1 the 20 rows are exactly covered.
    auto q = planFor(deconv(3, 2, 1, 1), 3);
    ASSERT_TRUE(q);
    EXPECT_FALSE(q->crop);
    EXPECT_EQ(q->window[0], 2);
    EXPECT_EQ(q->lowest[0], 0);
}

TEST(SubPixelPlan, StrideOneIsTheFlippedKernel) {
    auto p = planFor(deconv(3, 1, 1), 3);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->window[0], 3);
    EXPECT_EQ(p->padBegin[0], 1);
    EXPECT_EQ(p->padEnd[0], 1);
    EXPECT_EQ(p->convOut[0], 10);
    EXPECT_DOUBLE_EQ(p->workRatio, 1.0);
}

TEST(SubPixelPlan, PositiveOffsetsCropTheFirstRows) {
    // Pads 3 > k - 1 with a 2x2 stride-2 kernel: every tap reads at offset +1 or +2, which a
    // Conv without negative pads computes one row of phases early: the crop skips 2 rows.
    auto p = planFor(deconv(2, 2, 3), 2);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->lowest[0], 1);
    EXPECT_EQ(p->window[0], 2);
    EXPECT_EQ(p->padBegin[0], 0);
    EXPECT_EQ(p->cropStart[0], 2);
    EXPECT_TRUE(p->crop);
    EXPECT_GE(2 * p->convOut[0], 2 + 14);  // 2 * (10 - 1) + 2 - 6 = 14 output rows after the 2 skipped
}

TEST(SubPixelPlan, DoesNotApply) {
    // Unequal strides: DepthToSpace has one blocksize.
    EXPECT_FALSE(planFor(deconv(3, 0, 1, 0, 1, {2, 3}), 3));
    // A 1x1 kernel of stride 3 scatters: 9x the work as a conv.
    EXPECT_FALSE(planFor(deconv(1, 3, 0), 1));
    // 1-D and 3-D stay on the gathering kernel.
    graph::Node oneD = deconv(3, 2, 1);
    oneD.attrs["strides"] = std::vector<int64_t>{2};
    oneD.attrs["pads"] = std::vector<int64_t>{1, 1};
    oneD.attrs["output_padding"] = std::vector<int64_t>{0};
    oneD.attrs["dilations"] = std::vector<int64_t>{1};
    EXPECT_FALSE(subPixelPlan(ops::tconvGeometry(oneD, {1, 8, 10}, {8, 3, 3})));
}

}  // namespace
}  // namespace vkinfer::passes
