// Float convolutions with 8x8 outputs per invocation (conv2d_rt.comp): the tile choice and
// weight packing as pure functions, which devices get them (GPUs; CPU devices keep
// conv2d.comp), and every tile shape with its epilogues against the CPU reference. On lavapipe
// they run because SessionOptions::kernels.convTiles = Large forces them.
#include <cstdlib>

#include "core/half.h"
#include "ops/conv_cases.h"
#include "ops/conv/register_tiled.h"
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using ops::ConvGeom;

// A stride-1 "same" convolution of k x k over an n x c x h x w input.
ConvGeom geometry(int64_t n, int64_t c, int64_t h, int64_t w, int64_t m, int64_t k, int64_t groups = 1) {
    const int64_t p = k / 2;
    return ConvGeom{n, c, h, w, m, h, w, k, k, 1, 1, 1, 1, p, p, p, p, groups};
}

TEST(RegisterTiledConvTile, FewestPaddedRowsThenSmallerTilesUntilTheGpuFills) {
    struct Expect {
        ConvGeom g;
        int64_t siblings, bm, bn;
    };
    const std::vector<Expect> table = {
        {geometry(1, 64, 540, 960, 32, 3), 1, 32, 128},    // ESPCN's body: 4050 pixel tiles
        {geometry(1, 3, 540, 960, 64, 5), 1, 64, 128},     // its stem
        {geometry(8, 64, 56, 56, 256, 1), 1, 128, 128},    // ResNet-50 batch 8: 392 tiles
        {geometry(1, 64, 56, 56, 256, 1), 1, 64, 64},      // batch 1: 50 tiles of 128x128
        {geometry(1, 64, 112, 112, 64, 3), 1, 64, 64},     // 98 tiles of 64x128
        {geometry(1, 64, 112, 112, 64, 3), 4, 64, 64},     // ... beside 3 siblings: 392 tiles, 1568 warps
        {geometry(1, 64, 112, 112, 64, 3), 8, 64, 128},    // ... beside 7: 3136 warps
        {geometry(1, 512, 7, 7, 512, 3), 1, 64, 64},       // 8 tiles whatever the shape
        {geometry(1, 64, 28, 28, 96, 3, 2), 1, 64, 64},    // 2 groups of 48 channels
        {geometry(1, 64, 540, 960, 200, 3), 1, 128, 128},  // more than 128 channels
        {geometry(1, 64, 540, 960, 12, 3), 1, 16, 128},    // ESPCN's head
        {geometry(1, 64, 14, 14, 3, 3), 1, 16, 128},       // no 16 x 64 tile: split-K instead
    };
    for (const auto& e : table) {
        auto t = ops::registerTiledConvTile(e.g, e.siblings);
        EXPECT_EQ(t.bm, e.bm) << e.g.M << " channels, " << e.g.pixels() << " pixels, " << e.siblings << " siblings";
        EXPECT_EQ(t.bn, e.bn) << e.g.M << " channels, " << e.g.pixels() << " pixels, " << e.siblings << " siblings";
    }
}

// A quad of pixels is one 16-byte word only in NCHW without a shuffle, where no quad straddles
// two images (the output) or the end of the batch (split-K's partial sums).
TEST(RegisterTiledConv, QuadStoresOnlyWhereFourPixelsAreOneWord) {
    EXPECT_TRUE(ops::vec4ConvStores(geometry(1, 8, 6, 6, 8, 3), false, 0, false));    // 36 pixels
    EXPECT_FALSE(ops::vec4ConvStores(geometry(8, 8, 7, 7, 8, 3), false, 0, false));   // 49 per image
    EXPECT_TRUE(ops::vec4ConvStores(geometry(8, 8, 7, 7, 8, 3), false, 0, true));     // 392 partial columns
    EXPECT_FALSE(ops::vec4ConvStores(geometry(1, 8, 7, 7, 8, 3), false, 0, true));    // 49
    EXPECT_FALSE(ops::vec4ConvStores(geometry(1, 8, 6, 6, 8, 3), true, 0, false));    // channels-last
    EXPECT_FALSE(ops::vec4ConvStores(geometry(1, 8, 6, 6, 8, 3), false, 2, false));   // DepthToSpace
}

TEST(RegisterTiledConv, WeightsTransposedPerGroupAndZeroPadded) {
    // 2 groups of 3 output channels over 2 input channels x 2x2 taps: K = 8, padded to 32 rows
    // per group and 8 reduction rows.
    ConvGeom g{1, 4, 5, 5, 6, 4, 4, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0, 2};
    Tensor w = iotaTensor({6, 2, 2, 2}, 1.0f);
    Tensor packed = ops::packRegisterTiledWeights(w, g, 32);
    ASSERT_EQ(packed.shape(), (Shape{2, 8, 32}));
    const float* p = packed.as<float>();
    for (int64_t grp = 0; grp < 2; ++grp)
        for (int64_t k = 0; k < 8; ++k)
            for (int64_t m = 0; m < 32; ++m) {
                float want = m < 3 ? w.as<float>()[(grp * 3 + m) * 8 + k] : 0.0f;
                EXPECT_EQ(p[(grp * 8 + k) * 32 + m], want) << "group " << grp << " k " << k << " m " << m;
            }
    // Float16 weights keep their type (the bits move, nothing is converted).
    Tensor h(DataType::Float16, {6, 2, 2, 2});
    for (int64_t i = 0; i < h.elementCount(); ++i) h.as<uint16_t>()[i] = floatToHalf(static_cast<float>(i));
    Tensor hp = ops::packRegisterTiledWeights(h, g, 32);
    EXPECT_EQ(hp.dtype(), DataType::Float16);
    EXPECT_EQ(halfToFloat(hp.as<uint16_t>()[(1 * 8 + 5) * 32 + 2]), static_cast<float>((3 + 2) * 8 + 5));
}

TEST(RegisterTiledConv, ReductionTableRowsPastKFallOutsideTheImage) {
    ConvGeom g = geometry(1, 3, 10, 10, 32, 3);  // K = 27
    Tensor t = ops::reductionTable(g, 32);
    ASSERT_EQ(t.shape(), (Shape{32, 4}));
    const int32_t* e = t.as<int32_t>();
    EXPECT_EQ(e[26 * 4 + 0], 2 * 100 + 2 * 10 + 2);  // the last real row: ci 2, ky 2, kx 2
    for (int64_t k = 27; k < 32; ++k) {
        EXPECT_GE(e[k * 4 + 1], 1 << 29) << k;
        EXPECT_GE(e[k * 4 + 2], 1 << 29) << k;
    }
    EXPECT_EQ(ops::reductionTable(g).shape(), (Shape{27, 4}));
}

// GPUs get the register-tiled kernels for float32 (and for float16 convolutions that the
// tensor cores do not take); CPU devices, depthwise convolutions, reductions shorter than 32,
// maps of fewer than 32 pixels and convolutions whose weights are a graph input (not packable
// at plan time) keep the others.
TEST(RegisterTiledConvSelection, ByDeviceDescriptionAndShape) {
    // (The direct kernel off: it would take the wide float32 maps here, on the CPU too,
    // register_direct_conv_test.cpp.)
    DeviceDescription gpu;
    gpu.kernels.convTiles = ConvTiles::Large;
    gpu.kernels.smallGridConv = SmallGridConv::Off;
    gpu.kernels.directConv = DirectConv::Off;
    DeviceDescription h200 = h200Description();
    h200.kernels.directConv = DirectConv::Off;
    DeviceDescription cpu;
    cpu.kernels.directConv = DirectConv::Off;
    // 288x288: 648 tiles of 64x128, 2592 warps, enough that nothing splits its reduction.
    ConvCase big{"big", {1, 64, 288, 288}, 64, 3};
    std::vector<NamedTensor> inBig{{"x", Tensor(DataType::Float32, big.x)}};
    OnnxBuilder b = convModel(big);
    EXPECT_EQ(convKernels(b, inBig, gpu, Precision::Float32), std::vector<std::string>{"conv2d_rt64x128_f32"});
    EXPECT_EQ(convKernels(b, inBig, cpu, Precision::Float32), std::vector<std::string>{"conv2d_t64x64_f32"});
    EXPECT_EQ(convKernels(b, inBig, gpu, Precision::Float16), std::vector<std::string>{"conv2d_rt64x128_f16"});
    // The H200 in float16: tensor cores where they fit (here the direct kernel), these where
    // they do not.
    EXPECT_EQ(convKernels(b, inBig, h200Description(), Precision::Float16),
              std::vector<std::string>{"conv2d_cmd64x64_nv"});
    EXPECT_EQ(convKernels(b, inBig, h200, Precision::Float32),
              std::vector<std::string>{"conv2d_rt64x128_f32"});
    // 144x144: 324 tiles of 64x64, 648 warps: the reduction is split to fill the GPU.
    ConvCase smaller{"smaller", {1, 64, 144, 144}, 64, 3};
    std::vector<NamedTensor> in{{"x", Tensor(DataType::Float32, smaller.x)}};
    EXPECT_EQ(convKernels(convModel(smaller), in, gpu, Precision::Float32),
              (std::vector<std::string>{"conv2d_rt64x64_splitk_f32", "conv_splitk_reduce_f32"}));

    ConvCase wide{"wide", {1, 32, 256, 256}, 128, 1, 1, 1, 0, true, true, false};
    auto wideModel = convModel(wide);
    auto wideIn = inputsOf(wide, wideModel);
    EXPECT_EQ(convKernels(wideModel, wideIn, gpu, Precision::Float32),
              std::vector<std::string>{"conv2d_rt128x128_res_f32"});

    ConvCase narrow{"narrow", {1, 8, 540, 960}, 12, 3};  // ESPCN's head: 4050 tiles of one warp
    std::vector<NamedTensor> inNarrow{{"x", Tensor(DataType::Float32, narrow.x)}};
    EXPECT_EQ(convKernels(convModel(narrow), inNarrow, gpu, Precision::Float32),
              std::vector<std::string>{"conv2d_rt16x128_f32"});
    // A reduction shorter than 32 (a 3-channel stem), and a squeeze-excitation's 1x1 conv over
    // a pooled map (one pixel).
    ConvCase stem{"stem", {1, 3, 144, 144}, 32, 3};
    std::vector<NamedTensor> in3{{"x", Tensor(DataType::Float32, stem.x)}};
    EXPECT_EQ(convKernels(convModel(stem), in3, gpu, Precision::Float32),
              std::vector<std::string>{"conv2d_t64x64_f32"});
    ConvCase pooled{"pooled", {1, 24, 1, 1}, 96, 1, 1, 1, 0};
    std::vector<NamedTensor> inPooled{{"x", Tensor(DataType::Float32, pooled.x)}};
    EXPECT_EQ(convKernels(convModel(pooled), inPooled, gpu, Precision::Float32),
              std::vector<std::string>{"conv2d_t64x64_f32"});
    ConvCase dw{"dw", {1, 64, 144, 144}, 64, 3, 1, 64};
    EXPECT_EQ(convKernels(convModel(dw), in, gpu, Precision::Float32), std::vector<std::string>{"conv2d_depthwise_x4_f32"});

    ConvCase deep{"deep", {1, 512, 7, 7}, 512, 3};
    std::vector<NamedTensor> inDeep{{"x", Tensor(DataType::Float32, deep.x)}};
    EXPECT_EQ(convKernels(convModel(deep), inDeep, gpu, Precision::Float32),
              (std::vector<std::string>{"conv2d_rt64x64_splitk_f32", "conv_splitk_reduce_f32"}));

    OnnxBuilder dynamic;
    dynamic.input("x", {1, 32, 64, 64}).input("w", {64, 32, 3, 3}).output("y");
    attr(dynamic.node("Conv", {"x", "w"}, {"y"}, "conv"), "pads", std::vector<int64_t>{1, 1, 1, 1});
    auto dynamicKernels =
        planKernels(dynamic, {{"x", {1, 32, 64, 64}}, {"w", {64, 32, 3, 3}}}, gpu, Precision::Float32);
    ASSERT_FALSE(dynamicKernels.empty());
    EXPECT_EQ(dynamicKernels[0].rfind("conv2d_t64x64", 0), 0u) << dynamicKernels[0];
}

// Each tile shape, residual and activation epilogues, split-K, strides, groups, batches,
// reductions that are not a multiple of the 8-row slice, and maps that do not fill a tile.
// Sessions on a GPU give convolutions of at most 16M multiply-adds over fewer than 64 tiles
// of 64x64 to conv2d_small (conv/small_grid.h), so that every case here is larger than that.
const std::vector<std::pair<ConvCase, std::string>>& cases() {
    static const std::vector<std::pair<ConvCase, std::string>> all = {
        {{"128x128 tile, 1x1, residual and relu", {1, 32, 128, 130}, 130, 1, 1, 1, 0, true, true, true},
         "conv2d_rt128x128_res"},
        // (Tiles of 128 pixels need maps of 512 (64 rows) and 1024 (32 rows) tiles to fill
        // the 2048 warps of the rule.)
        {{"64x128 tile, 3x3 over 4 channels (K = 36, not a multiple of 8)", {1, 4, 256, 256}, 40, 3},
         "conv2d_rt64x128"},
        {{"32x128 tile, 5x5, no bias", {1, 4, 363, 363}, 20, 5, 1, 1, -1, false}, "conv2d_rt32x128"},
        {{"64x64 tile, 3x3 stride 2, batch 2", {2, 12, 129, 127}, 50, 3, 2}, "conv2d_rt64x64"},
        {{"32x64 tile, 17 channels, relu", {1, 8, 67, 61}, 17, 3, 1, 1, -1, true, false, true}, "conv2d_rt32x64"},
        {{"2 groups of 40 channels, 3x3", {1, 24, 64, 64}, 80, 3, 1, 2}, "conv2d_rt64x64"},
        {{"split-K: 3x3 over 256 channels at 12x12", {1, 256, 12, 12}, 72, 3}, "conv2d_rt64x64_splitk"},
        {{"split-K with residual at 13x13", {1, 256, 13, 13}, 48, 3, 1, 1, -1, true, true, false},
         "conv2d_rt64x64_splitk"},
        {{"batch 3, a partial last tile, 1x1", {3, 40, 100, 110}, 24, 1, 1, 1, 0}, "conv2d_rt32x64"},
        {{"16x128 tile, 12 channels (an upscaler's head)", {1, 8, 72, 60}, 12, 3}, "conv2d_rt16x128"},
        {{"16x128 tile, 3 channels, split-K", {1, 256, 50, 50}, 3, 3}, "conv2d_rt16x128_splitk"},
        // Quad stores (ops::vec4ConvStores): tiles straddling two images of 36x36, split-K
        // partials of 7x7 maps (49 pixels: quads only in the [split, M, N * 49] partial sums),
        // and a split-K reduce of quads with a residual.
        {{"quad stores, batch 2, 1x1 with residual and relu", {2, 96, 36, 36}, 72, 1, 1, 1, 0, true, true, true},
         "conv2d_rt64x64_res"},
        {{"quad split-K reduce with residual at 24x24", {1, 128, 24, 24}, 40, 3, 1, 1, -1, true, true, false},
         "conv2d_rt64x64_splitk"},
        {{"quad split-K partials at 7x7, batch 4, relu", {4, 256, 7, 7}, 40, 3, 1, 1, -1, true, false, true},
         "conv2d_rt64x64_splitk"},
    };
    return all;
}

class RegisterTiledConvRuns : public ::testing::TestWithParam<ConvRun> {};

TEST_P(RegisterTiledConvRuns, MatchCpuReference) {
    const auto& [c, kernel] = cases()[GetParam().index];
    const Precision precision = GetParam().precision;
    OnnxBuilder b = convModel(c);
    auto inputs = inputsOf(c, b);
    DeviceDescription gpu;
    gpu.kernels.convTiles = ConvTiles::Large;
    gpu.kernels.smallGridConv = SmallGridConv::Off;
    gpu.kernels.directConv = DirectConv::Off;
    auto kernels = convKernels(b, inputs, gpu, precision);
    ASSERT_FALSE(kernels.empty());
    EXPECT_EQ(kernels[0], kernel + (precision == Precision::Float16 ? "_f16" : "_f32")) << c.what;
    VKINFER_REQUIRE_GPU();
    expectGpuKernelsMatchCpu(b, inputs, c.what, precision, false, DirectConv::Off);
}

INSTANTIATE_TEST_SUITE_P(Conv, RegisterTiledConvRuns, ::testing::ValuesIn(inBothPrecisions(cases().size())),
                         convRunName);

// A register-tiled conv whose groups have 4 output channels each (too few for the tensor
// cores' fragments) writing channels-last for the emulated tensor-core conv after it.
TEST(RegisterTiledConv, WritesChannelsLastForATensorCoreConsumer) {
    OnnxBuilder b;
    b.input("x", {1, 16, 20, 24}).output("y");
    b.initializer("w1", rnd({8, 8, 3, 3}, "nhwc w1")).initializer("b1", rnd({8}, "nhwc b1"));
    b.initializer("w2", rnd({40, 8, 3, 3}, "nhwc w2")).initializer("b2", rnd({40}, "nhwc b2"));
    auto& grouped = b.node("Conv", {"x", "w1", "b1"}, {"a"}, "grouped");
    attr(grouped, "pads", std::vector<int64_t>{1, 1, 1, 1});
    attr(grouped, "group", int64_t{2});
    b.node("Relu", {"a"}, {"r"});
    attr(b.node("Conv", {"r", "w2", "b2"}, {"y"}, "body"), "pads", std::vector<int64_t>{1, 1, 1, 1});
    DeviceDescription d;
    d.kernels.emulateCooperativeMatrix = true;
    d.kernels.convTiles = ConvTiles::Large;
    d.kernels.smallGridConv = SmallGridConv::Off;
    auto kernels = convKernels(b, {{"x", Tensor(DataType::Float32, {1, 16, 20, 24})}}, d);
    ASSERT_GE(kernels.size(), 2u);
    EXPECT_EQ(kernels[0], "conv2d_rt16x128_f16");
    EXPECT_TRUE(hasChannelsLastTensorCoreConv(kernels))
        << "the tensor-core conv reads the grouped conv's output channels-last";
    VKINFER_REQUIRE_GPU();
    expectGpuKernelsMatchCpu(b, {{"x", rnd({1, 16, 20, 24}, "nhwc x")}}, "register-tiled conv, channels-last output",
                             Precision::Float16, true);
}

// VKINFER_CONV_TILES overrides ConvTiles::Auto; a value it does not know is an error that
// names it, not a silent default.
TEST(RegisterTiledConv, EnvironmentVariableIsCheckedAndNamed) {
    VKINFER_REQUIRE_GPU();
    ConvCase c{"env", {1, 8, 6, 6}, 24, 3};
    auto model = convModel(c).build();
    ASSERT_TRUE(model.ok()) << model.status().toString();
    ::setenv("VKINFER_CONV_TILES", "huge", 1);
    auto bad = Session::create(gpuContext(), *model, SessionOptions{});
    ::unsetenv("VKINFER_CONV_TILES");
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.status().toString().find("VKINFER_CONV_TILES"), std::string::npos) << bad.status().toString();
    ::setenv("VKINFER_CONV_TILES", "large", 1);
    auto good = Session::create(gpuContext(), *model, SessionOptions{});
    ::unsetenv("VKINFER_CONV_TILES");
    EXPECT_TRUE(good.ok()) << good.status().toString();
}

}  // namespace
}  // namespace vkinfer::testing
