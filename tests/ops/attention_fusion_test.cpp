// Fused attention (passes/attention_fusion.h, shaders/attention.comp) on the GPU against the
// unfused CPU reference, float32 and float16, and the same models with the fusion off: ViT's
// 197 tokens x 6 heads x 64, Swin's windows with a relative-position bias broadcast over the
// windows and a shifted-window mask, sequence lengths that are not multiples of the kernel's
// query (16) and key (32) blocks, cross-attention, batch 2, head dimension 128 (the smaller
// key block), the scale on q and k, on q, or after the product. Each case also checks the
// plan's dispatch count: the fusion fired (else the comparison would only test the MatMuls).
#include <algorithm>

#include "ops/attention.h"
#include "ops/conv_cases.h"
#include "ops/op_harness.h"
#include "plan/compile.h"
#include "runtime/model_data.h"
#include "support/attention_models.h"

namespace vkinfer::testing {
namespace {

// float16 storage, float32 arithmetic: inputs, projection and output rounded to 11 bits.
const Tolerance kFp16{1e-2, 4e-3, true};

// vkinfer.Attention nodes in the float32 plan (1: the fusion fired).
size_t attentionNodes(const OnnxBuilder& b) {
    auto m = b.build();
    if (!m.ok()) return 0;
    auto shapes = m->resolveShapes({});
    if (!shapes.ok()) return 0;
    const auto p = plan::compilePlan(m->data()->graph, *shapes, PlanOptions{});
    return static_cast<size_t>(std::count_if(p.graph.nodes.begin(), p.graph.nodes.end(), [](const graph::Node& n) {
        return !n.removed && n.opType == ops::kAttentionOpType;
    }));
}

// The in-projection(s) and the attention: the head splits and merges are strides (where the
// projection's GEMM takes split-K, its reduce is one more).
int64_t fusedDispatches(const AttentionBlock& a) { return a.kvSeq > 0 ? 3 : 2; }

void expectAttention(const AttentionBlock& a, const std::string& what) {
    SCOPED_TRACE(what);
    std::vector<NamedTensor> in;
    const OnnxBuilder b = attentionModel(a, &in);
    EXPECT_EQ(attentionNodes(b), 1u) << what;
    EXPECT_LE(planDispatches(b, in), fusedDispatches(a) + 1) << what;
    expectGpuMatchesCpu(b, in, what);
    expectGpuMatchesCpu(b, in, what + " fp16", kFp16, Precision::Float16);
    SessionOptions off;
    off.kernels.fuseAttention = false;
    expectGpuMatchesCpuWith(b, in, what + " unfused", opTolerance(), off);
}

// Swin's shifted windows: 2 images x 4 windows of 49 tokens, 3 heads of 32, the scale on q, a
// relative-position bias and the shifted-window mask.
AttentionBlock shiftedSwinWindows() {
    AttentionBlock a;
    a.batch = 2, a.windows = 4, a.heads = 3, a.seq = 49, a.headDim = 32;
    a.scale = AttentionBlock::Scale::Q;
    a.bias = true;
    a.mask = true;
    a.seed = 11;
    return a;
}

TEST(AttentionFusionOp, VitTokens) {
    VKINFER_REQUIRE_GPU();
    AttentionBlock a;  // 197 tokens, 6 heads of 64, scale on q and k
    expectAttention(a, "ViT 197x6x64");
}

TEST(AttentionFusionOp, VitBatch2ScaleAfterProduct) {
    VKINFER_REQUIRE_GPU();
    AttentionBlock a;
    a.batch = 2;
    a.scale = AttentionBlock::Scale::Scores;
    a.seed = 7;
    expectAttention(a, "ViT batch 2, scores / sqrt(d)");
}

TEST(AttentionFusionOp, SwinWindowsBiasAndShiftedMask) {
    VKINFER_REQUIRE_GPU();
    AttentionBlock a = shiftedSwinWindows();
    expectAttention(a, "Swin 2 images x 4 windows, bias and mask");
    a.mask = false;  // (an unshifted block: the bias alone)
    expectAttention(a, "Swin 2 images x 4 windows, bias");
}

// Swin V2's cosine attention: q and k normalized, the scores scaled per head (moved onto q's
// normalization: passes::moveBatchScaleToOperand), the bias and the shifted mask.
TEST(AttentionFusionOp, SwinV2CosineAttentionScaledPerHead) {
    VKINFER_REQUIRE_GPU();
    AttentionBlock a = shiftedSwinWindows();
    a.scale = AttentionBlock::Scale::CosinePerHead;
    a.seed = 13;
    SCOPED_TRACE("Swin V2 cosine attention");
    std::vector<NamedTensor> in;
    const OnnxBuilder b = attentionModel(a, &in);
    EXPECT_EQ(attentionNodes(b), 1u);
    expectGpuMatchesCpu(b, in, "Swin V2 cosine attention");
    expectGpuMatchesCpu(b, in, "Swin V2 cosine attention fp16", kFp16, Precision::Float16);
}

TEST(AttentionFusionOp, OneWindowBiasAsResidual) {
    VKINFER_REQUIRE_GPU();
    // One window: the bias has the scores' shape, so the residual fusion takes it into the
    // first MatMul; the attention fusion takes it from there.
    AttentionBlock a;
    a.heads = 2, a.seq = 49, a.headDim = 16;
    a.scale = AttentionBlock::Scale::Q;
    a.bias = true;
    a.seed = 13;
    expectAttention(a, "one window, bias");
}

TEST(AttentionFusionOp, LengthsOffTheBlocks) {
    VKINFER_REQUIRE_GPU();
    for (int64_t s : {1, 15, 17, 33, 50}) {
        AttentionBlock a;
        a.heads = 2, a.seq = s, a.headDim = 24;
        a.seed = static_cast<uint32_t>(20 + s);
        expectAttention(a, "self-attention over " + std::to_string(s) + " tokens");
    }
    AttentionBlock cross;
    cross.batch = 2, cross.heads = 3, cross.seq = 37, cross.kvSeq = 45, cross.headDim = 40;
    cross.seed = 31;
    expectAttention(cross, "cross-attention 37 queries x 45 keys");
}

TEST(AttentionFusionOp, HeadDimension128) {
    VKINFER_REQUIRE_GPU();
    AttentionBlock a;
    a.heads = 2, a.seq = 70, a.headDim = 128;
    a.seed = 41;
    expectAttention(a, "2 heads of 128 over 70 tokens");
}

// The tensor-core kernel (shaders/attention_cm.comp) with its matrix operations emulated, as
// lavapipe runs it (no device here has cooperative matrices but the GPU machine): fp16
// against the CPU, in both sync modes, on the variant the plan names (so the comparison is
// not of the portable kernel). 32 KiB of shared memory, as lavapipe has. keyGroups: the key
// groups of one warp each the plan must take with KernelPolicy::attentionKeySplit
// (ops/attention_select.h); 0: that policy off, two warps or one.
void expectCoopmatAttention(const AttentionBlock& a, const std::string& kernel, const std::string& what,
                            uint32_t keyGroups = 0) {
    SCOPED_TRACE(what);
    std::vector<NamedTensor> in;
    const OnnxBuilder b = attentionModel(a, &in);
    DeviceDescription dev;
    dev.facts.sharedMemoryBytes = 32 * 1024;
    dev.kernels.emulateCooperativeMatrix = true;
    dev.kernels.attentionKernel = AttentionKernel::Coopmat;  // also the heads Auto leaves on the portable kernel
    dev.kernels.attentionKeySplit = keyGroups > 0;
    InputShapes shapes;
    for (const auto& t : in) shapes.emplace_back(t.name, t.tensor.shape());
    const nlohmann::json plan = planReport(b, shapes, dev, Precision::Float16);
    ASSERT_FALSE(plan.is_null());
    const auto& schedule = plan["schedule"];
    const auto on = std::find_if(schedule.begin(), schedule.end(), [&](const auto& d) { return d["kernel"] == kernel; });
    ASSERT_NE(on, schedule.end()) << what << ": not on " << kernel;
    const uint32_t invocations = (*on)["local_size"][0];
    if (keyGroups > 0)
        EXPECT_EQ(invocations, 32 * keyGroups) << what << ": not in " << keyGroups << " key groups";
    else
        EXPECT_LE(invocations, 64u) << what << ": split between key groups";
    SessionOptions o;
    o.precision = Precision::Float16;
    o.kernels.emulateCooperativeMatrix = true;
    o.kernels.attentionKernel = AttentionKernel::Coopmat;
    o.kernels.attentionKeySplit = keyGroups > 0;
    expectGpuMatchesCpuWith(b, in, what + " on " + kernel, kFp16, o);
}

TEST(AttentionCoopmatOp, VitTokens) {
    VKINFER_REQUIRE_GPU();
    AttentionBlock a;  // 197 tokens: 7 row blocks of 32, 7 key blocks of 32 (the last of 5)
    a.heads = 2;
    expectCoopmatAttention(a, "attention_cm_dv64_emu", "ViT 197x2x64");
}

// Long key sequences over few query rows: the keys split between groups of warps that combine
// their softmax sums at the end (shaders/attention_cm.comp's KSPLIT), with the blocks dividing
// evenly or not, a partial last block, masks and biases, and cross-attention with few queries.
TEST(AttentionCoopmatOp, KeysSplitBetweenWarpGroups) {
    VKINFER_REQUIRE_GPU();
    // ViT's 197 tokens: 7 key blocks split between two groups of four rounds: the second
    // group's last block lies past the keys (all masked).
    AttentionBlock vit;
    vit.heads = 2;
    expectCoopmatAttention(vit, "attention_cm_dv64_emu", "ViT 197x2x64", 2);
    AttentionBlock four;  // 8 blocks of keys (the last of 26) in four groups of two rounds
    four.heads = 1, four.seq = 250, four.headDim = 32;
    four.seed = 81;
    expectCoopmatAttention(four, "attention_cm_dv32_emu", "250 tokens x 32", 4);
    AttentionBlock windows = shiftedSwinWindows();  // 144-token windows: 5 blocks in two groups
    windows.batch = 1, windows.windows = 2, windows.heads = 2, windows.seq = 144;
    windows.seed = 83;
    expectCoopmatAttention(windows, "attention_cm_dv32_emu", "2 windows of 144, bias and shifted mask", 2);
    AttentionBlock cross;  // 10 blocks in four groups of three rounds: two blocks past the keys
    cross.heads = 2, cross.seq = 8, cross.kvSeq = 300, cross.headDim = 16;
    cross.seed = 85;
    expectCoopmatAttention(cross, "attention_cm_dv16_emu", "8 queries over 300 keys x 16", 4);
}

TEST(AttentionCoopmatOp, SwinWindowsBiasAndShiftedMask) {
    VKINFER_REQUIRE_GPU();
    AttentionBlock a = shiftedSwinWindows();
    expectCoopmatAttention(a, "attention_cm_dv32_emu", "Swin 2 images x 4 windows, bias and mask");
}

TEST(AttentionCoopmatOp, HeadDimensionsOffTheFragments) {
    VKINFER_REQUIRE_GPU();
    // Head dimensions that are not multiples of 16 (zero-padded in shared memory), sequence
    // lengths off the 16-row and 32-key blocks, one query.
    for (int64_t s : {1, 17, 50}) {
        AttentionBlock a;
        a.heads = 2, a.seq = s, a.headDim = 24;
        a.seed = static_cast<uint32_t>(60 + s);
        expectCoopmatAttention(a, "attention_cm_dv32_emu", std::to_string(s) + " tokens x 24");
    }
    AttentionBlock odd;  // heads of 20: k and v gathered element by element, not in words
    odd.heads = 2, odd.seq = 45, odd.headDim = 20;
    odd.seed = 67;
    expectCoopmatAttention(odd, "attention_cm_dv32_emu", "45 tokens x 20");
    AttentionBlock narrow;
    narrow.heads = 4, narrow.seq = 16, narrow.headDim = 8;  // Swin-small's windows: one fragment
    narrow.seed = 71;
    expectCoopmatAttention(narrow, "attention_cm_dv16_emu", "16 tokens x 8");
    AttentionBlock cross;
    cross.batch = 2, cross.heads = 3, cross.seq = 37, cross.kvSeq = 45, cross.headDim = 40;
    cross.seed = 31;
    expectCoopmatAttention(cross, "attention_cm_dv64_emu", "cross-attention 37 queries x 45 keys x 40");
}

TEST(AttentionCoopmatOp, HeadDimension128) {
    VKINFER_REQUIRE_GPU();
    AttentionBlock a;  // two warps per workgroup in lavapipe's 32 KiB
    a.heads = 2, a.seq = 70, a.headDim = 128;
    a.seed = 41;
    expectCoopmatAttention(a, "attention_cm_dv128_emu", "2 heads of 128 over 70 tokens");
}

}  // namespace
}  // namespace vkinfer::testing
