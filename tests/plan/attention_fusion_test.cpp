// The attention fusion (passes/attention_fusion.h) on synthetic attention blocks, with no GPU:
// dispatch counts with the fusion and without it (KernelPolicy::fuseAttention), the fused
// node's inputs, what it leaves alone, and that the fused graph computes what the unfused
// one does (the CPU reference of vkinfer.Attention against the unfused nodes; the kernel
// against the CPU is tests/ops/attention_fusion_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ops/attention.h"
#include "plan/fusion_test_util.h"
#include "support/attention_models.h"
#include "support/onnx_builder.h"

namespace vkinfer::plan {
namespace {

using testing::AttentionBlock;
using testing::OnnxBuilder;

using testutil::Counts;

CompiledPlan compileWith(const OnnxBuilder& b, bool fuse, Precision precision = Precision::Float32) {
    return testutil::compileWith(b, &KernelPolicy::fuseAttention, fuse, precision);
}

std::vector<const graph::Node*> attentionNodes(const CompiledPlan& p) {
    std::vector<const graph::Node*> r;
    for (const auto& n : p.graph.nodes)
        if (!n.removed && n.opType == ops::kAttentionOpType) r.push_back(&n);
    return r;
}

Counts counts(const OnnxBuilder& b, const std::string& what) {
    return testutil::counts(b, what, &KernelPolicy::fuseAttention);
}

// The fused graph run on the CPU against the unfused model on the CPU.
void expectFusedGraphComputesTheSame(const OnnxBuilder& b, const std::vector<NamedTensor>& inputs) {
    const CompiledPlan p = compileWith(b, true);
    ASSERT_EQ(attentionNodes(p).size(), 1u);
    testutil::expectComputesTheSame(b, p.graph, inputs, 1e-5, 1e-4);
}

TEST(AttentionFusion, VitBlockIsTwoDispatches) {
    AttentionBlock a;
    std::vector<NamedTensor> in;
    const OnnxBuilder b = testing::attentionModel(a, &in);
    const Counts c = counts(b, "ViT attention 197x6x64");
    // Unfused: projection, q.k (scales and head splits folded into it), Softmax, p.v (the head
    // merge folded into its stores). Fused: projection, attention.
    EXPECT_EQ(c.unfused, 4u);
    EXPECT_EQ(c.fused, 2u);
    const CompiledPlan p = compileWith(b, true);
    const auto nodes = attentionNodes(p);
    ASSERT_EQ(nodes.size(), 1u);
    EXPECT_EQ(nodes[0]->inputs.size(), 3u);  // q, k and v: three windows of the one projection
    EXPECT_EQ(nodes[0]->inputs[0], nodes[0]->inputs[1]);
    EXPECT_EQ(nodes[0]->inputs[0], nodes[0]->inputs[2]);
    EXPECT_NEAR(nodes[0]->attrFloat("scale", 0), 0.125f, 1e-6);
}

TEST(AttentionFusion, SwinBlockWithBiasAndMaskIsTwoDispatches) {
    AttentionBlock a;
    a.batch = 2, a.windows = 4, a.heads = 3, a.seq = 49, a.headDim = 32;
    a.scale = AttentionBlock::Scale::Q;
    a.bias = a.mask = true;
    std::vector<NamedTensor> in;
    const OnnxBuilder b = testing::attentionModel(a, &in);
    const Counts c = counts(b, "Swin window attention, bias and shifted mask");
    EXPECT_EQ(c.unfused, 6u);  // projection, q.k, bias, mask, Softmax, p.v
    EXPECT_EQ(c.fused, 2u);
    const CompiledPlan p = compileWith(b, true);  // the nodes point into its graph
    const auto nodes = attentionNodes(p);
    ASSERT_EQ(nodes.size(), 1u);
    EXPECT_EQ(nodes[0]->inputs.size(), 5u);  // q, k, v, bias, mask
}

TEST(AttentionFusion, FusedGraphsComputeWhatTheNodesDo) {
    std::vector<AttentionBlock> blocks(5);
    blocks[0].seq = 23, blocks[0].heads = 2, blocks[0].headDim = 8;
    blocks[1] = blocks[0], blocks[1].batch = 2, blocks[1].scale = AttentionBlock::Scale::Scores;
    blocks[2].batch = 2, blocks[2].windows = 3, blocks[2].heads = 2, blocks[2].seq = 49, blocks[2].headDim = 8;
    blocks[2].scale = AttentionBlock::Scale::Q, blocks[2].bias = blocks[2].mask = true;
    blocks[3] = blocks[2], blocks[3].batch = 1, blocks[3].windows = 0, blocks[3].mask = false;  // bias as a residual
    blocks[4].batch = 2, blocks[4].heads = 3, blocks[4].seq = 9, blocks[4].kvSeq = 13, blocks[4].headDim = 5;
    for (size_t i = 0; i < blocks.size(); ++i) {
        SCOPED_TRACE("block " + std::to_string(i));
        std::vector<NamedTensor> in;
        expectFusedGraphComputesTheSame(testing::attentionModel(blocks[i], &in), in);
    }
}

TEST(AttentionFusion, SwitchedOffOrScoresReadElsewhereItLeavesTheNodes) {
    AttentionBlock a;
    a.seq = 20, a.heads = 2, a.headDim = 8;
    std::vector<NamedTensor> in;
    OnnxBuilder b = testing::attentionModel(a, &in);
    EXPECT_TRUE(attentionNodes(compileWith(b, false)).empty());
    b.output("p");  // the probabilities are a graph output: they must be stored
    EXPECT_TRUE(attentionNodes(compileWith(b, true)).empty());
}

TEST(AttentionFusion, SoftmaxOverAnotherAxisIsNotAttention) {
    OnnxBuilder b(17);
    b.input("q", {2, 5, 8}).input("k", {2, 8, 5}).input("v", {2, 5, 8}).output("y");
    b.node("MatMul", {"q", "k"}, {"s"});
    testing::attr(b.node("Softmax", {"s"}, {"p"}), "axis", int64_t{1});
    b.node("MatMul", {"p", "v"}, {"y"});
    EXPECT_TRUE(attentionNodes(compileWith(b, true)).empty());
    // Over the last axis, the same graph fuses (plain operands, no scale).
    OnnxBuilder last(17);
    last.input("q", {2, 5, 8}).input("k", {2, 8, 5}).input("v", {2, 5, 8}).output("y");
    last.node("MatMul", {"q", "k"}, {"s"});
    testing::attr(last.node("Softmax", {"s"}, {"p"}), "axis", int64_t{-1});
    last.node("MatMul", {"p", "v"}, {"y"});
    EXPECT_EQ(attentionNodes(compileWith(last, true)).size(), 1u);
    std::vector<NamedTensor> in{{"q", testing::randomTensor({2, 5, 8}, 1)},
                                {"k", testing::randomTensor({2, 8, 5}, 2)},
                                {"v", testing::randomTensor({2, 5, 8}, 3)}};
    expectFusedGraphComputesTheSame(last, in);
}

}  // namespace
}  // namespace vkinfer::plan
