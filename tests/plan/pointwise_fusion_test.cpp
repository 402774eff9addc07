// The pointwise fusion (passes/pointwise_fusion.h) on small synthetic graphs, with no GPU:
// dispatch counts with the fusion and without it (KernelPolicy::fusePointwise), which values
// stay materialised, that the fused graph stays acyclic, and that the fused programs compute
// what the unfused nodes do (the CPU interpreter of vkinfer.Pointwise against the unfused CPU
// reference; the kernel against the CPU is tests/ops/pointwise_fusion_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "ops/pointwise.h"
#include "plan/fusion_test_util.h"
#include "support/gpu_context.h"
#include "support/onnx_builder.h"
#include "support/small_models.h"

namespace vkinfer::plan {
namespace {

using testing::attr;
using testing::OnnxBuilder;
using testing::groupNormAsExported;
using testing::layerNormAsWritten;
using testing::randomTensor;

using testutil::Counts;

CompiledPlan compileWith(const OnnxBuilder& b, bool fuse, Precision precision = Precision::Float32) {
    return testutil::compileWith(b, &KernelPolicy::fusePointwise, fuse, precision);
}

Counts counts(const OnnxBuilder& b, const std::string& what) {
    return testutil::counts(b, what, &KernelPolicy::fusePointwise);
}

size_t pointwiseNodes(const CompiledPlan& p) {
    return static_cast<size_t>(std::count_if(p.graph.nodes.begin(), p.graph.nodes.end(), [](const graph::Node& n) {
        return !n.removed && n.opType == ops::kPointwiseOpType;
    }));
}

// The fused graph run on the CPU (the vkinfer.Pointwise interpreter) against the unfused model
// run on the CPU: the same values within float rounding.
void expectFusedGraphComputesTheSame(const OnnxBuilder& b, const std::vector<NamedTensor>& inputs) {
    testutil::expectComputesTheSame(b, compileWith(b, true).graph, inputs, 1e-5, 1e-5);
}

// x * 0.5 * (1 + erf(x / sqrt 2)) as PyTorch's nn.GELU exports before opset 20.
void addErfGelu(OnnxBuilder& b, const std::string& x, const std::string& y) {
    b.initializer(y + "_sqrt2", Tensor::fromVector<float>(DataType::Float32, {}, {std::sqrt(2.0f)}));
    b.initializer(y + "_one", Tensor::fromVector<float>(DataType::Float32, {}, {1.0f}));
    b.initializer(y + "_half", Tensor::fromVector<float>(DataType::Float32, {}, {0.5f}));
    b.node("Div", {x, y + "_sqrt2"}, {y + "_d"});
    b.node("Erf", {y + "_d"}, {y + "_e"});
    b.node("Add", {y + "_e", y + "_one"}, {y + "_p"});
    b.node("Mul", {x, y + "_p"}, {y + "_m"});
    b.node("Mul", {y + "_m", y + "_half"}, {y});
}

TEST(PointwiseFusion, ErfGeluOnAnInputIsOneDispatch) {
    // No producer to take the activation (fuseErfGelu needs one): five dispatches unfused.
    OnnxBuilder b;
    b.input("x", {2, 16, 32}).output("y");
    addErfGelu(b, "x", "y");
    const Counts c = counts(b, "erf Gelu on a graph input");
    EXPECT_EQ(c.unfused, 5u);
    EXPECT_EQ(c.fused, 1u);
    expectFusedGraphComputesTheSame(b, {{"x", randomTensor({2, 16, 32}, 1, -4.0f, 4.0f)}});
}

TEST(PointwiseFusion, ErfGeluAfterATransposeIsTwoDispatches) {
    OnnxBuilder b;
    b.input("x", {2, 16, 32}).output("y");
    attr(b.node("Transpose", {"x"}, {"t"}), "perm", std::vector<int64_t>{0, 2, 1});
    addErfGelu(b, "t", "y");
    const Counts c = counts(b, "Transpose -> erf Gelu");
    EXPECT_EQ(c.unfused, 6u);
    EXPECT_EQ(c.fused, 2u);
}

TEST(PointwiseFusion, BroadcastOperandsBecomeInputsAndScalarsImmediates) {
    OnnxBuilder b;
    b.input("x", {2, 3, 4, 5}).input("r", {2, 3, 4, 5}).output("y");
    b.initializer("gamma", randomTensor({3, 1, 1}, 2)).initializer("beta", randomTensor({1, 1, 5}, 3));
    b.initializer("two", Tensor::fromVector<float>(DataType::Float32, {1}, {2.0f}));
    b.node("Mul", {"x", "gamma"}, {"a"});
    b.node("Add", {"a", "beta"}, {"c"});
    b.node("Pow", {"c", "two"}, {"d"});
    b.node("Sqrt", {"d"}, {"e"});
    b.node("Add", {"e", "r"}, {"f"});
    b.node("Tanh", {"f"}, {"y"});
    const Counts c = counts(b, "Mul Add Pow Sqrt Add Tanh, broadcast");
    EXPECT_EQ(c.unfused, 5u);  // (the Tanh fuses into its Add either way)
    EXPECT_EQ(c.fused, 1u);
    CompiledPlan p = compileWith(b, true);
    ASSERT_EQ(pointwiseNodes(p), 1u);
    for (const auto& n : p.graph.nodes)
        if (!n.removed && n.opType == ops::kPointwiseOpType) {
            EXPECT_EQ(n.inputs.size(), 4u);  // x, gamma, beta, r (2 is an immediate)
            EXPECT_EQ(n.attrInts("steps").size(), 6u);
            EXPECT_EQ(n.attrFloats("immediates"), std::vector<float>{2.0f});
        }
    expectFusedGraphComputesTheSame(b, {{"x", randomTensor({2, 3, 4, 5}, 4)}, {"r", randomTensor({2, 3, 4, 5}, 5)}});
}

TEST(PointwiseFusion, AnIntermediateThatIsAGraphOutputIsStoredToo) {
    OnnxBuilder b;
    b.input("x", {4, 8}).output("a").output("y");
    b.initializer("k", Tensor::fromVector<float>(DataType::Float32, {}, {3.0f}));
    b.node("Add", {"x", "k"}, {"a"});
    b.node("Sigmoid", {"a"}, {"s"});
    b.node("Mul", {"a", "s"}, {"y"});  // (SiLU of an Add with a graph output: not fused into the Add)
    const Counts c = counts(b, "Add (graph output) -> SiLU");
    EXPECT_EQ(c.unfused, 3u);
    EXPECT_EQ(c.fused, 1u);
    CompiledPlan p = compileWith(b, true);
    for (const auto& n : p.graph.nodes) {
        if (!n.removed && n.opType == ops::kPointwiseOpType) {
            EXPECT_EQ(n.outputs.size(), 2u);
        }
    }
    expectFusedGraphComputesTheSame(b, {{"x", randomTensor({4, 8}, 6)}});
}

TEST(PointwiseFusion, AnIntermediateReadOutsideTheGroupIsStored) {
    // a feeds the group and a MatMul: the group stores a and y.
    OnnxBuilder b;
    b.input("x", {8, 8}).output("y").output("z");
    b.node("Relu", {"x"}, {"a"});
    b.node("Neg", {"a"}, {"n"});
    b.node("Exp", {"n"}, {"y"});
    b.node("MatMul", {"a", "x"}, {"z"});
    const Counts c = counts(b, "Relu (read by a MatMul) -> Neg -> Exp");
    EXPECT_EQ(c.unfused, 4u);
    EXPECT_EQ(c.fused, 2u);
    expectFusedGraphComputesTheSame(b, {{"x", randomTensor({8, 8}, 7)}});
}

TEST(PointwiseFusion, GroupsStoringMoreThanTwoValuesAreCutShort) {
    OnnxBuilder b;
    b.input("x", {16}).output("a").output("b").output("c");
    b.node("Relu", {"x"}, {"a"});
    b.node("Exp", {"a"}, {"b"});
    b.node("Neg", {"b"}, {"c"});
    const Counts c = counts(b, "three outputs in a chain");
    EXPECT_EQ(c.unfused, 3u);
    EXPECT_EQ(c.fused, 2u);
    expectFusedGraphComputesTheSame(b, {{"x", randomTensor({16}, 8)}});
}

TEST(PointwiseFusion, AnOperandThatDependsOnTheGroupKeepsTheGraphAcyclic) {
    // b = a * mean(a): the mean is computed from the group's a, so b cannot join a's group.
    OnnxBuilder b(13);
    b.input("x", {4, 8}).output("y");
    b.node("Exp", {"x"}, {"e"});
    b.node("Neg", {"e"}, {"a"});
    attr(b.node("ReduceMean", {"a"}, {"m"}), "axes", std::vector<int64_t>{1});
    b.node("Mul", {"a", "m"}, {"p"});
    b.node("Abs", {"p"}, {"y"});
    const Counts c = counts(b, "group -> ReduceMean -> back into the chain");
    EXPECT_EQ(c.unfused, 5u);
    EXPECT_EQ(c.fused, 3u);  // {Exp, Neg}, ReduceMean, {Mul, Abs}
    expectFusedGraphComputesTheSame(b, {{"x", randomTensor({4, 8}, 9)}});
}

// NAFNet's LayerNorm2d (over channels, axis 1: not a LayerNormalization, one
// vkinfer.ChannelNorm) and its block's SimpleGate and scaled residual, as a TorchScript-era
// exporter writes them.
TEST(PointwiseFusion, NafnetBlockPieces) {
    OnnxBuilder b(13);
    const int64_t C = 8;
    b.input("x", {1, 2 * C, 6, 7}).input("inp", {1, C, 6, 7}).output("y");
    b.initializer("eps", Tensor::fromVector<float>(DataType::Float32, {}, {1e-6f}));
    b.initializer("two", Tensor::fromVector<float>(DataType::Float32, {}, {2.0f}));
    b.initializer("w", randomTensor({1, 2 * C, 1, 1}, 10)).initializer("bias", randomTensor({1, 2 * C, 1, 1}, 11));
    b.initializer("beta", randomTensor({1, C, 1, 1}, 12));
    attr(b.node("ReduceMean", {"x"}, {"mu"}), "axes", std::vector<int64_t>{1});
    b.node("Sub", {"x", "mu"}, {"d"});
    b.node("Pow", {"d", "two"}, {"d2"});
    attr(b.node("ReduceMean", {"d2"}, {"var"}), "axes", std::vector<int64_t>{1});
    b.node("Add", {"var", "eps"}, {"ve"});
    b.node("Sqrt", {"ve"}, {"sd"});
    b.node("Div", {"d", "sd"}, {"n"});
    b.node("Mul", {"n", "w"}, {"nw"});
    b.node("Add", {"nw", "bias"}, {"ln"});
    auto& split = b.node("Split", {"ln"}, {"x1", "x2"});
    attr(split, "axis", int64_t{1});
    b.node("Mul", {"x1", "x2"}, {"g"});  // SimpleGate
    b.node("Mul", {"g", "beta"}, {"gb"});
    b.node("Add", {"inp", "gb"}, {"y"});
    const Counts c = counts(b, "NAFNet LayerNorm2d + SimpleGate + residual");
    EXPECT_EQ(c.unfused, 12u);  // Split: two views
    EXPECT_EQ(c.fused, 2u);     // the channel norm with its affine, {gate, scale, residual}
    expectFusedGraphComputesTheSame(b, {{"x", randomTensor({1, 2 * C, 6, 7}, 13)}, {"inp", randomTensor({1, C, 6, 7}, 14)}});
}

// NAFNet's LayerNorm2d as its code writes it, `x - mu` twice (PyTorch exports both Subs; the
// common-subexpression pass merges them first, so 9 dispatches unfused), on a [N, C, L]
// tensor too: one vkinfer.ChannelNorm; a mean over another single axis, or a Sub read
// elsewhere, is left to the pointwise programs.
TEST(PointwiseFusion, LayerNorm2dWithTwoSubsIsOneChannelNorm) {
    for (const std::vector<int64_t>& xs : {std::vector<int64_t>{2, 6, 5, 4}, std::vector<int64_t>{1, 5, 9}}) {
        for (const char* variant : {"as written", "mean over axis 2", "difference read elsewhere"}) {
            const std::string v = variant;
            OnnxBuilder b = layerNormAsWritten({.x = xs,
                                                .opset = 13,
                                                .axis = v == "mean over axis 2" ? 2 : 1,
                                                .weightFirst = true,
                                                .subTwice = true,
                                                .seed = 30});
            if (v == "difference read elsewhere") b.output("d");
            const std::string what = "LayerNorm2d, two Subs, " + v + " " + ::testing::PrintToString(xs);
            const Counts c = counts(b, what);
            EXPECT_EQ(c.unfused, 9u) << what;
            if (v == "as written") {
                EXPECT_EQ(c.fused, 1u) << what;
            } else {
                EXPECT_GT(c.fused, 1u) << what;
            }
            expectFusedGraphComputesTheSame(b, {{"x", randomTensor(xs, 32)}});
        }
    }
}

// GroupNorm as torchlib exports it at opset 18 (GroupNormalization's meaning changed in 21):
// Reshape [N, G, -1] -> InstanceNormalization(ones, zeros) -> Reshape back -> Mul(gamma) ->
// Add(beta), then SiLU: one vkinfer.GroupNorm with the SiLU in its epilogue. Without the
// affine too; an InstanceNormalization with a real scale stays as it is.
TEST(PointwiseFusion, GroupNormAsExportedIsOneDispatch) {
    struct Case {
        std::vector<int64_t> x;
        int64_t groups;
        bool affine, silu;
        size_t fused;
    };
    for (const Case& c : {Case{{1, 8, 5, 6}, 4, true, true, 1}, Case{{2, 6, 7}, 3, true, false, 1},
                          Case{{1, 8, 4, 4}, 2, false, false, 1}, Case{{1, 8, 4, 4}, 8, false, true, 1}}) {
        const std::string what = "GroupNorm " + ::testing::PrintToString(c.x) + " G=" + std::to_string(c.groups) +
                                 (c.affine ? " affine" : "") + (c.silu ? " SiLU" : "");
        OnnxBuilder b = groupNormAsExported(c.x, c.groups, c.affine, c.silu);
        const Counts n = counts(b, what);
        EXPECT_EQ(n.fused, c.fused) << what;
        if (c.affine || c.silu) {
            EXPECT_LT(n.fused, n.unfused) << what;
        }
        CompiledPlan p = compileWith(b, true);
        auto gn = std::find_if(p.graph.nodes.begin(), p.graph.nodes.end(),
                               [](const graph::Node& n) { return n.opType == "vkinfer.GroupNorm"; });
        ASSERT_NE(gn, p.graph.nodes.end()) << what;
        EXPECT_EQ(gn->activation.kind, c.silu ? graph::ActKind::Silu : graph::ActKind::None) << what;
        // (The CPU evaluation of a fused graph leaves fused activations out: the GPU test
        // checks the SiLU, tests/ops/pointwise_fusion_test.cpp.)
        if (!c.silu) expectFusedGraphComputesTheSame(b, {{"x", randomTensor(c.x, 42, -3, 4)}});
    }
    // A real instance scale is not a GroupNorm: the InstanceNormalization stays.
    OnnxBuilder scaled = groupNormAsExported({1, 8, 4, 4}, 4, true, false, 2.0f);
    CompiledPlan p = compileWith(scaled, true);
    EXPECT_TRUE(std::any_of(p.graph.nodes.begin(), p.graph.nodes.end(),
                            [](const graph::Node& n) { return n.opType == "InstanceNormalization"; }));
    expectFusedGraphComputesTheSame(scaled, {{"x", randomTensor({1, 8, 4, 4}, 43)}});
}

// LayerNorm over the last axis as exported op by op: one LayerNormalization.
OnnxBuilder layerNormAsExported(int64_t opset, bool affine) {
    return layerNormAsWritten({.opset = opset, .affine = affine});
}

TEST(PointwiseFusion, LayerNormAsExportedBecomesOneLayerNormalization) {
    for (int64_t opset : {17, 18})
        for (bool affine : {false, true}) {
            const std::string what = "LayerNorm as exported, opset " + std::to_string(opset) + (affine ? ", affine" : "");
            OnnxBuilder b = layerNormAsExported(opset, affine);
            const Counts c = counts(b, what);
            EXPECT_EQ(c.unfused, affine ? 9u : 7u) << what;
            EXPECT_EQ(c.fused, 1u) << what;
            CompiledPlan p = compileWith(b, true);
            EXPECT_EQ(std::count_if(p.graph.nodes.begin(), p.graph.nodes.end(),
                                    [](const graph::Node& n) { return !n.removed && n.opType == "LayerNormalization"; }),
                      1)
                << what;
        }
}

TEST(PointwiseFusion, LayerNormPatternBeforeOpset17IsFusedPointwiseOnly) {
    // No LayerNormalization before opset 17: the element-wise runs fuse, the means stay.
    OnnxBuilder b = layerNormAsExported(13, true);
    const Counts c = counts(b, "LayerNorm as exported, opset 13");
    EXPECT_EQ(c.unfused, 9u);
    EXPECT_EQ(c.fused, 4u);
    expectFusedGraphComputesTheSame(b, {{"x", randomTensor({2, 5, 24}, 17)}});
}

// Opset-18 axes given as floats (a fuzzer's model: NaN) are read as ReduceMean reads them
// (Tensor::getInt: NaN is 0), not converted as they are (undefined; the sanitized run of
// these tests reports it).
TEST(PointwiseFusion, AMeanWithFloatAxesReadsThemAsTheOpDoes) {
    OnnxBuilder b(18);
    b.input("x", {2, 4}).output("d");
    b.initializer("axes", Tensor::fromVector<float>(DataType::Float32, {1}, {std::nanf("")}));
    b.node("ReduceMean", {"x", "axes"}, {"m"});
    b.node("Sub", {"x", "m"}, {"d"});
    expectFusedGraphComputesTheSame(b, {{"x", randomTensor({2, 4}, 5)}});
}

TEST(PointwiseFusion, LayerNormPatternWithAnObservableIntermediateStaysApart) {
    OnnxBuilder b = layerNormAsExported(17, true);
    b.output("d");  // x - mean is a graph output: the pattern cannot become one node
    const Counts c = counts(b, "LayerNorm as exported, x - mean observable");
    EXPECT_EQ(c.fused, 4u);
}

// A transformer MLP block as TorchScript-era exporters write it: LayerNorm op by op, Linear
// (MatMul + bias Add), erf Gelu, Linear, residual Add.
TEST(PointwiseFusion, TransformerMlpBlockAsExportedOpByOp) {
    OnnxBuilder b = layerNormAsExported(17, true);
    auto& proto = b.proto();
    for (auto& o : *proto.mutable_graph()->mutable_output())  // y is now the LayerNorm's output, an intermediate
        if (o.name() == "y") o.set_name("out");
    b.initializer("w1", randomTensor({24, 48}, 20)).initializer("b1", randomTensor({48}, 21));
    b.initializer("w2", randomTensor({48, 24}, 22)).initializer("b2", randomTensor({24}, 23));
    b.node("MatMul", {"y", "w1"}, {"h"});
    b.node("Add", {"h", "b1"}, {"hb"});
    addErfGelu(b, "hb", "g");
    b.node("MatMul", {"g", "w2"}, {"o"});
    b.node("Add", {"o", "b2"}, {"ob"});
    b.node("Add", {"x", "ob"}, {"out"});
    const Counts c = counts(b, "MLP block: LayerNorm op by op, Linear, Gelu, Linear");
    EXPECT_EQ(c.unfused, 11u);  // the LayerNorm's 9, then MatMul+bias+Gelu, MatMul+bias+residual
    EXPECT_EQ(c.fused, 3u);
    expectFusedGraphComputesTheSame(b, {{"x", randomTensor({2, 5, 24}, 24)}});
}

// Restormer's gated feed-forward: Gelu(x1) * x2 after a Split, Gelu in its erf form.
TEST(PointwiseFusion, GatedGeluAfterASplit) {
    OnnxBuilder b;
    b.input("x", {1, 32, 8, 8}).output("y");
    attr(b.node("Split", {"x"}, {"x1", "x2"}), "axis", int64_t{1});
    addErfGelu(b, "x1", "g");
    b.node("Mul", {"g", "x2"}, {"y"});
    const Counts c = counts(b, "gated Gelu after a Split");
    EXPECT_EQ(c.unfused, 6u);
    EXPECT_EQ(c.fused, 1u);
    expectFusedGraphComputesTheSame(b, {{"x", randomTensor({1, 32, 8, 8}, 25, -3, 3)}});
}

TEST(PointwiseFusion, OffLeavesEveryNode) {
    OnnxBuilder b;
    b.input("x", {2, 16, 32}).output("y");
    addErfGelu(b, "x", "y");
    CompiledPlan p = compileWith(b, false);
    EXPECT_EQ(pointwiseNodes(p), 0u);
    EXPECT_EQ(p.summary.dispatches, 5u);
}

// The shared test models (../shared/models, when present: tiny_vit among them), each planned
// with and without the fusion; the counts are printed for the record.
TEST(PointwiseFusion, SharedModelsNeverGainDispatches) {
    const std::string dir = testing::modelsDir();
    if (dir.empty()) GTEST_SKIP() << "shared test models not found (../shared/models; set VKINFER_MODELS_DIR)";
    std::vector<std::filesystem::path> models;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (std::filesystem::exists(e.path() / "model.onnx")) models.push_back(e.path());
    std::sort(models.begin(), models.end());
    for (const auto& m : models) {
        auto model = Model::load((m / "model.onnx").string());
        ASSERT_TRUE(model.ok()) << model.status().toString();
        auto shapes = model->resolveShapes({});
        if (!shapes.ok()) continue;  // dynamic inputs without a default shape
        size_t count[2][2];
        for (int half = 0; half < 2; ++half)
            for (int fuse = 0; fuse < 2; ++fuse) {
                PlanOptions opt;
                opt.precision = half ? Precision::Float16 : Precision::Float32;
                opt.kernels.fusePointwise = fuse;
                count[half][fuse] = compilePlan(model->data()->graph, *shapes, opt).summary.dispatches;
            }
        std::printf("[ dispatches ] %-48s fp32 %3zu -> %3zu   fp16 %3zu -> %3zu\n", m.filename().c_str(), count[0][0],
                    count[0][1], count[1][0], count[1][1]);
        EXPECT_LE(count[0][1], count[0][0]) << m;
        EXPECT_LE(count[1][1], count[1][0]) << m;
    }
}

TEST(PointwiseFusion, StepsRoundTripThroughTheirEncoding) {
    for (uint32_t op = 0; op < static_cast<uint32_t>(ops::PointwiseOp::Count); ++op) {
        ops::PointwiseStep s{static_cast<ops::PointwiseOp>(op), 19, 27, 3};
        const auto back = ops::decodeStep(ops::encodeStep(s));
        EXPECT_EQ(back.op, s.op);
        EXPECT_EQ(back.a, 19u);
        EXPECT_EQ(back.b, 27u);
        EXPECT_EQ(back.c, 3u);
    }
}

}  // namespace
}  // namespace vkinfer::plan
