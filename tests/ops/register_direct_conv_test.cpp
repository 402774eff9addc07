// The float32 direct convolution on FMA units (conv2d_rtd.comp, ops/conv/register_direct.h):
// tile choice, weight packing and selection as pure functions of device descriptions, and
// the kernel against the CPU reference. On lavapipe it runs because KernelPolicy::convTiles =
// Large makes the session a GPU's and DirectConv::Always lifts the grid rule.
#include "ops/conv_cases.h"
#include "ops/conv/register_direct.h"
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using ops::ConvGeom;

ConvGeom geom(int64_t n, int64_t c, int64_t h, int64_t w, int64_t m, int64_t kh, int64_t kw, int64_t stride = 1) {
    const int64_t oh = (h + 2 * (kh / 2) - kh) / stride + 1, ow = (w + 2 * (kw / 2) - kw) / stride + 1;
    return ConvGeom{n, c, h, w, m, oh, ow, kh, kw, stride, stride, 1, 1, kh / 2, kw / 2, kh / 2, kw / 2, 1};
}

constexpr uint32_t kH200Shared = 48 * 1024;

TEST(RegisterDirectConvTile, ChannelsByOutputCountAndSharedMemory) {
    // ESPCN at 960x540: body 64 -> 32, head 32 -> 12, stem 3 -> 64 5x5.
    auto body = ops::registerDirectConvTile(geom(1, 64, 540, 960, 32, 3, 3), kH200Shared);
    ASSERT_TRUE(body);
    EXPECT_EQ(body->bm, 32);
    EXPECT_EQ(body->chunks, 16);
    EXPECT_EQ(body->warps(), 4);
    // Halo: 4 channels x 10 rows x 36 floats (34 rounded up to 9 vec4, odd); weights 4 x 9 x 32.
    EXPECT_EQ(body->sharedBytes, (4 * 10 * 36 + 4 * 9 * 32) * 4);
    auto head = ops::registerDirectConvTile(geom(1, 32, 540, 960, 12, 3, 3), kH200Shared);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->bm, 16);
    EXPECT_EQ(head->warps(), 2);
    auto stem = ops::registerDirectConvTile(geom(1, 3, 540, 960, 64, 5, 5), kH200Shared);
    ASSERT_TRUE(stem);
    EXPECT_EQ(stem->bm, 64);
    EXPECT_EQ(stem->chunks, 1);
    // 36 floats of halo row for 32 + 4 pixels: 9 vec4, already odd.
    EXPECT_EQ(stem->sharedBytes, (4 * 12 * 36 + 4 * 25 * 64) * 4);
    EXPECT_FALSE(ops::registerDirectConvTile(geom(1, 3, 540, 960, 64, 5, 5), 16 * 1024)) << "16 KiB";

    EXPECT_FALSE(ops::registerDirectConvTile(geom(1, 64, 56, 56, 64, 3, 3, 2), kH200Shared)) << "stride 2";
    EXPECT_FALSE(ops::registerDirectConvTile(geom(1, 64, 56, 56, 64, 7, 7), kH200Shared)) << "7 wide";
    EXPECT_FALSE(ops::registerDirectConvTile(geom(1, 64, 56, 56, 64, 1, 1), kH200Shared)) << "1 wide";
    EXPECT_TRUE(ops::registerDirectConvTile(geom(1, 64, 56, 56, 64, 1, 3), kH200Shared)) << "1x3";
    auto grouped = geom(1, 64, 56, 56, 64, 3, 3);
    grouped.groups = 2;
    EXPECT_FALSE(ops::registerDirectConvTile(grouped, kH200Shared));
    auto dilated = geom(1, 64, 56, 56, 64, 3, 3);
    dilated.DH = 2;
    EXPECT_FALSE(ops::registerDirectConvTile(dilated, kH200Shared));
}

TEST(RegisterDirectConvTile, WeightsPackedPerMTileChunkChannelTapAndRow) {
    // 70 output channels (two tiles of 64), 6 input channels (two chunks of 4), 3x5 window.
    const ConvGeom g = geom(1, 6, 8, 40, 70, 3, 5);
    const auto t = *ops::registerDirectConvTile(g, kH200Shared);
    ASSERT_EQ(t.bm, 64);
    ASSERT_EQ(t.chunks, 2);
    Tensor w = iotaTensor({70, 6, 3, 5}, 1.0f);
    Tensor p = ops::packRegisterDirectWeights(w, g, t);
    ASSERT_EQ(p.shape(), (Shape{2, 2, 4, 3, 5, 64}));
    auto at = [&](int64_t mt, int64_t q, int64_t c, int64_t ky, int64_t kx, int64_t r) {
        return p.as<float>()[((((mt * 2 + q) * 4 + c) * 3 + ky) * 5 + kx) * 64 + r];
    };
    auto wAt = [&](int64_t m, int64_t c, int64_t ky, int64_t kx) {
        return w.as<float>()[((m * 6 + c) * 3 + ky) * 5 + kx];
    };
    EXPECT_EQ(at(0, 0, 0, 0, 0, 0), wAt(0, 0, 0, 0));
    EXPECT_EQ(at(0, 1, 1, 2, 4, 63), wAt(63, 5, 2, 4));
    EXPECT_EQ(at(1, 0, 3, 1, 2, 5), wAt(69, 3, 1, 2));
    EXPECT_EQ(at(1, 0, 3, 1, 2, 6), 0.0f) << "channel 70: padding";
    EXPECT_EQ(at(0, 1, 2, 0, 0, 0), 0.0f) << "input channel 6: padding";
}

TEST(RegisterDirectConvSelection, WideFloat32MapsOnGpusAndWhereItFitsOnCpus) {
    const DeviceDescription h200 = h200Description();
    auto kernelsFor = [](const ConvCase& c, const DeviceDescription& d, Precision p = Precision::Float32) {
        std::vector<NamedTensor> in{{"x", Tensor(DataType::Float32, c.x)}};
        return convKernels(convModel(c), in, d, p);
    };
    using V = std::vector<std::string>;
    ConvCase body{"ESPCN body", {1, 64, 540, 960}, 32, 3};
    EXPECT_EQ(kernelsFor(body, h200), V{"conv2d_rtd32_k3_f32"});
    EXPECT_EQ(kernelsFor(body, withDirect(h200, DirectConv::Off)), V{"conv2d_rt32x128_f32"});
    // Its RGB stem stays on conv2d_rt (3 input channels: the rule), unless forced.
    ConvCase stem{"ESPCN stem", {1, 3, 540, 960}, 64, 5};
    EXPECT_EQ(kernelsFor(stem, h200), V{"conv2d_rt64x128_f32"});
    EXPECT_EQ(kernelsFor(stem, withDirect(h200, DirectConv::Always)), V{"conv2d_rtd64_k5_f32"});
    ConvCase residual{"residual", {1, 32, 256, 256}, 32, 3, 1, 1, -1, true, true, true};
    EXPECT_EQ(kernelsFor(residual, h200), V{"conv2d_rtd32_k3_res_f32"});
    // Not taken: grids too small to fill the GPU without split-K (ResNet-18's 56x56 layers:
    // 14 workgroups of 8 warps), rows mostly empty (14-wide maps), strided, float16 (the
    // tensor cores).
    ConvCase fewWarps{"56x56", {1, 64, 56, 56}, 64, 3};
    EXPECT_EQ(kernelsFor(fewWarps, h200)[0].rfind("conv2d_rt64", 0), 0u);
    EXPECT_EQ(kernelsFor(fewWarps, withDirect(h200, DirectConv::Always)), V{"conv2d_rtd64_k3_f32"});
    ConvCase halfRows{"14x14 batch 32", {32, 256, 14, 14}, 256, 3};
    EXPECT_EQ(kernelsFor(halfRows, h200)[0].rfind("conv2d_rt", 0), 0u);
    EXPECT_EQ(kernelsFor(halfRows, h200)[0].rfind("conv2d_rtd", 0), std::string::npos);
    ConvCase strided{"strided", {1, 64, 512, 512}, 64, 3, 2};
    EXPECT_EQ(kernelsFor(strided, h200)[0].rfind("conv2d_rtd", 0), std::string::npos);
    EXPECT_EQ(kernelsFor(body, h200, Precision::Float16)[0].rfind("conv2d_cmd", 0), 0u);
    // CPU devices (lavapipe) take it wherever it fits, RGB stems and small maps included (the
    // portable tiles lost on each there, docs/BENCHMARKS.md), not strided or float16 layers;
    // the portable tiles where asked for, or the direct kernels are off.
    DeviceDescription lavapipe;
    lavapipe.facts.sharedMemoryBytes = 32 * 1024;
    EXPECT_EQ(kernelsFor(body, lavapipe), V{"conv2d_rtd32_k3_f32"});
    EXPECT_EQ(kernelsFor(stem, lavapipe), V{"conv2d_rtd64_k5_f32"});
    EXPECT_EQ(kernelsFor(fewWarps, lavapipe), V{"conv2d_rtd64_k3_f32"});
    EXPECT_EQ(kernelsFor(strided, lavapipe)[0].rfind("conv2d_rtd", 0), std::string::npos);
    EXPECT_EQ(kernelsFor(body, lavapipe, Precision::Float16)[0].rfind("conv2d_rtd", 0), std::string::npos);
    EXPECT_EQ(kernelsFor(body, withDirect(lavapipe, DirectConv::Off)), V{"conv2d_t64x64_f32"});
    DeviceDescription portable = lavapipe;
    portable.kernels.convTiles = ConvTiles::Small;
    EXPECT_EQ(kernelsFor(body, withDirect(portable, DirectConv::Always)), V{"conv2d_t64x64_f32"});
}

// The rule against run 35's per-layer profiles (docs/BENCHMARKS.md): ESPCN's 64- and
// 32-channel layers and the upscaler's 32-channel body won, stems of 3 channels lost.
TEST(RegisterDirectConvSelection, RuleCountsChannelsWarpsAndFilledRows) {
    auto pays = [](const ConvGeom& g) {
        return ops::registerDirectConvPays(g, *ops::registerDirectConvTile(g, kH200Shared));
    };
    EXPECT_TRUE(pays(geom(1, 64, 540, 960, 32, 3, 3)));   // 30 x 68 workgroups of 4 warps
    EXPECT_FALSE(pays(geom(1, 64, 56, 56, 64, 3, 3)));    // 14 workgroups of 8
    EXPECT_FALSE(pays(geom(8, 64, 56, 56, 64, 3, 3)));    // 112 of 8: 896 warps
    EXPECT_TRUE(pays(geom(16, 64, 56, 56, 64, 3, 3)));    // 1792
    EXPECT_FALSE(pays(geom(64, 256, 14, 14, 256, 3, 3)));  // rows of 32 for 14 pixels
    EXPECT_TRUE(pays(geom(1, 32, 540, 960, 12, 3, 3)));   // ESPCN's head
    EXPECT_FALSE(pays(geom(1, 3, 540, 960, 64, 5, 5)));   // its stem: 3 input channels
    EXPECT_FALSE(pays(geom(1, 4, 540, 960, 32, 3, 3)));
    EXPECT_TRUE(pays(geom(1, 8, 540, 960, 32, 3, 3)));
}

// Cases for the kernel against the CPU: each exercises a part of it (chunks and a partial
// chunk, M tiles and a partial one, partial row and column tiles, padding, residual, batch,
// the 5-wide window).
const std::vector<ConvCase>& runCases() {
    static const std::vector<ConvCase> all = {
        {"3x3, 8 channels in two chunks, map not a whole tile", {1, 8, 11, 37}, 24, 3},
        {"RGB stem 5x5 (a partial chunk), 40 channels", {1, 3, 9, 35}, 40, 5},
        {"70 channels in two tiles of 64, 6 inputs", {1, 6, 8, 33}, 70, 3},
        {"12 outputs, without bias, relu", {1, 5, 10, 40}, 12, 3, 1, 1, -1, false, false, true},
        {"residual and relu, batch 2", {2, 16, 9, 34}, 16, 3, 1, 1, -1, true, true, true},
        {"valid 3x3 (no padding)", {1, 8, 12, 36}, 20, 3, 1, 1, 0},
        {"5x5 with padding 1", {1, 4, 10, 38}, 32, 5, 1, 1, 1},
    };
    return all;
}

// lavapipe as a session with ConvTiles::Large and DirectConv::Always describes it.
DeviceDescription lavapipeAsGpu() {
    DeviceDescription d;
    d.kernels.convTiles = ConvTiles::Large;
    d.facts.sharedMemoryBytes = 32 * 1024;
    d.kernels.directConv = DirectConv::Always;
    return d;
}

class RegisterDirectConvRuns : public ::testing::TestWithParam<size_t> {};

TEST_P(RegisterDirectConvRuns, MatchCpuReference) {
    const ConvCase& c = runCases()[GetParam()];
    OnnxBuilder b = convModel(c);
    auto inputs = inputsOf(c, b);
    DeviceDescription gpu = lavapipeAsGpu();
    auto kernels = convKernels(b, inputs, gpu, Precision::Float32);
    ASSERT_FALSE(kernels.empty());
    EXPECT_EQ(kernels[0].rfind("conv2d_rtd", 0), 0u) << c.what << ": " << kernels[0];
    VKINFER_REQUIRE_GPU();
    expectGpuKernelsMatchCpu(b, inputs, c.what, Precision::Float32, false, DirectConv::Always);
}

INSTANTIATE_TEST_SUITE_P(Conv, RegisterDirectConvRuns, ::testing::Range<size_t>(0, 7),
                         [](const auto& info) { return "case" + std::to_string(info.param); });

TEST(RegisterDirectConvRuns, RectangularWindowAndShuffledStore) {
    // A 3x5 window (KH a constant, KW a variant) whose conv has a DepthToSpace and a Sigmoid
    // fused into its store.
    const Shape x{1, 4, 7, 36};
    OnnxBuilder b;
    b.input("x", x).output("y");
    b.initializer("w", rnd({12, 4, 3, 5}, "rect w"));
    b.initializer("b", rnd({12}, "rect b"));
    attr(b.node("Conv", {"x", "w", "b"}, {"c"}, "conv"), "pads", std::vector<int64_t>{1, 2, 1, 2});
    attr(b.node("DepthToSpace", {"c"}, {"d"}, "shuffle"), "blocksize", int64_t{2});
    b.node("Sigmoid", {"d"}, {"y"});
    DeviceDescription gpu = lavapipeAsGpu();
    auto kernels = planKernels(b, {{"x", x}}, gpu, Precision::Float32);
    ASSERT_EQ(kernels.size(), 1u) << "conv, shuffle and sigmoid in one dispatch";
    EXPECT_EQ(kernels[0], "conv2d_rtd16_k5_f32");
    VKINFER_REQUIRE_GPU();
    expectGpuKernelsMatchCpu(b, {{"x", rnd(x, "rect x")}}, "3x5 window, shuffled", Precision::Float32, false,
                             DirectConv::Always);
}

}  // namespace
}  // namespace vkinfer::testing
