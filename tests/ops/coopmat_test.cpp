// Cooperative-matrix (tensor-core) kernels. On a device that has them (the H200:
// VK_NV_cooperative_matrix) the NV variants run; everywhere, the emulated variants
// (KernelPolicy::emulateCooperativeMatrix: the same tiling, indexing, split-K and epilogues
// with the 16x16 matrix operations spelled in plain GLSL) run against the float32 CPU
// reference, so the kernels' logic is tested on lavapipe too. Float16 precision throughout.
#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/half.h"
#include "ops/conv_cases.h"
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using nlohmann::json;

DeviceDescription emulated() {
    DeviceDescription d;
    d.kernels.emulateCooperativeMatrix = true;
    return d;
}

// The emulation with lavapipe's shared memory, where the GEMM cases' plans run.
DeviceDescription emulatedIn32KiB() {
    DeviceDescription d = emulated();
    d.facts.sharedMemoryBytes = 32 * 1024;
    return d;
}

const std::vector<ConvCase>& cases() {
    static const std::vector<ConvCase> all = {
        {"3x3 pad 1, 64-row tile", {1, 16, 13, 11}, 40, 3},
        {"3x3, 32-row tile, no bias", {1, 24, 9, 17}, 24, 3, 1, 1, -1, false},
        {"1x1 pointwise", {1, 48, 10, 12}, 72, 1},
        {"1x1 pointwise, batch 2, relu", {2, 40, 7, 9}, 33, 1, 1, 1, -1, true, false, true},
        {"3x3 stride 2", {1, 20, 15, 15}, 64, 3, 2},
        {"5x5 pad 2", {1, 12, 10, 10}, 20, 5},
        {"1x1 stride 2 (not pointwise)", {1, 32, 12, 12}, 48, 1, 2, 1, 0},
        {"grouped 3x3", {1, 64, 8, 8}, 64, 3, 1, 2},
        {"residual add and relu", {1, 32, 9, 9}, 32, 3, 1, 1, -1, true, true, true},
        {"split-K: 3x3 over 256 channels at 4x4", {1, 256, 4, 4}, 64, 3},
        {"split-K with residual", {1, 192, 3, 5}, 48, 3, 1, 1, -1, true, true, false},
        {"more pixels than one grid row", {1, 32, 40, 60}, 32, 1},
        {"12 channels in a 32-row tile", {1, 32, 11, 13}, 12, 3},
    };
    return all;
}

// Kernel selection is a pure function of the graph and the described device: the H200 gets
// the NV kernels for float16 convolutions that fill 16x16 fragments; float32 plans and
// convolutions too small for the fragments the register-tiled ones (a GPU), lavapipe the
// portable ones, depthwise convolutions their own.
TEST(CoopmatSelection, ByDeviceDescriptionPrecisionAndShape) {
    // The gathering kernel's choices: the direct one (coopmat_direct_conv_test.cpp) is off.
    DeviceDescription h200 = h200Description();
    h200.kernels.directConv = DirectConv::Off;
    DeviceDescription lavapipe;
    lavapipe.facts.subgroupSize = 8;
    lavapipe.facts.sharedMemoryBytes = 32 * 1024;
    lavapipe.facts.float16Arithmetic = true;
    DeviceDescription coopmatWrongSubgroup = h200;
    coopmatWrongSubgroup.facts.subgroupSize = 64;
    coopmatWrongSubgroup.kernels.convTiles = ConvTiles::Small;  // the portable kernel, as on lavapipe

    // 144x144: enough pixel tiles (162) that neither kernel splits the reduction.
    ConvCase big{"big", {1, 64, 144, 144}, 64, 3};
    OnnxBuilder b = convModel(big);
    std::vector<NamedTensor> in{{"x", Tensor(DataType::Float32, big.x)}};
    auto k = convKernels(b, in, h200);
    ASSERT_EQ(k.size(), 1u);
    EXPECT_EQ(k[0], "conv2d_cm64_nv");
    EXPECT_EQ(convKernels(b, in, lavapipe), std::vector<std::string>{"conv2d_t64x64_f16"});
    EXPECT_EQ(convKernels(b, in, coopmatWrongSubgroup), std::vector<std::string>{"conv2d_t64x64_f16"});
    EXPECT_EQ(convKernels(b, in, emulated()), std::vector<std::string>{"conv2d_cm64_emu"});

    ConvCase pw{"pw", {1, 64, 144, 144}, 32, 1, 1, 1, 0};
    OnnxBuilder pwb = convModel(pw);
    EXPECT_EQ(convKernels(pwb, in, h200), std::vector<std::string>{"conv2d_cm32_pw_nv"});

    // Few output channels or a short reduction: the portable kernels; 8 channels and more
    // (an upscaler's head) the 32-row tile.
    ConvCase head{"head", {1, 64, 144, 144}, 12, 3};
    EXPECT_EQ(convKernels(convModel(head), in, h200), std::vector<std::string>{"conv2d_cm32_nv"});
    ConvCase narrow{"narrow", {1, 64, 144, 144}, 6, 3};
    EXPECT_EQ(convKernels(convModel(narrow), in, h200),
              (std::vector<std::string>{"conv2d_rt16x128_splitk_f16", "conv_splitk_reduce_f16"}));
    ConvCase stem{"stem", {1, 3, 144, 144}, 32, 3};
    std::vector<NamedTensor> in3{{"x", Tensor(DataType::Float32, stem.x)}};
    EXPECT_EQ(convKernels(convModel(stem), in3, h200), std::vector<std::string>{"conv2d_t64x64_f16"});
    ConvCase dw{"dw", {1, 64, 144, 144}, 64, 3, 1, 64};
    EXPECT_EQ(convKernels(convModel(dw), in, h200), std::vector<std::string>{"conv2d_depthwise_x4_f16"});

    // A 4x4 map over 256 channels to 128: 1 pixel tile, so the reduction is split.
    ConvCase deep{"deep", {1, 256, 4, 4}, 128, 3};
    std::vector<NamedTensor> inDeep{{"x", Tensor(DataType::Float32, deep.x)}};
    auto splitKernels = convKernels(convModel(deep), inDeep, h200);
    ASSERT_EQ(splitKernels.size(), 2u);
    EXPECT_EQ(splitKernels[0], "conv2d_cm64_splitk_nv");
    EXPECT_EQ(splitKernels[1], "conv_splitk_reduce_f16");
    // To 64 channels, the same few tiles leave the tensor cores for conv2d_small
    // (ops/conv/small_grid.cpp: narrow few-tiles layers).
    ConvCase narrowDeep{"narrow deep", {1, 256, 4, 4}, 64, 3};
    EXPECT_EQ(convKernels(convModel(narrowDeep), inDeep, h200), std::vector<std::string>{"conv2d_small_f16"});

    // Float32 precision never takes the float16 tensor-core path.
    auto model = b.build();
    PlanOptions o;
    o.device = h200.facts;
    o.kernels = h200.kernels;
    auto j = planJson(*model, {{"x", big.x}}, o);
    ASSERT_TRUE(j.ok());
    EXPECT_EQ(j->find("conv2d_cm"), std::string::npos);
}

TEST(CoopmatConv, WeightsPackedPerGroupWithZeroPadding) {
    // Covered through the emulated runs below; here the plan: one packed constant per conv,
    // Mpad x Kpad halves per group.
    ConvCase c{"packing", {1, 64, 8, 8}, 40, 3, 1, 2};
    OnnxBuilder b = convModel(c);
    auto model = b.build();
    PlanOptions o;
    o.precision = Precision::Float16;
    o.kernels = emulated().kernels;
    auto j = planJson(*model, {{"x", c.x}}, o);
    ASSERT_TRUE(j.ok()) << j.status().toString();
    json plan = json::parse(*j);
    bool found = false;
    for (const auto& d : plan["schedule"]) {
        if (d["kernel"].get<std::string>().rfind("conv2d_cm", 0) != 0) continue;
        for (const auto& r : d["reads"]) {
            if (r["tensor"].get<std::string>().find("_cm_weights") == std::string::npos) continue;
            found = true;
            // 2 groups x (20 channels -> 32 rows) x (32 * 9 = 288 -> 288) halves.
            EXPECT_EQ(r["bytes"].get<int64_t>(), 2 * 32 * 288 * 2);
        }
    }
    EXPECT_TRUE(found);
}

class CoopmatConvRuns : public ::testing::TestWithParam<size_t> {};

// The emulated kernels (and the NV ones on a device with tensor cores) against the CPU.
TEST_P(CoopmatConvRuns, MatchCpuReference) {
    VKINFER_REQUIRE_GPU();
    const ConvCase& c = cases()[GetParam()];
    OnnxBuilder b = convModel(c);
    auto inputs = inputsOf(c, b);
    auto kernels = convKernels(b, inputs, emulated());
    ASSERT_FALSE(kernels.empty());
    EXPECT_EQ(kernels[0].rfind("conv2d_cm", 0), 0u) << c.what << " did not select the cooperative-matrix kernel";
    expectEmulatedAndNativeMatchCpu(b, inputs, c.what);
}

INSTANTIATE_TEST_SUITE_P(Conv, CoopmatConvRuns, ::testing::Range<size_t>(0, 13),
                         [](const auto& info) { return "case" + std::to_string(info.param); });

// ---- GEMM / MatMul ----

struct GemmCase {
    std::string what;
    Shape a, b;             // MatMul operands (NumPy semantics), or Gemm's A and B
    bool gemm = false;      // Gemm with transB and a broadcast C row, alpha/beta
    bool relu = false;
    std::string kernel;     // expected kernel family prefix (emulated)
    bool bInput = false;    // B a graph input (a constant transB weight is made row-major at planning)
};

OnnxBuilder gemmModel(const GemmCase& c) {
    OnnxBuilder b;
    b.input("a", c.a).output("y");
    if (c.bInput) b.input("b", c.b);
    else b.initializer("b", rnd(c.b, c.what + "b"));
    std::string out = c.relu ? "g" : "y";
    if (c.gemm) {
        b.initializer("c", rnd({c.b[0]}, c.what + "c"));
        auto& n = b.node("Gemm", {"a", "b", "c"}, {out}, "gemm");
        attr(n, "transB", int64_t{1});
        attr(n, "alpha", 0.5f);
        attr(n, "beta", 2.0f);
    } else {
        b.node("MatMul", {"a", "b"}, {out}, "matmul");
    }
    if (c.relu) b.node("Relu", {"g"}, {"y"});
    return b;
}

// (CoopmatGemmRuns below instantiates one test per case: keep its range the table's size.)
const std::vector<GemmCase>& gemmCases() {
    static const std::vector<GemmCase> all = {
        // 64 x 64 tiles but for products of many tiles and long reductions (ops/gemm/select.h).
        {"64x64x64, word loads", {64, 64}, {64, 64}, false, false, "gemm_cm64_clamped_k64_emu"},
        {"odd sizes: 50x96 by 96x130", {50, 96}, {96, 130}, false, false, "gemm_cm64_va_emu"},
        // (B per inner batch: with one B for all, the batches would be rows of one product.)
        {"batched 2x3 x 40x48 by 3x48x72, relu", {2, 3, 40, 48}, {3, 48, 72}, false, true, "gemm_cm64_va_vb_emu"},
        // transB: B gathered eight halves from eight rows where it is an input, read in words
        // where it is a constant (passes/gemm_weights.h transposes it once).
        {"Gemm transB, C, alpha, beta", {37, 64}, {80, 64}, true, false, "gemm_cm64_va_c_emu", true},
        {"Gemm transB constant, C, alpha, beta", {37, 64}, {80, 64}, true, false, "gemm_cm64_clamped_k64_c_emu"},
        {"split-K: 16x2048 by 2048x64", {16, 2048}, {2048, 64}, false, false, "gemm_cm64_clamped_k64_splitk_emu"},
        {"ViT's rows: 197x64 by 64x200", {197, 64}, {64, 200}, false, false, "gemm_cm64_clamped_k64_emu"},
        // K slices of 128 where the device's shared memory fits them (48 KiB on NVIDIA: this
        // runs _clamped_k128 natively there); the emulated plan's 32 KiB fit slices of 64.
        {"K slices of 128 natively: 65x128 by 128x512", {65, 128}, {128, 512}, false, false,
         "gemm_cm64_clamped_k64_emu"},
        {"shared B: 2x3 x 48x48 by 48x72 is 288 rows", {2, 3, 48, 48}, {48, 72}, false, false, "gemm_cm64_va_vb_emu"},
        {"300x64 by 64x200", {300, 64}, {64, 200}, false, false, "gemm_cm64_clamped_k64_emu"},
        {"Gemm transB, C, alpha, beta at 260 rows", {260, 64}, {80, 64}, true, false, "gemm_cm64_va_c_emu", true},
        // 128 x 128 tiles where they make 64 tiles or more and K is at least 256 (on 32 KiB in
        // slices of 32: slices of 64 would not fit).
        {"128 x 128 tiles, Gemm transB constant, C", {1030, 256}, {1000, 256}, true, false, "gemm_cm128_clamped_c_emu"},
        {"128 x 128 tiles, ragged", {1040, 256}, {256, 1000}, false, false, "gemm_cm128_clamped_emu"},
        // 64 tiles of 128 x 128, but a reduction too short for them (Swin-T's first stage).
        {"short reduction, relu", {1024, 32}, {32, 1024}, false, true, "gemm_cm64_clamped_emu"},
    };
    return all;
}

class CoopmatGemmRuns : public ::testing::TestWithParam<size_t> {};

TEST_P(CoopmatGemmRuns, MatchCpuReference) {
    const GemmCase& c = gemmCases()[GetParam()];
    OnnxBuilder b = gemmModel(c);
    InputShapes shapes{{"a", c.a}};
    if (c.bInput) shapes.emplace_back("b", c.b);
    auto kernels = planKernels(b, shapes, emulatedIn32KiB());
    EXPECT_NE(std::find(kernels.begin(), kernels.end(), c.kernel), kernels.end())
        << c.what << ": expected " << c.kernel << " among the plan's kernels";
    VKINFER_REQUIRE_GPU();
    std::vector<NamedTensor> inputs{{"a", rnd(c.a, c.what + "a")}};
    if (c.bInput) inputs.push_back({"b", rnd(c.b, c.what + "b")});
    expectEmulatedAndNativeMatchCpu(b, inputs, c.what);
}

INSTANTIATE_TEST_SUITE_P(Gemm, CoopmatGemmRuns, ::testing::Range<size_t>(0, 14),
                         [](const auto& info) { return "case" + std::to_string(info.param); });

// The range above once stopped two cases short of the table, which then never ran.
TEST(CoopmatGemmTable, EveryCaseIsInstantiated) { EXPECT_EQ(gemmCases().size(), 14u); }

TEST(CoopmatSelection, GemmKeepsPortableKernelsForThinProducts) {
    const DeviceDescription h200 = h200Description();
    // A batch-1 classifier (1 x 1280 by 1280 x 1000): one row, memory-bound: portable kernel.
    GemmCase classifier{"classifier", {1, 1280}, {1280, 1000}};
    auto k = planKernels(gemmModel(classifier), {{"a", classifier.a}}, h200);
    auto gemm = std::find_if(k.begin(), k.end(), [](const std::string& name) { return name.rfind("gemm", 0) == 0; });
    ASSERT_NE(gemm, k.end());
    EXPECT_EQ(gemm->rfind("gemm_t16x128", 0), 0u) << *gemm;
    GemmCase big{"big", {2048, 2048}, {2048, 2048}};  // 256 tiles: no split; tiles fill it
    k = planKernels(gemmModel(big), {{"a", big.a}}, h200);
    EXPECT_NE(std::find(k.begin(), k.end(), "gemm_cm128_clamped_k64_nv"), k.end());
    GemmCase ragged{"ragged", {2000, 2048}, {2048, 2048}};  // the last row tile is partial: clamped
    k = planKernels(gemmModel(ragged), {{"a", ragged.a}}, h200);
    EXPECT_NE(std::find(k.begin(), k.end(), "gemm_cm128_clamped_k64_nv"), k.end());
    GemmCase slices32{"K of 2016", {2000, 2016}, {2016, 2048}};  // whole slices of 32, not of 64
    k = planKernels(gemmModel(slices32), {{"a", slices32.a}}, h200);
    EXPECT_NE(std::find(k.begin(), k.end(), "gemm_cm128_clamped_nv"), k.end());
    GemmCase shortSlice{"K of 2040", {2000, 2040}, {2040, 2048}};  // the last K slice is partial: checked
    k = planKernels(gemmModel(shortSlice), {{"a", shortSlice.a}}, h200);
    EXPECT_NE(std::find(k.begin(), k.end(), "gemm_cm128_va_vb_nv"), k.end());
    // ViT-B/16's out-projection: 48 tiles of 64 x 64, split in chunks of 256: slices of 128.
    GemmCase vitOut{"197 x 768 x 768", {197, 768}, {768, 768}};
    k = planKernels(gemmModel(vitOut), {{"a", vitOut.a}}, h200);
    EXPECT_NE(std::find(k.begin(), k.end(), "gemm_cm64_clamped_k128_splitk_nv"), k.end());
}

// ---- Channels-last activations between tensor-core convs (ops/conv/layout.h) ----

struct ChainConv {
    std::string in, out;
    int64_t c, m, k = 3, stride = 1, group = 1, dilation = 1;
    std::string residual;  // added (fused) before the relu
    bool relu = true;
};

OnnxBuilder chainModel(const std::string& what, const Shape& x, const std::vector<ChainConv>& convs,
                       const std::string& tail = "") {
    OnnxBuilder b;
    b.input("x", x).output("y");
    for (const auto& c : convs) {
        b.initializer(c.out + "_w", rnd({c.m, c.c / c.group, c.k, c.k}, what + c.out + "w"));
        b.initializer(c.out + "_b", rnd({c.m}, what + c.out + "b"));
        bool post = c.relu || !c.residual.empty();
        auto& n = b.node("Conv", {c.in, c.out + "_w", c.out + "_b"}, {post ? c.out + "_conv" : c.out}, c.out);
        int64_t pad = c.k / 2 * c.dilation;
        attr(n, "pads", std::vector<int64_t>{pad, pad, pad, pad});
        attr(n, "strides", std::vector<int64_t>{c.stride, c.stride});
        if (c.dilation != 1) attr(n, "dilations", std::vector<int64_t>{c.dilation, c.dilation});
        if (c.group != 1) attr(n, "group", c.group);
        std::string v = c.out + "_conv";
        if (!c.residual.empty()) {
            b.node("Add", {v, c.residual}, {c.relu ? c.out + "_sum" : c.out});
            v = c.out + "_sum";
        }
        if (c.relu) b.node("Relu", {v}, {c.out});
    }
    if (!tail.empty()) b.node(tail, {convs.back().out}, {"y"});
    return b;
}

// A basic block and a bottleneck: the stem reads the NCHW graph input, the inner convs
// exchange NHWC (3x3, 1x1, strided, dilated, grouped, a residual shared by two readers),
// the last writes the NCHW graph output.
std::vector<ChainConv> residualChain() {
    return {
        {"x", "a", 16, 32},
        {"a", "b", 32, 32},
        {"b", "c", 32, 32, 1, 1, 1, 1, "a"},
        {"c", "d", 32, 48, 3, 2},
        {"d", "e", 48, 48, 3, 1, 2, 2},
        {"e", "y", 48, 40, 1, 1, 1, 1, "", false},
    };
}

// An H200 whose narrow few-tiles convs stay on the tensor cores: these small maps would go to
// conv2d_small in float16 (small_grid_conv_test.cpp), and the layout planner is what is tested.
DeviceDescription tensorCoresForSmallMaps() {
    DeviceDescription d = h200Description();
    d.kernels.smallGridConv = SmallGridConv::Off;
    return d;
}

TEST(CoopmatLayout, ConvChainsExchangeChannelsLastAndGraphEdgesStayNchw) {
    const Shape x{1, 16, 12, 12};
    const DeviceDescription h200 = tensorCoresForSmallMaps();
    auto k = planKernels(chainModel("chain", x, residualChain()), {{"x", x}}, h200);
    std::vector<std::string> conv;
    for (const auto& name : k)
        if (name.rfind("conv", 0) == 0) conv.push_back(name);
    // 12x12 and 6x6 maps are one pixel tile each, so the deeper ones split their reduction.
    ASSERT_GE(conv.size(), 6u);
    EXPECT_EQ(conv[0].find("_nhwc"), std::string::npos) << "the stem reads the NCHW graph input: " << conv[0];
    size_t nhwc = 0;
    for (const auto& name : conv) nhwc += name.find("_nhwc") != std::string::npos;
    EXPECT_EQ(nhwc, 5u) << "every conv after the stem reads channels-last";

    // A consumer that is not a tensor-core conv keeps its input NCHW: here an Abs after the
    // chain, and a conv over 20 channels (not a multiple of 8) in the middle. Global pooling
    // reads channels-last: the chain's last conv then writes NHWC too.
    auto tailed = residualChain();
    tailed.back().out = "z";
    auto nhwcConvs = [](const std::vector<std::string>& kernels) {
        return std::count_if(kernels.begin(), kernels.end(),
                             [](const std::string& name) { return name.find("_nhwc") != std::string::npos; });
    };
    auto stored = [&](const std::string& tail) {
        const json plan = planReport(chainModel(tail, x, tailed, tail), {{"x", x}}, h200);
        return plan.is_null() ? std::vector<std::string>{} : plan["channels_last"].get<std::vector<std::string>>();
    };
    auto has = [](const std::vector<std::string>& names, const std::string& name) {
        return std::find(names.begin(), names.end(), name) != names.end();
    };
    EXPECT_EQ(nhwcConvs(planKernels(chainModel("abs", x, tailed, "Abs"), {{"x", x}}, h200)), 5);
    EXPECT_FALSE(has(stored("Abs"), "z"));
    EXPECT_TRUE(has(stored("Abs"), "e"));
    EXPECT_TRUE(has(stored("GlobalAveragePool"), "z"));
    EXPECT_TRUE(has(stored("GlobalMaxPool"), "z"));
    std::vector<ChainConv> odd{{"x", "a", 16, 20}, {"a", "y", 20, 32}};
    for (const auto& name : planKernels(chainModel("odd", x, odd), {{"x", x}}, h200))
        EXPECT_EQ(name.find("_nhwc"), std::string::npos) << name;
    // A stem with a reduction too short for the tensor cores (3 channels x 3x3) runs on the
    // portable tiles (conv2d.comp) and still writes channels-last for the tensor-core convs
    // after it.
    std::vector<ChainConv> stem{{"x", "a", 3, 16}, {"a", "b", 16, 32}, {"b", "y", 32, 16}};
    const Shape x3{1, 3, 12, 12};
    auto stemKernels = planKernels(chainModel("stem", x3, stem), {{"x", x3}}, h200);
    auto firstConv = std::find_if(stemKernels.begin(), stemKernels.end(),
                                  [](const std::string& name) { return name.rfind("conv", 0) == 0; });
    ASSERT_NE(firstConv, stemKernels.end());
    EXPECT_EQ(firstConv->rfind("conv2d_t", 0), 0u) << *firstConv;
    EXPECT_EQ(std::count_if(stemKernels.begin(), stemKernels.end(),
                            [](const std::string& name) { return name.find("_nhwc") != std::string::npos; }),
              2);
    // Lavapipe-like devices have no tensor cores, so nothing changes layout.
    DeviceDescription none;
    for (const auto& name : planKernels(chainModel("none", x, residualChain()), {{"x", x}}, none))
        EXPECT_EQ(name.find("_nhwc"), std::string::npos) << name;
}

TEST(CoopmatLayout, ChannelsLastChainsMatchCpuReference) {
    VKINFER_REQUIRE_GPU();
    {
        const Shape x{1, 16, 12, 12};
        OnnxBuilder b = chainModel("chain", x, residualChain());
        expectEmulatedAndNativeMatchCpu(b, {{"x", rnd(x, "chain x")}}, "residual chain 12x12");
    }
    {
        // Batch 2 and maps that do not fill a pixel tile evenly.
        const Shape x{2, 16, 9, 7};
        OnnxBuilder b = chainModel("batch", x, residualChain());
        expectEmulatedAndNativeMatchCpu(b, {{"x", rnd(x, "batch x")}}, "residual chain batch 2");
        // ... ending in global pooling of the channels-last output, average and max.
        for (const char* pool : {"GlobalAveragePool", "GlobalMaxPool"}) {
            auto tailed = residualChain();
            tailed.back().out = "z";
            expectEmulatedAndNativeMatchCpu(chainModel(pool, x, tailed, pool), {{"x", rnd(x, "pooled x")}},
                                            std::string("residual chain into ") + pool);
        }
    }
    {
        // The tiled kernel writing channels-last: a 3-channel stem, and a conv whose weights
        // are a graph input (no tensor cores: they are packed at plan time) with split-K.
        const Shape x{1, 3, 12, 12};
        std::vector<ChainConv> stem{{"x", "a", 3, 16}, {"a", "b", 16, 32}, {"b", "y", 32, 16}};
        expectEmulatedAndNativeMatchCpu(chainModel("stem", x, stem), {{"x", rnd(x, "stem x")}}, "tiled stem");

        OnnxBuilder b;
        b.input("x", {1, 32, 6, 6}).input("w", {64, 32, 3, 3}).output("y");
        attr(b.node("Conv", {"x", "w"}, {"a"}, "a"), "pads", std::vector<int64_t>{1, 1, 1, 1});
        b.initializer("w2", rnd({32, 64, 3, 3}, "w2")).initializer("b2", rnd({32}, "b2"));
        attr(b.node("Conv", {"a", "w2", "b2"}, {"y"}, "y"), "pads", std::vector<int64_t>{1, 1, 1, 1});
        std::vector<NamedTensor> in{{"x", rnd({1, 32, 6, 6}, "dyn x")}, {"w", rnd({64, 32, 3, 3}, "dyn w")}};
        auto k = planKernels(b, {{"x", {1, 32, 6, 6}}, {"w", {64, 32, 3, 3}}}, emulated());
        EXPECT_NE(std::find(k.begin(), k.end(), "conv2d_t64x64_splitk_f16"), k.end());
        EXPECT_NE(std::find(k.begin(), k.end(), "conv2d_cm32_nhwc_splitk_emu"), k.end());
        expectEmulatedAndNativeMatchCpu(b, in, "tiled split-K writing channels-last");
    }
    {
        // Split-K in channels-last: 256 channels at 4x4 (partial sums [split][pixel][channel]).
        const Shape x{1, 32, 4, 4};
        std::vector<ChainConv> deep{{"x", "a", 32, 256}, {"a", "b", 256, 256, 3, 1, 1, 1, "a"}, {"b", "y", 256, 64}};
        OnnxBuilder b = chainModel("deep", x, deep);
        auto k = planKernels(b, {{"x", x}}, emulated());
        EXPECT_NE(std::find(k.begin(), k.end(), "conv2d_cm64_nhwc_splitk_emu"), k.end());
        expectEmulatedAndNativeMatchCpu(b, {{"x", rnd(x, "deep x")}}, "split-K chain");
    }
}

TEST(CoopmatConv, NativeKernelsRunWhereTheDeviceHasThem) {
    VKINFER_REQUIRE_GPU();
    const DeviceInfo& dev = gpuContext().device();
    if (!(dev.cooperativeMatrix16x16x16 && dev.subgroupSize == 32))
        GTEST_SKIP() << "device '" << dev.name
                     << "' has no 16x16x16 float16 cooperative matrices with 32-wide subgroups: the NV kernels are "
                        "tested on the GPU machine (docs/BENCHMARKS.md); the emulated ones ran above";
    // The session describes its device as the H200 description above does, so its plan takes
    // the tensor-core kernel that description selects.
    const DeviceDescription h200 = h200Description();
    ConvCase big{"big", {1, 64, 144, 144}, 64, 3};
    OnnxBuilder b = convModel(big);
    std::vector<NamedTensor> in{{"x", Tensor(DataType::Float32, big.x)}};
    auto described = convKernels(b, in, h200);
    ASSERT_EQ(described, std::vector<std::string>{"conv2d_cmd64x64_nv"});
    auto model = b.build();
    SessionOptions o;
    o.precision = Precision::Float16;
    auto s = Session::create(gpuContext(), *model, o);
    ASSERT_TRUE(s.ok());
    auto j = s->planJson({{"x", big.x}});
    ASSERT_TRUE(j.ok());
    EXPECT_NE(j->find("\"conv2d_cmd64x64_nv\""), std::string::npos);
    expectGpuMatchesCpuWith(b, in, "144x144x64 (tensor cores)", coopmatTolerance(), o);
}

}  // namespace
}  // namespace vkinfer::testing
