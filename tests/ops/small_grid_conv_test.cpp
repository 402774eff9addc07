// Convolutions too small to fill a GPU with output tiles (conv2d_small.comp): the workgroup
// shape and the selection as pure functions of the geometry and the described device, and
// the kernel against the CPU reference in float32 and float16. On lavapipe it runs because
// SessionOptions::kernels.convTiles = Large forces the GPU kernels.

#include "ops/conv_cases.h"
#include "ops/conv/small_grid.h"
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using ops::ConvGeom;

// A k x k convolution of an n x c x h x w input, "same" padding at stride 1.
ConvGeom geometry(int64_t n, int64_t c, int64_t h, int64_t w, int64_t m, int64_t k) {
    const int64_t p = k / 2;
    return ConvGeom{n, c, h, w, m, h, w, k, k, 1, 1, 1, 1, p, p, p, p, 1};
}

TEST(SmallConvShape, PixelsUpTo32ThenFewerWhileTheReductionShareIsLong) {
    struct Expect {
        ConvGeom g;
        int64_t pixels;
    };
    const std::vector<Expect> table = {
        {geometry(1, 144, 1, 1, 6, 1), 1},     // squeeze-excitation over a pooled map
        {geometry(1, 6, 1, 1, 144, 1), 1},     // and its expansion (K = 6)
        {geometry(2, 64, 1, 1, 16, 1), 2},     // batch 2: two pixels
        {geometry(1, 116, 14, 14, 116, 1), 32},  // ShuffleNet stage 3: K = 116 -> 15 per slice
        {geometry(1, 232, 7, 7, 232, 1), 32},  // stage 4: 29 per slice
        {geometry(1, 64, 7, 7, 64, 3), 8},     // K = 576: 72 per slice at 32 pixels, 36 at 16, 18 at 8
        {geometry(1, 512, 7, 7, 64, 3), 1},    // K = 4608: 36 per slice at 2 pixels, 18 at 1
    };
    for (const auto& e : table) {
        const auto s = ops::smallConvShape(e.g);
        EXPECT_EQ(s.pixels, e.pixels) << "K " << e.g.K() << ", " << e.g.pixels() << " pixels";
        EXPECT_EQ(s.pixels * s.slices, 256) << "K " << e.g.K() << ", " << e.g.pixels() << " pixels";
    }
}

TEST(SmallConvShape, OutputTilesCountGroupsChannelsAndPixels) {
    EXPECT_EQ(ops::outputTiles64(geometry(1, 116, 14, 14, 116, 1)), 2 * 4);
    EXPECT_EQ(ops::outputTiles64(geometry(1, 64, 56, 56, 256, 1)), 4 * 49);
    ConvGeom grouped = geometry(1, 64, 8, 8, 192, 3);
    grouped.groups = 2;  // 96 channels per group: 2 row tiles each
    EXPECT_EQ(ops::outputTiles64(grouped), 2 * 2 * 1);
}

// A GPU without tensor cores, as a session on lavapipe with ConvTiles::Large describes it.
DeviceDescription gpuWithoutTensorCores() {
    DeviceDescription d;
    d.kernels.convTiles = ConvTiles::Large;
    return d;
}

// GPUs (KernelPolicy::smallGridConv) take conv2d_small for layers with few output tiles
// and few multiply-adds; where the tensor cores take a layer (the H200 in float16), only for
// maps narrower than a fragment. Large layers, depthwise ones and CPU devices keep their
// kernels.
TEST(SmallConvSelection, ByDeviceDescriptionAndShape) {
    const DeviceDescription h200 = h200Description();
    DeviceDescription cpu;
    ConvCase shuffle{"shuffle", {1, 116, 14, 14}, 116, 1, 1, 1, 0, true, false, true};
    std::vector<NamedTensor> in{{"x", Tensor(DataType::Float32, shuffle.x)}};
    OnnxBuilder b = convModel(shuffle);
    EXPECT_EQ(convKernels(b, in, h200, Precision::Float32), std::vector<std::string>{"conv2d_small_f32"});
    EXPECT_EQ(convKernels(b, in, gpuWithoutTensorCores(), Precision::Float16),
              std::vector<std::string>{"conv2d_small_f16"});
    EXPECT_EQ(convKernels(b, in, h200, Precision::Float16), std::vector<std::string>{"conv2d_cm64_pw_nv"});
    EXPECT_EQ(convKernels(b, in, cpu, Precision::Float32), std::vector<std::string>{"conv2d_t64x64_f32"});

    ConvCase se{"se", {1, 96, 1, 1}, 24, 1, 1, 1, 0};
    std::vector<NamedTensor> inSe{{"x", Tensor(DataType::Float32, se.x)}};
    EXPECT_EQ(convKernels(convModel(se), inSe, h200, Precision::Float16), std::vector<std::string>{"conv2d_small_f16"});
    // A fragment's width of pixels: narrow layers (at most 64 channels) still take conv2d_small,
    // wider ones the tensor cores.
    ConvCase batch16{"se batch 16", {16, 96, 1, 1}, 24, 1, 1, 1, 0};
    std::vector<NamedTensor> in16{{"x", Tensor(DataType::Float32, batch16.x)}};
    EXPECT_EQ(convKernels(convModel(batch16), in16, h200, Precision::Float16),
              std::vector<std::string>{"conv2d_small_f16"});
    ConvCase wide16{"wide batch 16", {16, 96, 1, 1}, 96, 1, 1, 1, 0};
    EXPECT_EQ(convKernels(convModel(wide16), in16, h200, Precision::Float16).at(0).rfind("conv2d_cm", 0), 0u);
    EXPECT_EQ(convKernels(convModel(batch16), in16, h200, Precision::Float32),
              std::vector<std::string>{"conv2d_small_f32"});

    // 8 tiles, but 115 M multiply-adds: the tiled kernel's reuse wins (split-K fills the GPU).
    ConvCase deep{"deep", {1, 512, 7, 7}, 512, 3};
    std::vector<NamedTensor> inDeep{{"x", Tensor(DataType::Float32, deep.x)}};
    EXPECT_EQ(convKernels(convModel(deep), inDeep, h200, Precision::Float32),
              (std::vector<std::string>{"conv2d_rt64x64_splitk_f32", "conv_splitk_reduce_f32"}));
    // Enough tiles for the GPU.
    ConvCase big{"big", {1, 64, 144, 144}, 64, 3};
    std::vector<NamedTensor> inBig{{"x", Tensor(DataType::Float32, big.x)}};
    auto bigKernels = convKernels(convModel(big), inBig, h200, Precision::Float16);
    ASSERT_EQ(bigKernels.size(), 1u);
    EXPECT_EQ(bigKernels[0].rfind("conv2d_cm", 0), 0u) << "tensor cores: " << bigKernels[0];
    // Depthwise keeps conv2d_depthwise.
    ConvCase dw{"dw", {1, 116, 14, 14}, 116, 3, 1, 116};
    EXPECT_EQ(convKernels(convModel(dw), in, h200, Precision::Float32), std::vector<std::string>{"conv2d_depthwise_x4_f32"});
}

// Pointwise and spatial kernels, strides, padding, groups, batches, partial pixel and channel
// blocks, fused residual and relu, pooled 1x1 maps, and long reductions (fewer pixels per
// workgroup).
const std::vector<ConvCase>& cases() {
    static const std::vector<ConvCase> all = {
        {"1x1 over 116 channels at 14x14, relu (ShuffleNet)", {1, 116, 14, 14}, 116, 1, 1, 1, 0, true, false, true},
        {"1x1 at 7x7 with residual and relu", {1, 40, 7, 7}, 48, 1, 1, 1, 0, true, true, true},
        {"squeeze over a pooled map", {1, 96, 1, 1}, 24, 1, 1, 1, 0},
        {"excitation: 6 channels to 30 (a partial block), no bias", {1, 6, 1, 1}, 30, 1, 1, 1, 0, false},
        {"3x3 stride 2, 2 groups of 40 channels", {1, 80, 9, 11}, 64, 3, 2, 2},
        {"5x5 over 3 channels, batch 3", {3, 3, 5, 6}, 10, 5},
        {"3x3 over 128 channels at 5x5 (K = 1152: 4 pixels per workgroup)", {1, 128, 5, 5}, 36, 3},
        {"1x1 stride 2 without padding", {2, 24, 9, 9}, 20, 1, 2, 1, 0},
    };
    return all;
}

class SmallConvRuns : public ::testing::TestWithParam<ConvRun> {};

TEST_P(SmallConvRuns, MatchCpuReference) {
    const ConvCase& c = cases()[GetParam().index];
    const Precision precision = GetParam().precision;
    OnnxBuilder b = convModel(c);
    auto inputs = inputsOf(c, b);
    auto kernels = convKernels(b, inputs, gpuWithoutTensorCores(), precision);
    ASSERT_FALSE(kernels.empty());
    EXPECT_EQ(kernels[0], std::string(c.residual ? "conv2d_small_res" : "conv2d_small") +
                              (precision == Precision::Float16 ? "_f16" : "_f32"))
        << c.what;
    VKINFER_REQUIRE_GPU();
    expectGpuKernelsMatchCpu(b, inputs, c.what, precision);
}

INSTANTIATE_TEST_SUITE_P(Conv, SmallConvRuns, ::testing::ValuesIn(inBothPrecisions(cases().size())), convRunName);

// conv2d_small writing channels-last for a tensor-core conv large enough for tiles (3x3 over
// 256 channels: 19 M multiply-adds), its cooperative-matrix operations emulated.
TEST(SmallConv, WritesChannelsLastForATensorCoreConsumer) {
    OnnxBuilder b;
    b.input("x", {1, 16, 8, 8}).output("y");
    b.initializer("w1", rnd({256, 16, 1, 1}, "small nhwc w1")).initializer("b1", rnd({256}, "small nhwc b1"));
    b.initializer("w2", rnd({128, 256, 3, 3}, "small nhwc w2")).initializer("b2", rnd({128}, "small nhwc b2"));
    b.node("Conv", {"x", "w1", "b1"}, {"a"}, "expand");
    b.node("Relu", {"a"}, {"r"});
    attr(b.node("Conv", {"r", "w2", "b2"}, {"y"}, "body"), "pads", std::vector<int64_t>{1, 1, 1, 1});
    DeviceDescription d;
    d.kernels.emulateCooperativeMatrix = true;
    d.kernels.convTiles = ConvTiles::Large;
    auto kernels = convKernels(b, {{"x", Tensor(DataType::Float32, {1, 16, 8, 8})}}, d);
    ASSERT_GE(kernels.size(), 2u);
    EXPECT_EQ(kernels[0], "conv2d_small_f16");
    EXPECT_TRUE(hasChannelsLastTensorCoreConv(kernels)) << "the tensor-core conv reads conv2d_small's output channels-last";
    VKINFER_REQUIRE_GPU();
    expectGpuKernelsMatchCpu(b, {{"x", rnd({1, 16, 8, 8}, "small nhwc x")}}, "conv2d_small, channels-last output",
                             Precision::Float16, true);
}

}  // namespace
}  // namespace vkinfer::testing
