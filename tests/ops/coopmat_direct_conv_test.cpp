// The direct tensor-core convolution (conv2d_cmd.comp, ops/conv/coopmat_direct.h): tile choice and
// weight packing as pure functions, selection from device descriptions, and the kernel (its
// emulated form on any device, the NV form where the device has tensor cores) against the
// CPU reference.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/half.h"
#include "ops/conv_cases.h"
#include "ops/conv/coopmat_direct.h"
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using nlohmann::json;

ops::ConvGeom geom(int64_t n, int64_t c, int64_t h, int64_t w, int64_t m, int64_t k, int64_t stride = 1) {
    ops::ConvGeom g{};
    g.N = n, g.C = c, g.H = h, g.W = w, g.M = m, g.KH = g.KW = k, g.SH = g.SW = stride, g.DH = g.DW = 1;
    g.padT = g.padL = g.padB = g.padR = k / 2;
    g.groups = 1;
    g.OH = (h + 2 * (k / 2) - k) / stride + 1;
    g.OW = (w + 2 * (k / 2) - k) / stride + 1;
    return g;
}

constexpr uint32_t kH200Shared = 48 * 1024;

TEST(CoopmatDirectConvTile, FitsSharedMemoryWithTheMostChannelsThenRows) {
    // ESPCN's 64 -> 32 3x3 layer at 960x540: 32 channels; 8 rows would need 55 KiB.
    auto t = ops::coopmatDirectConvTile(geom(1, 64, 540, 960, 32, 3), true, kH200Shared);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->bm, 32);
    EXPECT_EQ(t->warps, 4);
    EXPECT_EQ(t->tw, 64);
    EXPECT_FALSE(t->narrow);
    EXPECT_EQ(t->chunks, 4);
    EXPECT_EQ(t->tapSteps, 9);
    EXPECT_EQ(t->haloW, 66);
    EXPECT_EQ(t->haloWords, 6u * 66u * 3u);
    EXPECT_EQ(t->weightWords, 9u * 32u * 3u);
    EXPECT_LE(t->sharedBytes, kH200Shared);
    // Less shared memory (lavapipe's 32 KiB): fewer rows.
    auto small = ops::coopmatDirectConvTile(geom(1, 64, 540, 960, 32, 3), true, 32 * 1024);
    ASSERT_TRUE(small);
    EXPECT_EQ(small->bm, 32);
    EXPECT_EQ(small->warps, 2);

    // The RGB stem, 5x5: narrow, taps in pairs along x (3 steps per row of the window), and
    // 64 channels' weights (46 KiB) do not fit, so 32 per workgroup.
    auto stem = ops::coopmatDirectConvTile(geom(1, 3, 540, 960, 64, 5), false, kH200Shared);
    ASSERT_TRUE(stem);
    EXPECT_TRUE(stem->narrow);
    EXPECT_EQ(stem->chunks, 1);
    EXPECT_EQ(stem->tapSteps, 15);
    EXPECT_EQ(stem->haloW, 64 + 5);
    EXPECT_EQ(stem->bm, 32);
    EXPECT_EQ(stem->warps, 8);

    // A 12-channel head: one 16-row fragment; 28-pixel-wide maps: rows of 32.
    EXPECT_EQ(ops::coopmatDirectConvTile(geom(1, 32, 540, 960, 12, 3), true, kH200Shared)->bm, 16);
    EXPECT_EQ(ops::coopmatDirectConvTile(geom(1, 128, 28, 28, 128, 3), true, kH200Shared)->tw, 32);

    // What the kernel cannot take.
    EXPECT_FALSE(ops::coopmatDirectConvTile(geom(1, 64, 56, 56, 64, 3, 2), true, kH200Shared)) << "stride 2";
    EXPECT_FALSE(ops::coopmatDirectConvTile(geom(1, 64, 56, 56, 4, 3), true, kH200Shared)) << "4 output channels";
    EXPECT_FALSE(ops::coopmatDirectConvTile(geom(1, 12, 56, 56, 64, 3), true, kH200Shared)) << "NHWC, 12 channels";
    EXPECT_TRUE(ops::coopmatDirectConvTile(geom(1, 12, 56, 56, 64, 3), false, kH200Shared)) << "NCHW, 12 channels";
    auto grouped = geom(1, 64, 56, 56, 64, 3);
    grouped.groups = 2;
    EXPECT_FALSE(ops::coopmatDirectConvTile(grouped, true, kH200Shared));
    EXPECT_FALSE(ops::coopmatDirectConvTile(geom(1, 64, 56, 56, 64, 11), true, 16 * 1024)) << "11x11 in 16 KiB";
}

TEST(CoopmatDirectConvTile, WeightsPackedPerChunkAndTapStep) {
    // Distinct float16 weights; the packed tensor must hold w[m][c][ky][kx] where the kernel
    // reads it, and zeros where it reads past M, C or the window.
    auto weightsOf = [](const ops::ConvGeom& g) {
        Tensor w(DataType::Float16, {g.M, g.C, g.KH, g.KW});
        auto* p = w.as<uint16_t>();
        for (int64_t i = 0; i < w.elementCount(); ++i) p[i] = floatToHalf(static_cast<float>(i + 1));
        return w;
    };
    auto wAt = [](const Tensor& w, const ops::ConvGeom& g, int64_t m, int64_t c, int64_t ky, int64_t kx) {
        return w.as<uint16_t>()[((m * g.C + c) * g.KH + ky) * g.KW + kx];
    };
    {
        // 20 channels, 3x3: two chunks of 16 channels, the second zero past channel 19.
        auto g = geom(1, 20, 8, 40, 9, 3);
        auto t = *ops::coopmatDirectConvTile(g, false, kH200Shared);
        ASSERT_EQ(t.bm, 16);
        Tensor w = weightsOf(g), p = ops::packCoopmatDirectWeights(w, g, t);
        ASSERT_EQ(p.shape(), (std::vector<int64_t>{2, 9, 16, 16}));
        auto at = [&](int64_t q, int64_t s, int64_t m, int64_t e) {
            return p.as<uint16_t>()[((q * 9 + s) * 16 + m) * 16 + e];
        };
        EXPECT_EQ(at(0, 0, 0, 0), wAt(w, g, 0, 0, 0, 0));
        EXPECT_EQ(at(0, 5, 2, 7), wAt(w, g, 2, 7, 1, 2));   // step 5 = (ky 1, kx 2)
        EXPECT_EQ(at(1, 8, 8, 3), wAt(w, g, 8, 19, 2, 2));  // channel 19
        EXPECT_EQ(at(1, 8, 8, 4), 0);                       // channel 20: none
        EXPECT_EQ(at(0, 0, 9, 1), 0);                       // row 9: padding
    }
    {
        // Narrow 3 channels, 5x5: step s = (ky, pair of kx), element e = (kx - 2 pair) * 8 + c.
        auto g = geom(1, 3, 8, 40, 16, 5);
        auto t = *ops::coopmatDirectConvTile(g, false, kH200Shared);
        ASSERT_TRUE(t.narrow);
        Tensor w = weightsOf(g), p = ops::packCoopmatDirectWeights(w, g, t);
        ASSERT_EQ(p.shape(), (std::vector<int64_t>{1, 15, 16, 16}));
        auto at = [&](int64_t s, int64_t m, int64_t e) { return p.as<uint16_t>()[(s * 16 + m) * 16 + e]; };
        EXPECT_EQ(at(0, 1, 2), wAt(w, g, 1, 2, 0, 0));
        EXPECT_EQ(at(0, 1, 8 + 1), wAt(w, g, 1, 1, 0, 1));
        EXPECT_EQ(at(3 * 2 + 1, 4, 8 + 0), wAt(w, g, 4, 0, 2, 3));
        EXPECT_EQ(at(3 * 2 + 1, 4, 3), 0);  // channel 3: none
        EXPECT_EQ(at(3 * 1 + 2, 4, 8), 0);  // kx 5: past the window
        EXPECT_EQ(at(3 * 1 + 2, 4, 0), wAt(w, g, 4, 0, 1, 4));
    }
}

DeviceDescription emulated() {
    DeviceDescription d;
    d.kernels.emulateCooperativeMatrix = true;
    d.facts.sharedMemoryBytes = 32 * 1024;
    return d;
}

TEST(DirectConvSelection, WideStrideOneMapsOnTheTensorCores) {
    const DeviceDescription h200 = h200Description();
    auto kernelsFor = [](const ConvCase& c, const DeviceDescription& d) {
        std::vector<NamedTensor> in{{"x", Tensor(DataType::Float32, c.x)}};
        return convKernels(convModel(c), in, d);
    };
    using V = std::vector<std::string>;
    ConvCase wide{"wide", {1, 64, 128, 256}, 32, 3};  // 512 warps; enough tiles that conv2d_cm splits nothing
    EXPECT_EQ(kernelsFor(wide, h200), V{"conv2d_cmd32x64_nv"});
    EXPECT_EQ(kernelsFor(wide, withDirect(h200, DirectConv::Off)), V{"conv2d_cm32_nv"});
    ConvCase stem{"stem", {1, 3, 270, 480}, 64, 5};
    EXPECT_EQ(kernelsFor(stem, h200), V{"conv2d_cmd32x64_narrow_nv"});
    ConvCase residual{"residual", {1, 32, 120, 240}, 32, 3, 1, 1, -1, true, true, true};
    EXPECT_EQ(kernelsFor(residual, h200), V{"conv2d_cmd32x64_res_nv"});
    // Not taken: strided, 1x1 (no taps to share), maps narrower than two fragments, grids of
    // few warps (ResNet-18's 56x56 layers: 28 workgroups of two warps), rows mostly empty
    // (14-wide maps in rows of 32, even at batch 8), float32.
    ConvCase strided{"strided", {1, 64, 120, 240}, 64, 3, 2};
    EXPECT_EQ(kernelsFor(strided, h200)[0].rfind("conv2d_cm64", 0), 0u);
    ConvCase pointwise{"pointwise", {1, 64, 128, 256}, 64, 1, 1, 1, 0};
    EXPECT_EQ(kernelsFor(pointwise, h200)[0].rfind("conv2d_cm64_pw", 0), 0u);
    EXPECT_EQ(kernelsFor(pointwise, withDirect(h200, DirectConv::Always)), V{"conv2d_cmd64x64_nv"});
    ConvCase narrowMap{"narrow map", {1, 64, 600, 20}, 64, 3};
    EXPECT_EQ(kernelsFor(narrowMap, h200)[0].rfind("conv2d_cm64", 0), 0u);
    ConvCase fewWarps{"56x56", {1, 64, 56, 56}, 64, 3};
    EXPECT_EQ(kernelsFor(fewWarps, h200)[0].rfind("conv2d_cm64", 0), 0u);
    EXPECT_EQ(kernelsFor(fewWarps, withDirect(h200, DirectConv::Always)), V{"conv2d_cmd64x64_nv"});
    ConvCase batch8{"28x28 batch 8", {8, 128, 28, 28}, 128, 3};
    EXPECT_EQ(kernelsFor(batch8, h200), V{"conv2d_cmd64x32_nv"});
    ConvCase halfRows{"14x14 batch 8", {8, 256, 14, 14}, 256, 3};
    EXPECT_EQ(kernelsFor(halfRows, h200)[0].rfind("conv2d_cm64", 0), 0u);
    std::vector<NamedTensor> in{{"x", Tensor(DataType::Float32, wide.x)}};
    for (const auto& k : convKernels(convModel(wide), in, h200, Precision::Float32))
        EXPECT_EQ(k.rfind("conv2d_cmd", 0), std::string::npos) << k;
    // Devices without tensor cores never.
    DeviceDescription lavapipe;
    lavapipe.facts.subgroupSize = 8;
    lavapipe.facts.sharedMemoryBytes = 32 * 1024;
    EXPECT_EQ(kernelsFor(wide, lavapipe), V{"conv2d_t64x64_f16"});
}

TEST(DirectConvSelection, RuleCountsWarpsAndFilledRows) {
    auto pays = [](const ops::ConvGeom& g) {
        return ops::coopmatDirectConvPays(g, *ops::coopmatDirectConvTile(g, true, kH200Shared));
    };
    EXPECT_TRUE(pays(geom(1, 64, 540, 960, 32, 3)));    // ESPCN: 2025 workgroups of 4 warps
    EXPECT_FALSE(pays(geom(1, 64, 56, 56, 64, 3)));     // 28 workgroups of 2 warps
    EXPECT_TRUE(pays(geom(8, 64, 56, 56, 64, 3)));      // 224 of 2: 448 warps
    EXPECT_FALSE(pays(geom(8, 256, 14, 14, 256, 3)));   // rows of 32 for 14 pixels
    EXPECT_FALSE(pays(geom(1, 64, 540, 960, 32, 1)));   // 1x1
}

// Cases for the kernel against the CPU: each exercises a part of it (chunks, the narrow
// window, NCHW and NHWC input, residual, batch, partial tiles, padding, M tiles).
const std::vector<ConvCase>& runCases() {
    static const std::vector<ConvCase> all = {
        {"3x3, 32 channels in two chunks, map not a whole tile", {1, 32, 9, 37}, 24, 3},
        {"RGB stem 5x5, narrow, 40 channels in three tiles of 16", {1, 3, 7, 35}, 40, 5},
        {"3 channels 3x3 without bias, relu", {1, 3, 5, 33}, 16, 3, 1, 1, -1, false, false, true},
        {"12 channels (NCHW, a partial chunk), 12 outputs", {1, 12, 6, 34}, 12, 3},
        {"residual and relu, batch 2", {2, 16, 5, 33}, 16, 3, 1, 1, -1, true, true, true},
        {"valid 3x3 (no padding), 2 rows", {1, 16, 4, 36}, 20, 3, 1, 1, 0},
        {"1x1 (forced), 8-pixel words in NCHW", {1, 24, 3, 40}, 32, 1, 1, 1, 0},
        {"8-pixel words with residual and relu", {1, 16, 6, 48}, 24, 3, 1, 1, -1, true, true, true},
        {"8 channels (narrow), 8-pixel words, batch 2", {2, 8, 5, 32}, 16, 3},
    };
    return all;
}

class DirectConvRuns : public ::testing::TestWithParam<size_t> {};

TEST_P(DirectConvRuns, MatchCpuReference) {
    const ConvCase& c = runCases()[GetParam()];
    OnnxBuilder b = convModel(c);
    auto inputs = inputsOf(c, b);
    auto kernels = convKernels(b, inputs, withDirect(emulated(), DirectConv::Always));
    ASSERT_FALSE(kernels.empty());
    EXPECT_EQ(kernels[0].rfind("conv2d_cmd", 0), 0u) << c.what << ": " << kernels[0];
    VKINFER_REQUIRE_GPU();
    expectEmulatedAndNativeMatchCpu(b, inputs, c.what, DirectConv::Always);
}

INSTANTIATE_TEST_SUITE_P(Conv, DirectConvRuns, ::testing::Range<size_t>(0, 9),
                         [](const auto& info) { return "case" + std::to_string(info.param); });

// A chain of convs on the direct kernel wherever it can run, emulated and on the tensor
// cores, against the CPU.
void expectChainMatchesCpu(const OnnxBuilder& b, const Shape& x, const std::string& what) {
    VKINFER_REQUIRE_GPU();
    expectEmulatedAndNativeMatchCpu(b, {{"x", rnd(x, what + " x")}}, what, DirectConv::Always);
}

struct Layer {
    std::string in, out;
    int64_t c, m, k;
    std::string residual = "";
};

// Padded "same" convs, each followed by Tanh, the last by nothing.
OnnxBuilder layers(const std::string& what, const Shape& x, const std::vector<Layer>& ls, const std::string& last) {
    OnnxBuilder b;
    b.input("x", x).output(last);
    for (const Layer& l : ls) {
        b.initializer(l.out + "w", rnd({l.m, l.c, l.k, l.k}, what + l.out + "w"));
        b.initializer(l.out + "b", rnd({l.m}, what + l.out + "b"));
        const bool tail = &l == &ls.back();
        std::string conv = tail && l.residual.empty() ? l.out : l.out + "c";
        auto& n = b.node("Conv", {l.in, l.out + "w", l.out + "b"}, {conv}, l.out);
        int64_t pad = l.k / 2;
        attr(n, "pads", std::vector<int64_t>{pad, pad, pad, pad});
        if (!l.residual.empty()) {
            b.node("Add", {conv, l.residual}, {l.out + "s"});
            conv = l.out + "s";
        }
        if (!tail) b.node("Tanh", {conv}, {l.out});
    }
    return b;
}

std::vector<std::string> convsOf(const std::vector<std::string>& kernels) {
    std::vector<std::string> conv;
    for (const auto& k : kernels)
        if (k.rfind("conv", 0) == 0) conv.push_back(k);
    return conv;
}

TEST(DirectConvRuns, ChannelsLastChainAndShuffledOutput) {
    // ESPCN in small: an RGB stem (narrow, NCHW in, NHWC out in 8-channel words), a 3x3 over its
    // channels-last output, a 12-channel head with DepthToSpace and Sigmoid fused into its store.
    const Shape x{1, 3, 6, 40};
    OnnxBuilder b = layers("espcn", x, {{"x", "a", 3, 32, 5}, {"a", "b", 32, 16, 3}, {"b", "c", 16, 12, 3}}, "c");
    attr(b.node("DepthToSpace", {"c"}, {"d"}, "shuffle"), "blocksize", int64_t{2});
    b.node("Sigmoid", {"d"}, {"y"});
    b.output("y");
    auto kernels = planKernels(b, {{"x", x}}, withDirect(emulated(), DirectConv::Always));
    EXPECT_EQ(convsOf(kernels), (std::vector<std::string>{"conv2d_cmd32x64_narrow_emu", "conv2d_cmd16x64_emu",
                                                           "conv2d_cmd16x64_emu"}));
    EXPECT_EQ(std::count_if(kernels.begin(), kernels.end(),
                            [](const std::string& k) { return k.find("depth") != std::string::npos; }),
              0)
        << "the shuffle is stored by the conv";
    expectChainMatchesCpu(b, x, "ESPCN in small");
}

// ESPCN in small (as above) for the boundary Casts of float16 precision: a head storing the
// graph's float32 output through a fused DepthToSpace.
OnnxBuilder espcnInSmall(const Shape& x) {
    OnnxBuilder b;
    b.input("x", x).output("y");
    const std::vector<Layer> ls{{"x", "a", 3, 32, 5}, {"a", "b", 32, 16, 3}, {"b", "c", 16, 12, 3}};
    for (const Layer& l : ls) {
        b.initializer(l.out + "w", rnd({l.m, l.c, l.k, l.k}, "espcn" + l.out + "w"));
        b.initializer(l.out + "b", rnd({l.m}, "espcn" + l.out + "b"));
        const bool tail = &l == &ls.back();
        auto& n = b.node("Conv", {l.in, l.out + "w", l.out + "b"}, {tail ? l.out : l.out + "c"}, l.out);
        attr(n, "pads", std::vector<int64_t>(4, l.k / 2));
        if (!tail) b.node("Tanh", {l.out + "c"}, {l.out});
    }
    attr(b.node("DepthToSpace", {"c"}, {"y"}, "shuffle"), "blocksize", int64_t{2});
    return b;
}

DeviceDescription withFoldedCasts(DeviceDescription d, bool fold) {
    d.kernels.foldCasts = fold;
    return d;
}

int64_t castDispatches(const std::vector<std::string>& kernels) {
    return std::count_if(kernels.begin(), kernels.end(), [](const std::string& k) { return k.rfind("cast_", 0) == 0; });
}

TEST(DirectConvRuns, BoundaryCastsFoldIntoTheDirectConvs) {
    const Shape x{1, 3, 6, 40};
    const InputShapes shapes{{"x", x}};
    const OnnxBuilder b = espcnInSmall(x);
    // The input's Cast runs; the head widens its output as it stores it (passes/cast_folding.h),
    // emulated and on the tensor cores.
    EXPECT_EQ(planKernels(b, shapes, withDirect(emulated(), DirectConv::Always)),
              (std::vector<std::string>{"cast_f32_f16", "conv2d_cmd32x64_narrow_emu", "conv2d_cmd16x64_emu",
                                        "conv2d_cmd16x64_emu"}));
    DeviceDescription h200 = withDirect(h200Description(), DirectConv::Always);
    h200.kernels.smallGridConv = SmallGridConv::Off;  // (the map is too small for the tiles' rule)
    EXPECT_EQ(planKernels(b, shapes, h200),
              (std::vector<std::string>{"cast_f32_f16", "conv2d_cmd32x64_narrow_nv", "conv2d_cmd16x64_nv",
                                        "conv2d_cmd16x64_nv"}));
    auto report = planReport(b, shapes, withDirect(emulated(), DirectConv::Always));
    ASSERT_TRUE(report.contains("schedule")) << report.dump();
    std::vector<std::string> ops;
    for (const auto& d : report["schedule"]) ops.push_back(d["op"]);
    EXPECT_EQ(ops, (std::vector<std::string>{"Cast", "Conv+Tanh", "Conv+Tanh", "Conv+Cast"}));
    // Unfolded, both Casts run on their own.
    EXPECT_EQ(castDispatches(planKernels(b, shapes, withFoldedCasts(withDirect(emulated(), DirectConv::Always), false))), 2);
    // Where another kernel takes a conv, the lowering runs the Cast it cannot do (or a
    // DepthToSpace copy converts, where the kernel does not store the shuffle): the convs of
    // the unfolded plan, and never more dispatches.
    for (const DeviceDescription& d : {withDirect(emulated(), DirectConv::Off), DeviceDescription{}}) {
        const auto folded = planKernels(b, shapes, d), unfolded = planKernels(b, shapes, withFoldedCasts(d, false));
        EXPECT_EQ(convsOf(folded), convsOf(unfolded));
        EXPECT_LE(folded.size(), unfolded.size()) << ::testing::PrintToString(folded);
        EXPECT_GE(castDispatches(folded), 1) << ::testing::PrintToString(folded);
    }
    // A conv whose kernel cannot store float32 runs the Cast after it, labelled as one.
    OnnxBuilder unshuffled;
    unshuffled.input("x", x).output("y");
    unshuffled.initializer("w", rnd({12, 3, 3, 3}, "unshuffled w"));
    attr(unshuffled.node("Conv", {"x", "w"}, {"y"}, "conv"), "pads", std::vector<int64_t>(4, 1));
    auto report16 = planReport(unshuffled, shapes, DeviceDescription{});
    ASSERT_TRUE(report16.contains("schedule")) << report16.dump();
    ops.clear();
    for (const auto& d : report16["schedule"]) ops.push_back(d["op"]);
    EXPECT_EQ(ops, (std::vector<std::string>{"Cast", "Conv", "Cast"}));
}

// Output 0 of `b` at float16 precision with `kernels` (both sync modes alike).
Tensor runFloat16(const OnnxBuilder& b, const std::vector<NamedTensor>& inputs, const KernelPolicy& kernels) {
    SessionOptions o;
    o.precision = Precision::Float16;
    o.kernels = kernels;
    return runInBothSyncModes(b, inputs, o);
}

TEST(DirectConvRuns, FoldedBoundaryCastsChangeNoBit) {
    VKINFER_REQUIRE_GPU();
    const Shape x{1, 3, 6, 40};
    const OnnxBuilder b = espcnInSmall(x);
    // An input not exact in float16, with ties, a subnormal and overflow among it.
    Tensor in = iotaTensor(x, -2.3f, 0.00713f);
    float* v = in.as<float>();
    v[0] = 1.0f + 1.0f / 2048.0f, v[1] = 1.0f + 3.0f / 2048.0f, v[2] = 3.0e-6f, v[3] = 70000.0f, v[44] = -1e-9f;
    const std::vector<NamedTensor> inputs{{"x", in}};
    std::vector<KernelPolicy> policies;
    KernelPolicy p;
    p.emulateCooperativeMatrix = true;
    p.directConv = DirectConv::Always;
    policies.push_back(p);  // emulated, widening in the direct kernel
    p.directConv = DirectConv::Off;
    policies.push_back(p);  // emulated, the Casts run by the lowering
    const DeviceInfo& dev = gpuContext().device();
    if (dev.cooperativeMatrix16x16x16 && dev.subgroupSize == 32) {
        KernelPolicy nv;
        nv.convTiles = ConvTiles::Small;
        nv.smallGridConv = SmallGridConv::Off;  // (the map is small enough for conv2d_small)
        nv.directConv = DirectConv::Always;
        policies.push_back(nv);  // the tensor cores
    }
    for (const KernelPolicy& folded : policies) {
        SCOPED_TRACE(folded.emulateCooperativeMatrix ? folded.directConv == DirectConv::Always ? "emulated, direct"
                                                                                               : "emulated, gathering"
                                                     : "tensor cores");
        KernelPolicy unfolded = folded;
        unfolded.foldCasts = false;
        const Tensor y = runFloat16(b, inputs, folded), want = runFloat16(b, inputs, unfolded);
        ASSERT_EQ(y.shape(), (Shape{1, 3, 12, 80}));
        ASSERT_EQ(y.shape(), want.shape());
        EXPECT_EQ(std::memcmp(y.data(), want.data(), y.byteSize()), 0) << "folding the Casts changed the output";
    }
    // The float32 output of the direct kernel against the CPU too.
    expectChainMatchesCpu(b, x, "ESPCN in small, float32 stored by its head");
}

TEST(DirectConvRuns, ShuffledOutputWithResidual) {
    // The upscaler's head: a 3x3 over the body plus a skip conv from the input, Clip, then the
    // pixel shuffle: the head stores the shuffle itself, reading the skip conv's output (NCHW,
    // though both convs could go channels-last) where its unshuffled output would be.
    const Shape x{1, 3, 5, 36};
    OnnxBuilder b;
    b.input("x", x).output("y");
    auto conv = [&](const std::string& in, const std::string& out, int64_t c, int64_t m) {
        // Weights of an eighth (exact in float16): sums of about 1, not 10, whose float16
        // rounding stays within the tolerance where the head and the skip nearly cancel.
        Tensor w = rnd({m, c, 3, 3}, "head" + out + "w");
        for (int64_t i = 0; i < w.elementCount(); ++i) w.as<float>()[i] *= 0.125f;
        b.initializer(out + "w", w);
        b.initializer(out + "b", rnd({m}, "head" + out + "b"));
        attr(b.node("Conv", {in, out + "w", out + "b"}, {out}, out), "pads", std::vector<int64_t>(4, 1));
    };
    conv("x", "a", 3, 16);
    b.node("Tanh", {"a"}, {"t"});
    conv("t", "h", 16, 12);
    conv("x", "s", 3, 12);
    b.node("Add", {"h", "s"}, {"sum"});
    b.initializer("lo", floatTensor({}, {-0.5f}));
    b.initializer("hi", floatTensor({}, {0.6f}));
    b.node("Clip", {"sum", "lo", "hi"}, {"c"});
    auto& shuffle = b.node("DepthToSpace", {"c"}, {"y"}, "shuffle");
    attr(shuffle, "blocksize", int64_t{2});
    attr(shuffle, "mode", std::string("CRD"));
    const auto kernels = planKernels(b, {{"x", x}}, withDirect(emulated(), DirectConv::Always));
    // (The input's Cast stays: two convs read it.)
    EXPECT_EQ(kernels.size(), convsOf(kernels).size() + 1) << "no copy: " << ::testing::PrintToString(kernels);
    EXPECT_EQ(std::count(kernels.begin(), kernels.end(), "conv2d_cmd16x64_res_emu"), 1)
        << ::testing::PrintToString(kernels);
    expectChainMatchesCpu(b, x, "shuffled output with a residual");
}

TEST(DirectConvRuns, ChannelsLastResidualInWords) {
    // b adds a's output: both channels-last (c reads b on the tensor cores), so b stores
    // 8-channel words with the residual read the same way; c's 12 channels go element-wise.
    const Shape x{1, 3, 5, 34};
    OnnxBuilder b = layers("res", x, {{"x", "a", 3, 16, 3}, {"a", "b", 16, 16, 3, "a"}, {"b", "y", 16, 12, 3}}, "y");
    EXPECT_EQ(convsOf(planKernels(b, {{"x", x}}, withDirect(emulated(), DirectConv::Always))),
              (std::vector<std::string>{"conv2d_cmd16x64_narrow_emu", "conv2d_cmd16x64_res_emu",
                                        "conv2d_cmd16x64_emu"}));
    expectChainMatchesCpu(b, x, "channels-last residual");
}

TEST(DirectConvPolicy, BadEnvironmentValueFailsSessionCreation) {
    VKINFER_REQUIRE_GPU();
    ConvCase c{"env", {1, 8, 4, 4}, 8, 3};
    auto model = convModel(c).build();
    ::setenv("VKINFER_DIRECT_CONV", "sometimes", 1);
    auto s = Session::create(gpuContext(), *model, {});
    ::unsetenv("VKINFER_DIRECT_CONV");
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.status().message().find("VKINFER_DIRECT_CONV"), std::string::npos) << s.status().toString();
}

}  // namespace
}  // namespace vkinfer::testing
