// Kernel selection as data, per target (IREE keeps per-target kernel configs the same way):
// geometries x device descriptions -> the family, tile and split that ops::selectConv and
// ops::selectGemm choose, with no GPU. The descriptions: the H200 (a GPU with tensor cores),
// lavapipe (a CPU implementation), a GPU without cooperative matrices and one without float16
// arithmetic (float32 only: sessions refuse float16 plans there). A change of rule shows up
// here as a changed cell, to be checked against docs/BENCHMARKS.md before it is accepted.
#include <gtest/gtest.h>

#include <string>

#include "ops/attention_select.h"
#include "ops/conv/select.h"
#include "ops/conv/transpose_tile.h"
#include "ops/gemm/select.h"
#include "ops/normalization.h"

namespace vkinfer::ops {
namespace {

// A square-kernel conv with "same" padding.
ConvGeom geom(int64_t n, int64_t c, int64_t h, int64_t w, int64_t m, int64_t k, int64_t stride = 1, int64_t groups = 1) {
    ConvGeom g{};
    g.N = n, g.C = c, g.H = h, g.W = w, g.M = m, g.KH = g.KW = k, g.SH = g.SW = stride, g.DH = g.DW = 1;
    g.padT = g.padL = g.padB = g.padR = k / 2;
    g.groups = groups;
    g.OH = (h + 2 * (k / 2) - k) / stride + 1;
    g.OW = (w + 2 * (k / 2) - k) / stride + 1;
    return g;
}

std::string describe(const ConvChoice& c) {
    std::string s = convKernelName(c.kernel);
    auto tile = [](int64_t a, int64_t b) { return " " + std::to_string(a) + "x" + std::to_string(b); };
    switch (c.kernel) {
        case ConvKernel::Portable: s += tile(c.portable.bm, c.portable.bn); break;
        case ConvKernel::Depthwise: break;
        case ConvKernel::SmallGrid: s += " " + std::to_string(c.smallGrid.pixels) + "px"; break;
        case ConvKernel::RegisterTiled:
            s += tile(c.registerTiled.bm, c.registerTiled.bn) + (c.vec4Store ? " quads" : "");
            break;
        case ConvKernel::RegisterDirect: s += " " + std::to_string(c.registerDirect.bm); break;
        case ConvKernel::Coopmat: s += tile(c.coopmat.bm, c.coopmat.bn); break;
        case ConvKernel::CoopmatDirect:
            s += tile(c.coopmatDirect.bm, c.coopmatDirect.warps) + "x" + std::to_string(c.coopmatDirect.tw) +
                 (c.coopmatDirect.narrow ? " narrow" : "");
            break;
    }
    if (c.splits > 1) s += ", split " + std::to_string(c.splits) + " x " + std::to_string(c.kChunk);
    return s;
}

std::string describe(const GemmChoice& c) {
    std::string s = c.kernel == GemmKernel::Coopmat ? "coopmat" : "portable";
    s += " " + std::to_string(c.bm) + "x" + std::to_string(c.bn);
    if (c.wordsA) s += " wordsA";
    if (c.wordsB) s += " wordsB";
    if (c.clampedLoads) s += " clamped";
    if (c.kSlice > 32) s += " k" + std::to_string(c.kSlice);
    return s + " split " + std::to_string(c.splits) + " x " + std::to_string(c.kChunk);
}

DeviceFacts h200() {
    DeviceFacts f;
    f.gpu = true;
    f.cooperativeMatrix16 = true;
    f.subgroupSize = 32;
    f.sharedMemoryBytes = 48 * 1024;
    f.float16Arithmetic = true;
    return f;
}
DeviceFacts lavapipe() {
    DeviceFacts f;
    f.subgroupSize = 8;
    f.sharedMemoryBytes = 32 * 1024;
    f.float16Arithmetic = true;
    return f;
}
DeviceFacts gpuWithoutCoopmat() {
    DeviceFacts f = h200();
    f.cooperativeMatrix16 = false;
    return f;
}
DeviceFacts gpuWithoutFloat16() {
    DeviceFacts f = gpuWithoutCoopmat();
    f.float16Arithmetic = false;
    return f;
}

ConvChoice choose(const ConvGeom& g, DataType type, const DeviceFacts& f, const KernelPolicy& policy = {}) {
    ConvProblem p;
    p.g = g;
    p.type = type;
    return selectConv(p, resolveKernelTarget(f, policy));
}

struct ConvRow {
    const char* what;
    ConvGeom g;
    // H200 fp32, H200 fp16, lavapipe fp32, lavapipe fp16, GPU without tensor cores fp16,
    // GPU without float16 fp32.
    std::array<const char*, 6> expected;
};

const std::vector<ConvRow>& convTable() {
    static const std::vector<ConvRow> rows = {
        {"rgb stem 3->64 7x7/2 224", geom(1, 3, 224, 224, 64, 7, 2),
         {"register-tiled 64x64 quads, split 2 x 80",
          "coopmat 64x128, split 2 x 96",
          "portable 64x64",
          "portable 64x64",
          "register-tiled 64x64 quads, split 2 x 80",
          "register-tiled 64x64 quads, split 2 x 80"}},
        {"espcn stem 3->64 5x5 540x960", geom(1, 3, 540, 960, 64, 5),
         {"register-tiled 64x128 quads",
          "coopmat-direct 32x8x64 narrow",
          "register-direct 64",
          "portable 64x64",
          "register-tiled 64x128 quads",
          "register-tiled 64x128 quads"}},
        {"espcn body 64->32 3x3 540x960", geom(1, 64, 540, 960, 32, 3),
         {"register-direct 32",
          "coopmat-direct 32x4x64",
          "register-direct 32",
          "portable 64x64",
          "register-tiled 32x128 quads",
          "register-direct 32"}},
        {"espcn head 32->12 3x3 540x960", geom(1, 32, 540, 960, 12, 3),
         {"register-direct 16",
          "coopmat-direct 16x8x64",
          "register-direct 16",
          "portable 16x128",
          "register-tiled 16x128 quads",
          "register-direct 16"}},
        {"resnet 64->64 3x3 56", geom(1, 64, 56, 56, 64, 3),
         {"register-tiled 64x64 quads, split 9 x 64",
          "coopmat 64x128, split 9 x 64",
          "register-direct 64",
          "portable 64x64, split 3 x 192",
          "register-tiled 64x64 quads, split 9 x 64",
          "register-tiled 64x64 quads, split 9 x 64"}},
        {"resnet b8 128->128 3x3 28", geom(8, 128, 28, 28, 128, 3),
         {"register-tiled 64x64 quads, split 6 x 192",
          "coopmat-direct 64x4x32",
          "register-direct 64",
          "portable 64x64",
          "register-tiled 64x64 quads, split 6 x 192",
          "register-tiled 64x64 quads, split 6 x 192"}},
        {"resnet 512->512 3x3 7", geom(1, 512, 7, 7, 512, 3),
         {"register-tiled 64x64, split 32 x 144",
          "coopmat 64x128, split 29 x 160",
          "register-direct 64",
          "portable 64x64, split 16 x 288",
          "register-tiled 64x64, split 32 x 144",
          "register-tiled 64x64, split 32 x 144"}},
        {"resnet 256->1024 1x1 14", geom(1, 256, 14, 14, 1024, 1),
         {"register-tiled 64x64 quads, split 4 x 64",
          "coopmat 64x128, split 4 x 64",
          "portable 64x64, split 2 x 128",
          "portable 64x64, split 2 x 128",
          "register-tiled 64x64 quads, split 4 x 64",
          "register-tiled 64x64 quads, split 4 x 64"}},
        {"resnet b8 1024->256 1x1 14", geom(8, 1024, 14, 14, 256, 1),
         {"register-tiled 64x64 quads, split 11 x 96",
          "coopmat 64x128, split 5 x 224",
          "portable 64x64",
          "portable 64x64",
          "register-tiled 64x64 quads, split 11 x 96",
          "register-tiled 64x64 quads, split 11 x 96"}},
        {"shufflenet 116->116 1x1 14", geom(1, 116, 14, 14, 116, 1),
         {"small-grid 32px",
          "coopmat 64x128",
          "portable 64x64",
          "portable 64x64",
          "small-grid 32px",
          "small-grid 32px"}},
        {"squeeze-excite 144->6 1x1 1", geom(1, 144, 1, 1, 6, 1),
         {"small-grid 1px",
          "small-grid 1px",
          "portable 16x128",
          "portable 16x128",
          "small-grid 1px",
          "small-grid 1px"}},
        {"depthwise 144 3x3 56", geom(1, 144, 56, 56, 144, 3, 1, 144),
         {"depthwise",
          "depthwise",
          "depthwise",
          "depthwise",
          "depthwise",
          "depthwise"}},
        {"grouped 64->64 g2 3x3 28", geom(1, 64, 28, 28, 64, 3, 1, 2),
         {"small-grid 16px",
          "small-grid 16px",
          "portable 64x64, split 4 x 80",
          "portable 64x64, split 4 x 80",
          "small-grid 16px",
          "small-grid 16px"}},
        {"densenet 128->32 3x3 56", geom(1, 128, 56, 56, 32, 3),
         {"register-tiled 32x64 quads, split 18 x 64",
          "coopmat 32x128, split 9 x 128",
          "register-direct 32",
          "portable 64x64, split 3 x 384",
          "register-tiled 32x64 quads, split 18 x 64",
          "register-tiled 32x64 quads, split 18 x 64"}},
        {"unet 16->16 3x3 128", geom(1, 16, 128, 128, 16, 3),
         {"register-tiled 16x128 quads, split 2 x 72",
          "coopmat 32x128, split 2 x 96",
          "register-direct 16",
          "portable 16x128",
          "register-tiled 16x128 quads, split 2 x 72",
          "register-tiled 16x128 quads, split 2 x 72"}},
    };
    return rows;
}

TEST(ConvSelection, PerDeviceTable) {
    const DataType f32 = DataType::Float32, f16 = DataType::Float16;
    for (const ConvRow& r : convTable()) {
        SCOPED_TRACE(r.what);
        EXPECT_EQ(describe(choose(r.g, f32, h200())), r.expected[0]) << "H200 fp32";
        EXPECT_EQ(describe(choose(r.g, f16, h200())), r.expected[1]) << "H200 fp16";
        EXPECT_EQ(describe(choose(r.g, f32, lavapipe())), r.expected[2]) << "lavapipe fp32";
        EXPECT_EQ(describe(choose(r.g, f16, lavapipe())), r.expected[3]) << "lavapipe fp16";
        EXPECT_EQ(describe(choose(r.g, f16, gpuWithoutCoopmat())), r.expected[4]) << "GPU without tensor cores fp16";
        EXPECT_EQ(describe(choose(r.g, f32, gpuWithoutFloat16())), r.expected[5]) << "GPU without float16 fp32";
    }
}

// The layouts the planner picks never change the kernel (conv/layout.cpp chooses them from
// the kernels of the NCHW problem, so a different answer here would make the two disagree).
TEST(ConvSelection, LayoutsNeverChangeTheKernel) {
    for (const ConvRow& r : convTable()) {
        if (r.g.C % 8 != 0 || r.g.Cg() % 8 != 0) continue;  // only such inputs are ever channels-last
        for (bool in : {false, true})
            for (bool out : {false, true}) {
                ConvProblem p;
                p.g = r.g;
                p.type = DataType::Float16;
                p.inNhwc = in;
                p.outNhwc = out;
                const ConvChoice c = selectConv(p, resolveKernelTarget(h200(), {}));
                EXPECT_EQ(c.kernel, choose(r.g, DataType::Float16, h200()).kernel) << r.what << " in " << in << " out " << out;
            }
    }
}

TEST(ConvSelection, PolicyOverridesTheRules) {
    const ConvGeom espcnBody = geom(1, 64, 540, 960, 32, 3);
    const ConvGeom resnet56 = geom(1, 64, 56, 56, 64, 3);
    const ConvGeom shuffle = geom(1, 116, 14, 14, 116, 1);
    KernelPolicy off, always, small, large, noSmall, noCoopmat, emulate;
    off.directConv = DirectConv::Off;
    always.directConv = DirectConv::Always;
    small.convTiles = ConvTiles::Small;
    large.convTiles = ConvTiles::Large;
    noSmall.smallGridConv = SmallGridConv::Off;
    noCoopmat.cooperativeMatrix = false;
    emulate.emulateCooperativeMatrix = true;
    const DataType f32 = DataType::Float32, f16 = DataType::Float16;
    EXPECT_EQ(choose(espcnBody, f16, h200(), off).kernel, ConvKernel::Coopmat);
    EXPECT_EQ(choose(espcnBody, f32, h200(), off).kernel, ConvKernel::RegisterTiled);
    // ResNet-18's 56x56 layers lose on the direct kernel (too few warps) unless forced.
    EXPECT_EQ(choose(resnet56, f16, h200()).kernel, ConvKernel::Coopmat);
    EXPECT_EQ(choose(resnet56, f16, h200(), always).kernel, ConvKernel::CoopmatDirect);
    EXPECT_EQ(choose(resnet56, f32, h200(), always).kernel, ConvKernel::RegisterDirect);
    // Always also wins over the small-grid rule where the float32 direct kernel can run.
    EXPECT_EQ(choose(geom(1, 64, 7, 7, 64, 3), f32, h200()).kernel, ConvKernel::SmallGrid);
    EXPECT_EQ(choose(geom(1, 64, 7, 7, 64, 3), f32, h200(), always).kernel, ConvKernel::RegisterDirect);
    EXPECT_EQ(choose(espcnBody, f32, h200(), small).kernel, ConvKernel::Portable);
    EXPECT_EQ(choose(shuffle, f32, h200(), small).kernel, ConvKernel::Portable) << "small-grid comes with the GPU tiles";
    EXPECT_EQ(choose(shuffle, f32, lavapipe(), large).kernel, ConvKernel::SmallGrid);
    EXPECT_EQ(choose(shuffle, f32, h200(), noSmall).kernel, ConvKernel::RegisterTiled);
    // FewTiles takes the float32 rule in float16 too: ShuffleNet's 116-channel 1x1 on 14x14
    // goes to the tensor cores by the rule (too wide for conv2d_small there) and to
    // conv2d_small under FewTiles.
    KernelPolicy fewTiles;
    fewTiles.smallGridConv = SmallGridConv::FewTiles;
    EXPECT_EQ(choose(shuffle, f16, h200()).kernel, ConvKernel::Coopmat);
    EXPECT_EQ(choose(shuffle, f16, h200(), fewTiles).kernel, ConvKernel::SmallGrid);
    EXPECT_EQ(choose(espcnBody, f16, h200(), fewTiles).kernel, choose(espcnBody, f16, h200()).kernel)
        << "a layer with many tiles keeps its kernel";
    EXPECT_EQ(choose(espcnBody, f16, h200(), noCoopmat).kernel, ConvKernel::RegisterTiled);
    EXPECT_EQ(choose(espcnBody, f16, lavapipe(), emulate).kernel, ConvKernel::CoopmatDirect);
    // Float16 tensor cores need a 32-wide subgroup.
    DeviceFacts wide = h200();
    wide.subgroupSize = 64;
    EXPECT_EQ(choose(resnet56, f16, wide).kernel, ConvKernel::RegisterTiled);
}

TEST(ConvSelection, WeightsFromAGraphInputKeepThePortableKernels) {
    ConvProblem p;
    p.g = geom(1, 64, 56, 56, 64, 3);
    p.type = DataType::Float16;
    p.constantWeights = false;  // packed at plan time otherwise
    EXPECT_EQ(selectConv(p, resolveKernelTarget(h200(), {})).kernel, ConvKernel::Portable);
    p.type = DataType::Float32;
    EXPECT_EQ(selectConv(p, resolveKernelTarget(h200(), {})).kernel, ConvKernel::Portable);
}

TEST(ConvSelection, FusedDepthToSpaceIsStoredByTheTiledKernelsWithoutSplit) {
    ConvProblem p;
    p.g = geom(1, 32, 64, 64, 12, 3);
    p.shuffle = 2;
    for (DataType type : {DataType::Float32, DataType::Float16}) {
        p.type = type;
        const ConvChoice c = selectConv(p, resolveKernelTarget(h200(), {}));
        EXPECT_TRUE(c.storesShuffled) << convKernelName(c.kernel);
        EXPECT_EQ(c.splits, 1);
    }
    // The portable kernel writes a scratch tensor that a copy shuffles: lavapipe's float16, and
    // its float32 under the portable tiles; its float32 by default takes the register-direct
    // kernel, which stores shuffled.
    p.type = DataType::Float16;
    EXPECT_FALSE(selectConv(p, resolveKernelTarget(lavapipe(), {})).storesShuffled);
    p.type = DataType::Float32;
    KernelPolicy portable;
    portable.convTiles = ConvTiles::Small;
    EXPECT_FALSE(selectConv(p, resolveKernelTarget(lavapipe(), portable)).storesShuffled);
    const ConvChoice cpu = selectConv(p, resolveKernelTarget(lavapipe(), {}));
    EXPECT_EQ(cpu.kernel, ConvKernel::RegisterDirect);
    EXPECT_TRUE(cpu.storesShuffled);
    // Without a fused DepthToSpace nothing is "stored shuffled".
    p.shuffle = 0;
    EXPECT_FALSE(selectConv(p, resolveKernelTarget(h200(), {})).storesShuffled);
}

TEST(ConvSelection, SiblingsSplitForAShareOfTheGpu) {
    ConvProblem p;
    p.g = geom(1, 192, 28, 28, 64, 3);
    p.type = DataType::Float32;
    const KernelTarget t = resolveKernelTarget(h200(), {});
    const ConvChoice alone = selectConv(p, t);
    p.siblings = 4;
    const ConvChoice shared = selectConv(p, t);
    EXPECT_EQ(alone.kernel, shared.kernel);
    EXPECT_GT(alone.splits, shared.splits);
}

// In float16 the narrow few-tiles layers leave the tensor cores for conv2d_small (runs 53 and
// 54 in docs/BENCHMARKS.md), unless parallel branches share their wave or they are wide
// pointwise layers.
TEST(ConvSelection, NarrowFewTilesLayersTakeTheSmallGridInFloat16) {
    const KernelTarget t = resolveKernelTarget(h200(), {});
    ConvProblem p;
    p.type = DataType::Float16;
    p.g = geom(1, 32, 32, 40, 8, 3);  // an RRDB dense-block conv: 8 channels on 32x40
    EXPECT_EQ(selectConv(p, t).kernel, ConvKernel::SmallGrid);
    p.g = geom(1, 32, 12, 16, 32, 3);  // RIFE's 32-channel 3x3 body (on a 48x64 frame)
    EXPECT_EQ(selectConv(p, t).kernel, ConvKernel::SmallGrid);
    p.siblings = 3;  // the same as an Inception branch's 3x3: stays on the tensor cores
    EXPECT_NE(selectConv(p, t).kernel, ConvKernel::SmallGrid);
    p.siblings = 1;
    p.g = geom(1, 192, 28, 28, 64, 1);  // GoogLeNet's 64-channel branch 1x1: 9.6 M multiply-adds
    EXPECT_NE(selectConv(p, t).kernel, ConvKernel::SmallGrid);
    p.g = geom(1, 16, 16, 20, 96, 3);  // too wide for conv2d_small on the tensor cores' device
    EXPECT_NE(selectConv(p, t).kernel, ConvKernel::SmallGrid);
    p.type = DataType::Float32;  // ... in float32 the few-tiles rule alone decides
    EXPECT_EQ(selectConv(p, t).kernel, ConvKernel::SmallGrid);
}

TEST(ConvSelection, ChannelsLastReadersAndWriters) {
    EXPECT_TRUE(readsChannelsLast(ConvKernel::Coopmat));
    EXPECT_TRUE(readsChannelsLast(ConvKernel::CoopmatDirect));
    EXPECT_FALSE(readsChannelsLast(ConvKernel::RegisterTiled));
    EXPECT_TRUE(writesChannelsLast(ConvKernel::RegisterTiled, DataType::Float16));
    EXPECT_TRUE(writesChannelsLast(ConvKernel::Portable, DataType::Float16));
    EXPECT_FALSE(writesChannelsLast(ConvKernel::RegisterTiled, DataType::Float32));
    EXPECT_FALSE(writesChannelsLast(ConvKernel::Depthwise, DataType::Float16));
}

struct GemmRow {
    const char* what;
    int64_t M, N, K, batches;
    // H200 fp32, H200 fp16, lavapipe fp16, GPU without tensor cores fp16.
    std::array<const char*, 4> expected;
};

GemmChoice chooseGemm(const GemmRow& r, DataType type, const DeviceFacts& f) {
    GemmProblem p;  // row-major A [M, K] and B [K, N], batches along `inner`
    p.M = r.M, p.N = r.N, p.K = r.K, p.inner = r.batches;
    p.aInner = r.M * r.K, p.bInner = r.K * r.N;
    p.aM = r.K, p.aK = 1, p.bK = r.N, p.bN = 1;
    return selectGemm(p, type, false, resolveKernelTarget(f, {}));
}

// ConvTranspose: several output channels per invocation only where enough invocations stay
// (FSRCNN's deconvolution at 960x540 and 48x64, the measured pair), never more than a group has.
TEST(ConvTransposeSelection, ChannelsPerInvocation) {
    EXPECT_EQ(convTransposeChannelsPerInvocation(3 * 1080 * 1920, 3), 3);
    EXPECT_EQ(convTransposeChannelsPerInvocation(3 * 96 * 128, 3), 1);
    EXPECT_EQ(convTransposeChannelsPerInvocation(64 * 256 * 256, 64), 4);
    EXPECT_EQ(convTransposeChannelsPerInvocation(64 * 256 * 256, 1), 1);  // depthwise
    // At the threshold: four would leave too few invocations, two do not.
    EXPECT_EQ(convTransposeChannelsPerInvocation(2 * kConvTransposeBlockMinInvocations, 8), 2);
    EXPECT_EQ(convTransposeChannelsPerInvocation(2 * kConvTransposeBlockMinInvocations - 1, 8), 1);
}

TEST(GemmSelection, PerDeviceTable) {
    static const std::vector<GemmRow> rows = {
        {"classifier 1x1000x512", 1, 1000, 512, 1,
         {"portable 16x128 split 8 x 64",
          "portable 16x128 split 8 x 64",
          "portable 16x128 split 8 x 64",
          "portable 16x128 split 8 x 64"}},
        {"classifier b8 8x1000x2048", 8, 1000, 2048, 1,
         {"portable 16x128 split 16 x 128",
          "portable 16x128 split 16 x 128",
          "portable 16x128 split 16 x 128",
          "portable 16x128 split 16 x 128"}},
        // 36 tiles of 128 rows: 144 of 64 x 64 instead, no split, K slices of 128 (the 64 x 64
        // tile's fit 48 KiB).
        {"vit qkv 197x2304x768", 197, 2304, 768, 1,
         {"portable 64x64 split 1 x 768",
          "coopmat 64x64 wordsA wordsB clamped k128 split 1 x 768",
          "portable 64x64 split 1 x 768",
          "portable 64x64 split 1 x 768"}},
        // B's rows of 197 halves are not whole words: checked loads.
        {"attention 12x197x197x64", 197, 197, 64, 12,
         {"portable 64x64 split 1 x 64",
          "coopmat 64x64 wordsA split 1 x 64",
          "portable 64x64 split 1 x 64",
          "portable 64x64 split 1 x 64"}},
        // A small transformer's projections: a reduction of 128 is never split (one dispatch
        // beats two), one of 512 is; fewer than 128 rows take 64-column tiles.
        {"tiny_vit mlp up 65x512x128", 65, 512, 128, 1,
         {"portable 64x64 split 1 x 128",
          "coopmat 64x64 wordsA wordsB clamped k128 split 1 x 128",
          "portable 64x64 split 1 x 128",
          "portable 64x64 split 1 x 128"}},
        {"128 rows, 4 tiles of 128: 64 x 64 128x512x128", 128, 512, 128, 1,
         {"portable 64x64 split 1 x 128",
          "coopmat 64x64 wordsA wordsB clamped k128 split 1 x 128",
          "portable 64x64 split 1 x 128",
          "portable 64x64 split 1 x 128"}},
        {"tiny_vit mlp down 65x128x512", 65, 128, 512, 1,
         {"portable 64x64 split 8 x 64",
          "coopmat 64x64 wordsA wordsB clamped k64 split 8 x 64",
          "portable 64x64 split 8 x 64",
          "portable 64x64 split 8 x 64"}},
        // 128 tiles of 128 x 128 and a long enough reduction: those.
        {"200x8192x768: 128 x 128 tiles", 200, 8192, 768, 1,
         {"portable 64x64 split 1 x 768",
          "coopmat 128x128 wordsA wordsB clamped k64 split 1 x 768",
          "portable 64x64 split 1 x 768",
          "portable 64x64 split 1 x 768"}},
        {"vit batch 8 qkv 1576x2304x768: 234 tiles of 128", 1576, 2304, 768, 1,
         {"portable 64x64 split 1 x 768",
          "coopmat 128x128 wordsA wordsB clamped k64 split 1 x 768",
          "portable 64x64 split 1 x 768",
          "portable 64x64 split 1 x 768"}},
        // A reduction of 96 (Swin-T's first stage) is too short for 128 x 128 tiles
        // (kCoopmatGemm128MinK) and not whole slices of 64: 64 x 64 tiles, slices of 32.
        {"swin stage 1 fc1 3136x384x96", 3136, 384, 96, 1,
         {"portable 64x64 split 1 x 96",
          "coopmat 64x64 wordsA wordsB clamped split 1 x 96",
          "portable 64x64 split 1 x 96",
          "portable 64x64 split 1 x 96"}},
        // 98 tiles of 64 x 64: no split; K slices of 128.
        {"convnext stage 1 fc2 3136x96x384", 3136, 96, 384, 1,
         {"portable 64x64 split 1 x 384",
          "coopmat 64x64 wordsA wordsB clamped k128 split 1 x 384",
          "portable 64x64 split 1 x 384",
          "portable 64x64 split 1 x 384"}},
        {"square 4096", 4096, 4096, 4096, 1,
         {"portable 64x64 split 1 x 4096",
          "coopmat 128x128 wordsA wordsB clamped k64 split 1 x 4096",
          "portable 64x64 split 1 x 4096",
          "portable 64x64 split 1 x 4096"}},
    };
    for (const GemmRow& r : rows) {
        SCOPED_TRACE(r.what);
        EXPECT_EQ(describe(chooseGemm(r, DataType::Float32, h200())), r.expected[0]) << "H200 fp32";
        EXPECT_EQ(describe(chooseGemm(r, DataType::Float16, h200())), r.expected[1]) << "H200 fp16";
        EXPECT_EQ(describe(chooseGemm(r, DataType::Float16, lavapipe())), r.expected[2]) << "lavapipe fp16";
        EXPECT_EQ(describe(chooseGemm(r, DataType::Float16, gpuWithoutCoopmat())), r.expected[3])
            << "GPU without tensor cores fp16";
    }
}

TEST(GemmSelection, ParallelBranchesAreNotSplit) {
    GemmProblem p;
    p.M = 1, p.N = 1000, p.K = 2048, p.aM = 2048, p.aK = 1, p.bK = 1000, p.bN = 1;
    const KernelTarget t = resolveKernelTarget(h200(), {});
    EXPECT_GT(selectGemm(p, DataType::Float32, false, t).splits, 1);
    EXPECT_EQ(selectGemm(p, DataType::Float32, true, t).splits, 1);
}

std::string describe(const AttentionChoice& c) {
    if (!c.coopmat) return "portable";
    return "coopmat " + std::to_string(c.warps) + " warps, d " + std::to_string(c.paddedD) + ", dv " +
           std::to_string(16 * c.outChunks) + (c.keySplit > 1 ? ", keys in " + std::to_string(c.keySplit) : "");
}

AttentionLayout attention(int64_t S, int64_t L, int64_t D, int64_t DV) {
    AttentionLayout l;
    l.S = S, l.L = L, l.D = D, l.DV = DV;
    return l;
}
AttentionLayout batched(AttentionLayout l, int64_t batches) {
    l.batchDims = {1, 1, batches};
    return l;
}

TEST(AttentionSelection, PerDeviceTable) {
    struct Row {
        const char* what;
        AttentionLayout l;
        // H200 fp16, lavapipe fp16 with the tensor cores emulated, H200 fp32, GPU without tensor cores fp16.
        std::array<const char*, 4> expected;
    };
    static const std::vector<Row> rows = {
        // 13 query warps over 7 blocks of keys: split between as many groups of one warp as fit,
        // each taking at least two blocks (three in 48 KiB, two in 32).
        {"ViT-B/16 197 tokens x 64", attention(197, 197, 64, 64),
         {"coopmat 1 warps, d 64, dv 64, keys in 3", "coopmat 1 warps, d 64, dv 64, keys in 2", "portable",
          "portable"}},
        // 12 heads of 8 images: enough query warps (1248) to fill the GPU without a split.
        {"ViT-B/16 batch 8", batched(attention(197, 197, 64, 64), 96),
         {"coopmat 2 warps, d 64, dv 64", "coopmat 2 warps, d 64, dv 64", "portable", "portable"}},
        {"1024 tokens x 32: four groups", attention(1024, 1024, 32, 32),
         {"coopmat 1 warps, d 32, dv 32, keys in 4", "coopmat 1 warps, d 32, dv 32, keys in 4", "portable",
          "portable"}},
        {"1024 tokens x 128: two groups fit 48 KiB, none 32", attention(1024, 1024, 128, 128),
         {"coopmat 1 warps, d 128, dv 128, keys in 2", "coopmat 2 warps, d 128, dv 128", "portable", "portable"}},
        // Three blocks of keys: too short a chain to split.
        {"96 keys", attention(96, 96, 64, 64),
         {"coopmat 2 warps, d 64, dv 64", "coopmat 2 warps, d 64, dv 64", "portable", "portable"}},
        {"Swin-T window 49 x 32", attention(49, 49, 32, 32),
         {"coopmat 2 warps, d 32, dv 32", "coopmat 2 warps, d 32, dv 32", "portable", "portable"}},
        {"SwinIR window 64 x 30", attention(64, 64, 30, 30),
         {"coopmat 2 warps, d 32, dv 32", "coopmat 2 warps, d 32, dv 32", "portable", "portable"}},
        // At most two warps (32 query rows) a workgroup; a head dimension of 40 or 80 rounds v up
        // to 64 or 128.
        {"tiny_vit 17 tokens x 32", attention(17, 17, 32, 32),
         {"coopmat 2 warps, d 32, dv 32", "coopmat 2 warps, d 32, dv 32", "portable", "portable"}},
        {"8 query rows: one warp", attention(8, 40, 32, 32),
         {"coopmat 1 warps, d 32, dv 32", "coopmat 1 warps, d 32, dv 32", "portable", "portable"}},
        {"cross 37 x 45 x 40", attention(37, 45, 40, 40),
         {"coopmat 2 warps, d 48, dv 64", "coopmat 2 warps, d 48, dv 64", "portable", "portable"}},
        // 128 wide: two warps fit lavapipe's 32 KiB too.
        {"heads of 128", attention(70, 70, 128, 128),
         {"coopmat 2 warps, d 128, dv 128", "coopmat 2 warps, d 128, dv 128", "portable", "portable"}},
        {"heads of 160 (over the kernels' 128)", attention(64, 64, 160, 160),
         {"portable", "portable", "portable", "portable"}},
    };
    // The tensor-core kernel asked for (VKINFER_ATTENTION=coopmat): wherever it fits; the keys
    // split between warp groups where they may be (VKINFER_ATTENTION_SPLIT=on).
    KernelPolicy coopmat;
    coopmat.attentionKernel = AttentionKernel::Coopmat;
    coopmat.attentionKeySplit = true;
    KernelPolicy emulate = coopmat;
    emulate.emulateCooperativeMatrix = true;
    for (const Row& r : rows) {
        SCOPED_TRACE(r.what);
        EXPECT_EQ(describe(selectAttention(r.l, DataType::Float16, resolveKernelTarget(h200(), coopmat))),
                  r.expected[0]);
        EXPECT_EQ(describe(selectAttention(r.l, DataType::Float16, resolveKernelTarget(lavapipe(), emulate))),
                  r.expected[1]);
        EXPECT_EQ(describe(selectAttention(r.l, DataType::Float32, resolveKernelTarget(h200(), coopmat))),
                  r.expected[2]);
        EXPECT_EQ(describe(selectAttention(r.l, DataType::Float16, resolveKernelTarget(gpuWithoutCoopmat(), coopmat))),
                  r.expected[3]);
    }
    // The default (Auto): the tensor cores for heads of 16 and more (measured faster with
    // heads of 32), the portable kernel for narrower ones (heads of 8 measured slower) and
    // wherever Portable is asked for; the keys split where they may be unless that is turned off.
    const KernelTarget byDefault = resolveKernelTarget(h200(), {});
    EXPECT_EQ(describe(selectAttention(attention(197, 197, 64, 64), DataType::Float16, byDefault)),
              "coopmat 1 warps, d 64, dv 64, keys in 3");
    KernelPolicy whole;
    whole.attentionKeySplit = false;
    EXPECT_EQ(describe(selectAttention(attention(197, 197, 64, 64), DataType::Float16, resolveKernelTarget(h200(), whole))),
              "coopmat 2 warps, d 64, dv 64");
    EXPECT_EQ(describe(selectAttention(attention(49, 49, 16, 16), DataType::Float16, byDefault)),
              "coopmat 2 warps, d 16, dv 16");
    EXPECT_EQ(describe(selectAttention(attention(64, 64, 8, 8), DataType::Float16, byDefault)), "portable");
    EXPECT_EQ(describe(selectAttention(attention(64, 64, 32, 8), DataType::Float16, byDefault)), "portable")
        << "a narrow value head pads too";
    KernelPolicy portable;
    portable.attentionKernel = AttentionKernel::Portable;
    EXPECT_EQ(describe(selectAttention(attention(197, 197, 64, 64), DataType::Float16,
                                       resolveKernelTarget(h200(), portable))),
              "portable");
    // What the chosen warps declare fits the device's shared memory; one more warp would not
    // (the choice takes as many as fit, up to the query rows' need).
    const AttentionChoice c = selectAttention(attention(70, 70, 128, 128), DataType::Float16,
                                              resolveKernelTarget(lavapipe(), emulate));
    EXPECT_LE(coopmatAttentionSharedBytes(c.warps, 1, c.paddedD, c.outChunks), 32u * 1024);
    EXPECT_GT(coopmatAttentionSharedBytes(c.warps + 1, 1, c.paddedD, c.outChunks), 32u * 1024);
    // The same for the key groups: as many as fit, up to the blocks' need.
    const AttentionChoice groups = selectAttention(attention(1024, 1024, 64, 64), DataType::Float16,
                                                   resolveKernelTarget(lavapipe(), emulate));
    ASSERT_GT(groups.keySplit, 1u);
    EXPECT_LE(coopmatAttentionSharedBytes(1, groups.keySplit, groups.paddedD, groups.outChunks), 32u * 1024);
    EXPECT_GT(coopmatAttentionSharedBytes(1, groups.keySplit + 1, groups.paddedD, groups.outChunks), 32u * 1024);
}

// The portable kernel's key block: the most of 32, 16, 8, 4 that the device's shared memory
// holds (4 x (16 D + block (D + DV) + 16 block + 64) bytes).
TEST(AttentionSelection, PortableKeyBlockFitsTheDevice) {
    DeviceFacts small;  // 16 KiB, what every device has
    const KernelTarget tiny = resolveKernelTarget(small, {});
    auto block = [](const AttentionLayout& l, const KernelTarget& t) {
        return selectAttention(l, DataType::Float32, t).portableKeyBlock;
    };
    EXPECT_EQ(block(attention(197, 197, 64, 64), resolveKernelTarget(lavapipe(), {})), 32u);  // 22784 bytes
    EXPECT_EQ(block(attention(197, 197, 64, 64), tiny), 16u);                                // 13568
    EXPECT_EQ(block(attention(70, 70, 128, 128), resolveKernelTarget(lavapipe(), {})), 16u);  // 25856
    EXPECT_EQ(block(attention(70, 70, 128, 128), tiny), 4u);   // 8: 17152, 4: 12800
    EXPECT_EQ(block(attention(64, 64, 96, 96), tiny), 8u);     // 16: 19712, 8: 13056
    EXPECT_EQ(block(attention(49, 49, 32, 32), tiny), 32u);    // 12544
}

TEST(AttentionSelection, WordLoadsNeedContiguousAlignedRows) {
    const KernelTarget byDefault = resolveKernelTarget(h200(), {});
    // ViT-B/16's k and v as the fused QKV projection leaves them: [197, 3, 12, 64] read per head.
    AttentionLayout vit = attention(197, 197, 64, 64);
    for (auto t : {AttentionLayout::K, AttentionLayout::V}) {
        AttentionStrides& s = vit.tensor[t];
        s.offset = t == AttentionLayout::K ? 768 : 1536, s.batch = {0, 64, 0}, s.row = 2304, s.col = 1;
    }
    AttentionChoice c = selectAttention(vit, DataType::Float16, byDefault);
    EXPECT_TRUE(c.kWords && c.vWords);
    AttentionLayout l = vit;  // k read transposed (a column per key): gathered
    l.tensor[AttentionLayout::K].row = 1, l.tensor[AttentionLayout::K].col = 197;
    c = selectAttention(l, DataType::Float16, byDefault);
    EXPECT_FALSE(c.kWords);
    EXPECT_TRUE(c.vWords);
    l = vit;  // v starting off a word
    l.tensor[AttentionLayout::V].offset = 1540;
    EXPECT_FALSE(selectAttention(l, DataType::Float16, byDefault).vWords);
    l = vit;  // a batch stride off a word
    l.tensor[AttentionLayout::K].batch = {0, 60, 0};
    EXPECT_FALSE(selectAttention(l, DataType::Float16, byDefault).kWords);
    l = attention(50, 50, 20, 20);  // heads of 20: rows are not whole words
    l.tensor[AttentionLayout::K].row = l.tensor[AttentionLayout::V].row = 40;
    c = selectAttention(l, DataType::Float16, byDefault);
    EXPECT_TRUE(c.coopmat);
    EXPECT_FALSE(c.kWords || c.vWords);
}

TEST(NormSelection, FewLongRowsInChunks) {
    EXPECT_EQ(normChunks(4, 160 * 161), 6) << "InstanceNorm over a 160x161 map: chunks of 4 Ki and more";
    EXPECT_EQ(normChunks(1, int64_t{1} << 22), 256) << "at most 256 chunks";
    EXPECT_EQ(normChunks(300, 20000), 4) << "about 1024 workgroups";
    EXPECT_EQ(normChunks(64, 1920 * 1080), 16);
    EXPECT_EQ(normChunks(512, int64_t{1} << 20), 1) << "rows enough to fill the GPU";
    EXPECT_EQ(normChunks(8, 16383), 1) << "rows too short to split";
    EXPECT_EQ(normChunks(200, 16384), 4);
    EXPECT_EQ(normChunks(511, 8192 * 2), 3) << "3 x 511 rows: at least 1024 workgroups";
}

TEST(KernelTarget, PolicyResolvedAgainstTheFacts) {
    KernelTarget t = resolveKernelTarget(h200(), {});
    EXPECT_TRUE(t.cooperativeMatrix && t.registerTiles && t.smallGrid);
    t = resolveKernelTarget(lavapipe(), {});
    EXPECT_FALSE(t.cooperativeMatrix || t.registerTiles || t.smallGrid);
    KernelPolicy p;
    p.cooperativeMatrix = false;
    EXPECT_FALSE(resolveKernelTarget(h200(), p).cooperativeMatrix);
    p.emulateCooperativeMatrix = true;  // emulation needs no device support and no permission
    EXPECT_TRUE(resolveKernelTarget(lavapipe(), p).cooperativeMatrix);
    EXPECT_STREQ(resolveKernelTarget(lavapipe(), p).coopmatSuffix(), "_emu");
    EXPECT_FALSE(resolveKernelTarget(DeviceFacts{}, {}).registerTiles) << "an undescribed device gets no optional kernels";
}

}  // namespace
}  // namespace vkinfer::ops
