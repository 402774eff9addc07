// Operators today's exporters write for transformers and restoration nets: Gelu (opset 20,
// exact and tanh), Mish (opset 18), GroupNormalization (opset 18 per-group and opset 21
// per-channel parameters), and activations fused into the MatMul, Conv and normalization
// before them. The reference itself against hand-computed values, the GPU against the
// reference in float32 and float16.
#include <cmath>

#include "ops/conv_cases.h"
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

const std::vector<float> kXs = {-3.0f, -1.5f, -0.5f, 0.0f, 0.5f, 2.5f};

OnnxBuilder unaryModel(const std::string& op, int64_t opset, const std::string& approximate = "") {
    OnnxBuilder b(opset);
    b.input("x", {6}).output("y");
    auto& n = b.node(op, {"x"}, {"y"});
    if (!approximate.empty()) attr(n, "approximate", approximate);
    return b;
}

// The GPU against the reference in float32, float16, and float16 on emulated cooperative
// matrices (the tensor-core GEMM's loads and stores, on any device).
void expectGemmPathsMatchCpu(const OnnxBuilder& b, const std::vector<NamedTensor>& in, const std::string& what) {
    expectGpuMatchesCpu(b, in, what);
    const Tolerance fp16{5e-3, 5e-3, true};
    expectGpuMatchesCpu(b, in, what + " fp16", fp16, Precision::Float16);
    SessionOptions emu;
    emu.precision = Precision::Float16;
    emu.kernels.emulateCooperativeMatrix = true;
    expectGpuMatchesCpuWith(b, in, what + " fp16 coopmat (emulated)", fp16, emu);
}

TEST(GeluOp, ReferenceMatchesHandComputed) {
    // 0.5 x (1 + erf(x / sqrt 2)) and 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))), from Python's math.
    expectReferenceEquals(unaryModel("Gelu", 20), {{"x", floatTensor({6}, kXs)}},
                          {floatTensor({6}, {-0.004049694095f, -0.1002108019f, -0.1542687694f, 0.0f, 0.3457312306f,
                                             2.484475837f})},
                          "Gelu exact");
    expectReferenceEquals(unaryModel("Gelu", 20, "tanh"), {{"x", floatTensor({6}, kXs)}},
                          {floatTensor({6}, {-0.003637392082f, -0.100428423f, -0.1542859902f, 0.0f, 0.3457140098f,
                                             2.484915734f})},
                          "Gelu tanh");
    expectReferenceEquals(unaryModel("Mish", 18), {{"x", floatTensor({6}, kXs)}},
                          {floatTensor({6}, {-0.1456474613f, -0.2980997422f, -0.2207437747f, 0.0f, 0.3752452113f,
                                             2.471392305f})},
                          "Mish");
}

TEST(GeluOp, GpuMatchesCpuAndRejectsUnknownApproximations) {
    VKINFER_REQUIRE_GPU();
    for (const char* approximate : {"none", "tanh"}) {
        OnnxBuilder b(20);
        b.input("x", {3, 5, 77}).output("y");
        attr(b.node("Gelu", {"x"}, {"y"}), "approximate", std::string(approximate));
        std::string what = std::string("Gelu ") + approximate;
        Tensor x = randomTensor({3, 5, 77}, seedOf(what), -8, 8);
        expectGpuMatchesCpu(b, {{"x", x}}, what);
        expectGpuMatchesCpu(b, {{"x", x}}, what + " fp16", Tolerance{3e-3, 2e-3, true}, Precision::Float16);
    }
    OnnxBuilder mish(18);
    mish.input("x", {4, 100}).output("y");
    mish.node("Mish", {"x"}, {"y"});
    expectGpuMatchesCpu(mish, {{"x", randomTensor({4, 100}, 9, -30, 30)}}, "Mish");

    OnnxBuilder bad(20);
    bad.input("x", {4}).output("y");
    attr(bad.node("Gelu", {"x"}, {"y"}, "gelu"), "approximate", std::string("erf"));
    auto model = bad.build();
    ASSERT_TRUE(model.ok());
    auto summary = planSummary(*model, {{"x", {4}}});
    ASSERT_FALSE(summary.ok());
    EXPECT_EQ(summary.status().code(), ErrorCode::Unsupported);
    EXPECT_NE(summary.status().message().find("'erf'"), std::string::npos) << summary.status().message();
    // Gelu is an opset-20 operator: an opset-17 model naming it is refused, not guessed at.
    auto old = unaryModel("Gelu", 17).build();
    ASSERT_FALSE(old.ok());
    EXPECT_EQ(old.status().code(), ErrorCode::Unsupported) << old.status().toString();
    EXPECT_NE(old.status().message().find("opset 17"), std::string::npos) << old.status().message();
}

// MatMul -> Gelu (a ViT MLP) and Conv -> Gelu (ConvNeXt) run as one dispatch each.
TEST(GeluOp, FusesIntoMatMulAndConv) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder mlp(20);
    mlp.input("x", {1, 7, 16}).output("y");
    mlp.initializer("w", randomTensor({16, 24}, 3, -0.5f, 0.5f));
    mlp.node("MatMul", {"x", "w"}, {"h"});
    mlp.node("Gelu", {"h"}, {"y"});
    std::vector<NamedTensor> in{{"x", randomTensor({1, 7, 16}, 4, -2, 2)}};
    EXPECT_EQ(planDispatches(mlp, in), 1);
    expectGpuMatchesCpu(mlp, in, "MatMul + Gelu");

    OnnxBuilder conv(20);
    conv.input("x", {1, 8, 9, 9}).output("y");
    conv.initializer("w", randomTensor({8, 8, 3, 3}, 5, -0.3f, 0.3f));
    attr(conv.node("Conv", {"x", "w"}, {"c"}), "pads", std::vector<int64_t>{1, 1, 1, 1});
    attr(conv.node("Gelu", {"c"}, {"y"}), "approximate", std::string("tanh"));
    std::vector<NamedTensor> cin{{"x", randomTensor({1, 8, 9, 9}, 6, -2, 2)}};
    EXPECT_EQ(planDispatches(conv, cin), 1);
    expectGpuMatchesCpu(conv, cin, "Conv + Gelu tanh");
    expectGpuMatchesCpu(conv, cin, "Conv + Gelu tanh fp16", Tolerance{5e-3, 5e-3, true}, Precision::Float16);
}

// Gelu as exports before opset 20 spell it: x * 0.5 * (1 + erf(x / sqrt 2)), in the orders
// and forms torch and others write. After a MatMul, all of it is the MatMul's epilogue.
OnnxBuilder erfGeluModel(bool halfFirst, bool mulForm, bool xReadElsewhere) {
    OnnxBuilder b(17);
    b.input("x", {1, 6, 16}).output("y");
    if (xReadElsewhere) b.output("h");
    b.initializer("w", randomTensor({16, 20}, 12, -0.5f, 0.5f));
    b.initializer("c", floatTensor({}, {mulForm ? 0.70710678f : 1.4142135f}));
    b.initializer("one", floatTensor({}, {1.0f}));
    b.initializer("half", floatTensor({}, {0.5f}));
    b.node("MatMul", {"x", "w"}, {"h"});
    b.node(mulForm ? "Mul" : "Div", {"h", "c"}, {"s"});
    b.node("Erf", {"s"}, {"e"});
    b.node("Add", {"one", "e"}, {"p"});
    if (halfFirst) {
        b.node("Mul", {"h", "half"}, {"hh"});
        b.node("Mul", {"hh", "p"}, {"y"});
    } else {
        b.node("Mul", {"h", "p"}, {"q"});
        b.node("Mul", {"q", "half"}, {"y"});
    }
    return b;
}

TEST(GeluOp, ErfPatternOfOlderExportsFuses) {
    VKINFER_REQUIRE_GPU();
    std::vector<NamedTensor> in{{"x", randomTensor({1, 6, 16}, 13, -2, 2)}};
    for (bool halfFirst : {false, true})
        for (bool mulForm : {false, true}) {
            std::string what = std::string("erf Gelu, half ") + (halfFirst ? "first" : "last") + (mulForm ? ", Mul" : ", Div");
            auto m = erfGeluModel(halfFirst, mulForm, false);
            EXPECT_EQ(planDispatches(m, in), 1) << what;
            expectGpuMatchesCpu(m, in, what);
        }
    // The MatMul's output is also a graph output: it must stay observable, so nothing fuses.
    auto open = erfGeluModel(false, false, true);
    EXPECT_GT(planDispatches(open, in), 1);
    expectGpuMatchesCpu(open, in, "erf Gelu with x observable");
}

// A Linear layer as exporters write it, MatMul then Add(bias), with an activation after it:
// one dispatch (the bias in the GEMM's epilogue), for bias shapes [N] and [1, 1, N], batched
// 3-D and 4-D products, float32 and float16; a bias that is not a row of N values stays an Add.
TEST(MatMulBias, FusesIntoTheGemm) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        Shape x, w, bias;
        const char* act;
        int64_t dispatches;
    };
    for (const Case& c : {Case{{1, 7, 16}, {16, 24}, {24}, "", 1}, Case{{2, 5, 32}, {32, 8}, {1, 1, 8}, "Relu", 1},
                          Case{{2, 3, 4, 16}, {16, 12}, {12}, "Gelu", 1}, Case{{1, 6, 16}, {16, 20}, {6, 20}, "", 2}}) {
        OnnxBuilder b(20);
        b.input("x", c.x).output("y");
        b.initializer("w", randomTensor(c.w, 21, -0.5f, 0.5f));
        b.initializer("b", randomTensor(c.bias, 22, -1, 1));
        b.node("MatMul", {"x", "w"}, {"h"});
        b.node("Add", {"h", "b"}, {std::string(c.act).empty() ? "y" : "z"});
        if (!std::string(c.act).empty()) b.node(c.act, {"z"}, {"y"});
        std::string what = "MatMul " + shapeToString(c.x) + " + bias " + shapeToString(c.bias) + " " + c.act;
        std::vector<NamedTensor> in{{"x", randomTensor(c.x, 23, -2, 2)}};
        EXPECT_EQ(planDispatches(b, in), c.dispatches) << what;
        expectGpuMatchesCpu(b, in, what);
        expectGpuMatchesCpu(b, in, what + " fp16", Tolerance{5e-3, 5e-3, true}, Precision::Float16);
    }
}

// Attention's head transposes fold into the MatMul's operand strides: q [B, S, H, D] -> [B,
// H, S, D], k -> [B, H, D, S], plain k^T, a permuted batch; each case against the reference in
// float32 and float16 (portable and emulated cooperative-matrix GEMMs), and the Transpose's
// copy gone from the plan. A permutation the GEMM cannot express (three batch dims that do not
// merge) keeps the copy and stays correct.
TEST(TransposeFold, MatMulReadsThroughStrides) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        const char* what;
        Shape a, b;
        std::vector<int64_t> permA, permB;  // empty: no Transpose on that side
        int64_t dispatches;
    };
    const std::vector<Case> cases = {
        {"q.k^T heads", {2, 20, 4, 16}, {2, 24, 4, 16}, {0, 2, 1, 3}, {0, 2, 3, 1}, 1},
        {"A^T", {3, 32, 24}, {3, 32, 40}, {0, 2, 1}, {}, 1},
        {"B^T (k.transpose(-2, -1))", {48, 32}, {40, 32}, {}, {1, 0}, 1},
        {"permuted batch", {5, 3, 16, 20}, {5, 20, 24}, {1, 0, 2, 3}, {}, 1},
        {"batch dims that merge after the permutation", {2, 3, 5, 8, 16}, {16, 8}, {2, 0, 1, 3, 4}, {}, 1},
        {"three batch dims that do not merge", {2, 3, 4, 8, 16}, {16, 8}, {2, 1, 0, 3, 4}, {}, 2},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        OnnxBuilder b(17);
        b.input("a", c.a).input("b", c.b).output("y");
        std::string ina = "a", inb = "b";
        if (!c.permA.empty()) {
            attr(b.node("Transpose", {"a"}, {"at"}), "perm", c.permA);
            ina = "at";
        }
        if (!c.permB.empty()) {
            attr(b.node("Transpose", {"b"}, {"bt"}), "perm", c.permB);
            inb = "bt";
        }
        b.node("MatMul", {ina, inb}, {"y"});
        std::vector<NamedTensor> in{{"a", randomTensor(c.a, seedOf(c.what), -1, 1)},
                                    {"b", randomTensor(c.b, seedOf(c.what) + 1, -1, 1)}};
        EXPECT_EQ(planDispatches(b, in), c.dispatches);
        expectGemmPathsMatchCpu(b, in, c.what);
    }
}

// Scalar scales around a MatMul become the GEMM's alpha: attention's q / sqrt(d) after the
// head transpose (which then folds too), the dynamo exporter's q * s and k^T * s, scores /
// sqrt(d) after the product; each a single dispatch, against the reference in float32 and
// float16. A scaled value read elsewhere, a reciprocal Div(c, x) and a non-scalar factor stay
// separate nodes and stay correct.
TEST(ScaleFold, ScalarMulAndDivBecomeTheGemmsAlpha) {
    VKINFER_REQUIRE_GPU();
    const Shape q{2, 12, 4, 16}, k{2, 4, 16, 12};  // q [B, S, H, D]; k already [B, H, D, S]
    struct Case {
        const char* what;
        int64_t dispatches;
        void (*build)(OnnxBuilder&);
    };
    const std::vector<Case> cases = {
        {"Div(Transpose(q), c) . k", 1,
         [](OnnxBuilder& b) {
             attr(b.node("Transpose", {"q"}, {"qt"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
             b.node("Div", {"qt", "c"}, {"qs"});
             b.node("MatMul", {"qs", "k"}, {"y"});
         }},
        {"Mul(c, Transpose(q)) . Mul(k, c)", 1,
         [](OnnxBuilder& b) {
             attr(b.node("Transpose", {"q"}, {"qt"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
             b.node("Mul", {"c", "qt"}, {"qs"});
             b.node("Mul", {"k", "c"}, {"ks"});
             b.node("MatMul", {"qs", "ks"}, {"y"});
         }},
        {"Div(Transpose(q) . k, c) then Softmax", 2,
         [](OnnxBuilder& b) {
             attr(b.node("Transpose", {"q"}, {"qt"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
             b.node("MatMul", {"qt", "k"}, {"s"});
             b.node("Div", {"s", "c"}, {"sd"});
             attr(b.node("Softmax", {"sd"}, {"y"}), "axis", int64_t{-1});
         }},
        {"reciprocal Div(c, q) is no scale", 3,
         [](OnnxBuilder& b) {
             attr(b.node("Transpose", {"q"}, {"qt"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
             b.node("Div", {"c", "qt"}, {"qs"});
             b.node("MatMul", {"qs", "k"}, {"y"});
         }},
        {"a per-column factor is no scalar", 3,
         [](OnnxBuilder& b) {
             attr(b.node("Transpose", {"q"}, {"qt"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
             b.node("Mul", {"qt", "cols"}, {"qs"});
             b.node("MatMul", {"qs", "k"}, {"y"});
         }},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        OnnxBuilder b(17);
        b.input("q", q).input("k", k).output("y");
        b.initializer("c", floatTensor({}, {2.8284271f}));
        b.initializer("cols", randomTensor({16}, 3, 0.5f, 1.5f));
        c.build(b);
        std::vector<NamedTensor> in{{"q", randomTensor(q, seedOf(c.what), -1, 1)},
                                    {"k", randomTensor(k, seedOf(c.what) + 1, -1, 1)}};
        EXPECT_EQ(planDispatches(b, in), c.dispatches);
        expectGpuMatchesCpu(b, in, c.what);
        expectGpuMatchesCpu(b, in, std::string(c.what) + " fp16", Tolerance{5e-3, 5e-3, true}, Precision::Float16);
    }
    // The scaled q is also a graph output: the Div stays, and so does the Transpose before it.
    OnnxBuilder open(17);
    open.input("q", q).input("k", k).output("y").output("qs");
    open.initializer("c", floatTensor({}, {2.0f}));
    attr(open.node("Transpose", {"q"}, {"qt"}), "perm", std::vector<int64_t>{0, 2, 1, 3});
    open.node("Div", {"qt", "c"}, {"qs"});
    open.node("MatMul", {"qs", "k"}, {"y"});
    std::vector<NamedTensor> in{{"q", randomTensor(q, 7, -1, 1)}, {"k", randomTensor(k, 8, -1, 1)}};
    EXPECT_EQ(planDispatches(open, in), 3);
    expectGpuMatchesCpu(open, in, "scaled q observable");
}

// The Erf Gelu's trailing x * 0.5 feeds the next MatMul: it stays the Gelu's (fused into the
// first GEMM), not the second GEMM's alpha, so the MLP is two dispatches.
TEST(ScaleFold, GeluBeforeAMatMulStaysFused) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b(17);
    b.input("x", {8, 32}).output("y");
    b.initializer("w1", randomTensor({32, 48}, 1, -0.3f, 0.3f));
    b.initializer("w2", randomTensor({48, 16}, 2, -0.3f, 0.3f));
    b.initializer("sqrt2", floatTensor({}, {1.41421356f}));
    b.initializer("one", floatTensor({}, {1.0f}));
    b.initializer("half", floatTensor({}, {0.5f}));
    b.node("MatMul", {"x", "w1"}, {"h"});
    b.node("Div", {"h", "sqrt2"}, {"hs"});
    b.node("Erf", {"hs"}, {"e"});
    b.node("Add", {"e", "one"}, {"e1"});
    b.node("Mul", {"h", "e1"}, {"g2"});
    b.node("Mul", {"g2", "half"}, {"g"});
    b.node("MatMul", {"g", "w2"}, {"y"});
    std::vector<NamedTensor> in{{"x", randomTensor({8, 32}, 3, -2, 2)}};
    EXPECT_EQ(planDispatches(b, in), 2);
    expectGpuMatchesCpu(b, in, "Gelu MLP");
    expectGpuMatchesCpu(b, in, "Gelu MLP fp16", Tolerance{5e-3, 5e-3, true}, Precision::Float16);
}

// A weight shared by every batch with A's batches stacked row after row is one GEMM of
// batches x M rows: PyTorch's sequence-first attention ([S, 1, E] after a Transpose of
// [1, S, E], rows of one element each) and a batch of [S, E] rows, with bias and an activation;
// a batch whose rows are not stacked ([S, B, E] read as [B, S, E]) stays batched, and one of
// more batches than rows ([B, S, E] read sequence-first as [S, B, E], ViT-B/16 at batch 8)
// trades rows for batches: B products of S rows, on the tensor cores where there are enough
// rows (on the H200's description). Against the reference in float32 and float16.
TEST(MatMulBatchRows, SharedWeightBatchesBecomeRows) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        const char* what;
        Shape x;
        std::vector<int64_t> perm;  // a Transpose before the MatMul, or none
    };
    const std::vector<Case> cases = {
        {"sequence-first [S, 1, E]", {1, 40, 32}, {1, 0, 2}},
        {"batch of rows [B, S, E]", {3, 20, 32}, {}},
        {"[S, B, E] read as [B, S, E]", {20, 3, 32}, {1, 0, 2}},
        {"[B, S, E] read sequence-first as [S, B, E]", {3, 20, 32}, {1, 0, 2}},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        OnnxBuilder b(17);
        b.input("x", c.x).output("y");
        b.initializer("w", randomTensor({32, 24}, 4, -0.5f, 0.5f));
        b.initializer("bias", randomTensor({24}, 5, -0.5f, 0.5f));
        std::string in = "x";
        if (!c.perm.empty()) {
            attr(b.node("Transpose", {"x"}, {"xt"}), "perm", c.perm);
            in = "xt";
        }
        b.node("MatMul", {in, "w"}, {"h"});
        b.node("Add", {"h", "bias"}, {"hb"});
        b.node("Relu", {"hb"}, {"y"});
        std::vector<NamedTensor> inputs{{"x", randomTensor(c.x, seedOf(c.what), -1, 1)}};
        const std::vector<std::string> kernels = planKernels(b, {{"x", c.x}}, h200Description());
        const auto gemm = std::find_if(kernels.begin(), kernels.end(), [](const auto& k) { return k.rfind("gemm", 0) == 0; });
        ASSERT_NE(gemm, kernels.end());
        EXPECT_EQ(gemm->rfind("gemm_cm64_", 0), 0u) << *gemm << ": at least 16 rows per product";
        EXPECT_EQ(planDispatches(b, inputs), 1);
        expectGpuMatchesCpu(b, inputs, c.what);
        expectGpuMatchesCpu(b, inputs, std::string(c.what) + " fp16", Tolerance{5e-3, 5e-3, true}, Precision::Float16);
    }
}

// ConvNeXt's pointwise layers at batch B: [B, H, W, C] rows times one weight, stored
// channels-first by the Transpose after them (the GEMM's store). Image and row of the map are
// two batch dimensions that no stride merges; the rows of one image are stacked all the same:
// B products of H x W rows (on the tensor cores with the H200's description), not B x H of W.
TEST(MatMulBatchRows, ChannelsFirstStoreStacksAnImagesRows) {
    VKINFER_REQUIRE_GPU();
    const Shape x{3, 5, 6, 32};
    OnnxBuilder b(17);
    b.input("x", x).output("y");
    b.initializer("w", randomTensor({32, 24}, 6, -0.5f, 0.5f));
    b.initializer("bias", randomTensor({24}, 7, -0.5f, 0.5f));
    b.node("MatMul", {"x", "w"}, {"h"});
    b.node("Add", {"h", "bias"}, {"hb"});
    attr(b.node("Transpose", {"hb"}, {"y"}), "perm", std::vector<int64_t>{0, 3, 1, 2});
    const std::vector<std::string> kernels = planKernels(b, {{"x", x}}, h200Description());
    const auto gemm = std::find_if(kernels.begin(), kernels.end(), [](const auto& k) { return k.rfind("gemm", 0) == 0; });
    ASSERT_NE(gemm, kernels.end());
    EXPECT_EQ(gemm->rfind("gemm_cm64_", 0), 0u) << *gemm << ": 30 rows per product";
    std::vector<NamedTensor> inputs{{"x", randomTensor(x, 8, -1, 1)}};
    EXPECT_EQ(planDispatches(b, inputs), 1);
    expectGpuMatchesCpu(b, inputs, "channels-first store");
    expectGpuMatchesCpu(b, inputs, "channels-first store fp16", Tolerance{5e-3, 5e-3, true}, Precision::Float16);
}

// The transformer block's residuals x + proj(attn(x)) and x + mlp(x) are added in the GEMM's
// epilogue (before a following activation): a MatMul with its bias, an ONNX Gemm whose rows are
// reshaped and moved through size-1 dims on the way (the sequence-first export), a split-K
// MatMul (the reduce adds it); a MatMul whose activation comes before the Add keeps the Add.
// Against the reference in float32, float16 and float16 on emulated cooperative matrices.
TEST(GemmResidual, AddsInTheEpilogue) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        const char* what;
        Shape x;
        int64_t K;
        int64_t dispatches;
        void (*build)(OnnxBuilder&);
    };
    const std::vector<Case> cases = {
        {"MatMul + bias + x, then Relu", {1, 24, 32}, 32, 1,
         [](OnnxBuilder& b) {
             b.node("MatMul", {"x", "w"}, {"h"});
             b.node("Add", {"h", "bias"}, {"hb"});
             b.node("Add", {"x", "hb"}, {"s"});
             b.node("Relu", {"s"}, {"y"});
         }},
        {"Gemm rows reshaped to [S, 1, E], moved to [1, S, E], + x", {1, 24, 32}, 32, 1,
         [](OnnxBuilder& b) {
             b.node("Reshape", {"x", "rows"}, {"x2"});
             auto& gemm = b.node("Gemm", {"x2", "wt", "bias"}, {"h"});
             attr(gemm, "transB", int64_t{1});
             b.node("Reshape", {"h", "seqFirst"}, {"h3"});
             attr(b.node("Transpose", {"h3"}, {"ht"}), "perm", std::vector<int64_t>{1, 0, 2});
             b.node("Add", {"ht", "x"}, {"y"});
         }},
        {"split-K MatMul + x", {1, 8, 32}, 512, 2,
         [](OnnxBuilder& b) {
             b.node("MatMul", {"wide", "w"}, {"h"});
             b.node("Add", {"h", "x"}, {"y"});
         }},
        {"Relu before the Add stays unfused", {1, 24, 32}, 32, 2,
         [](OnnxBuilder& b) {
             b.node("MatMul", {"x", "w"}, {"h"});
             b.node("Relu", {"h"}, {"hr"});
             b.node("Add", {"hr", "x"}, {"y"});
         }},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        const int64_t S = c.x[1], E = c.x[2];
        OnnxBuilder b(17);
        b.input("x", c.x).output("y");
        std::vector<NamedTensor> in{{"x", randomTensor(c.x, seedOf(c.what), -1, 1)}};
        if (c.K != E) {
            b.input("wide", {1, S, c.K});
            in.push_back({"wide", randomTensor({1, S, c.K}, seedOf(c.what) + 1, -1, 1)});
        }
        b.initializer("w", randomTensor({c.K, E}, 11, -0.2f, 0.2f));
        b.initializer("wt", randomTensor({E, E}, 12, -0.2f, 0.2f));
        b.initializer("bias", randomTensor({E}, 13, -0.5f, 0.5f));
        b.initializer("rows", int64Tensor({2}, {S, E}));
        b.initializer("seqFirst", int64Tensor({3}, {S, 1, E}));
        c.build(b);
        EXPECT_EQ(planDispatches(b, in), c.dispatches);
        expectGemmPathsMatchCpu(b, in, c.what);
    }
}

// q, k and v (the values "q" + suffix, "k" + suffix, "v" + suffix, [S, E] each) split into
// heads (the initializer "heads": [S, H, D]) and moved head-first (k to [H, D, S]), attention
// over them, the heads moved back and merged into rows (the initializer "rows"): "y".
void addHeadAttention(OnnxBuilder& b, const std::string& suffix) {
    for (const std::string n : {"q", "k", "v"}) {
        b.node("Reshape", {n + suffix, "heads"}, {n + "h"});
        attr(b.node("Transpose", {n + "h"}, {n + "t"}), "perm",
             n == "k" ? std::vector<int64_t>{1, 2, 0} : std::vector<int64_t>{1, 0, 2});
    }
    b.node("MatMul", {"qt", "kt"}, {"scores"});
    attr(b.node("Softmax", {"scores"}, {"p"}), "axis", int64_t{-1});
    b.node("MatMul", {"p", "vt"}, {"o"});
    attr(b.node("Transpose", {"o"}, {"ot"}), "perm", std::vector<int64_t>{1, 0, 2});
    b.node("Reshape", {"ot", "rows"}, {"y"});
}

// PyTorch 2.11's split of nn.MultiheadAttention's in-projection `qkv` ([L, B, 3E]) into q, k
// and v: Reshape [L, B, 3, E] -> Unsqueeze -> Transpose(3, 1, 2, 0, 4) -> Squeeze ->
// [3, L, B, E], then one Gather each: "qg", "kg", "vg" ([L, B, E]).
void addExportedQkvSplit(OnnxBuilder& b, int64_t L, int64_t B, int64_t E) {
    b.initializer("split", int64Tensor({4}, {L, B, 3, E}));
    b.initializer("zero", int64Tensor({1}, {0}));
    b.initializer("three", int64Tensor({1}, {3}));
    b.node("Reshape", {"qkv", "split"}, {"qkv4"});
    b.node("Unsqueeze", {"qkv4", "zero"}, {"qkv5"});
    attr(b.node("Transpose", {"qkv5"}, {"parts5"}), "perm", std::vector<int64_t>{3, 1, 2, 0, 4});
    b.node("Squeeze", {"parts5", "three"}, {"parts"});
    for (int i = 0; i < 3; ++i) {
        const std::string n(1, "qkv"[i]);
        b.initializer(n + "_index", int64Tensor({}, {i}));
        b.node("Gather", {"parts", n + "_index"}, {n + "g"});
    }
}

// Attention as PyTorch exports nn.MultiheadAttention: one in-projection [S, 3E], q, k, v
// sliced from it, split into heads and moved head-first; the heads moved back after the
// product. The slices, reshapes and transposes fold into the GEMMs' loads and stores (an
// offset and strides each): 4 dispatches (projection, scores, Softmax, output). Slices at
// offsets that are not whole 8-half words and a stepped slice take the gathering loads. A
// Reshape that merges rows with part of a slice's columns is no stride: the Slice stays a copy.
// Each against the reference in float32, float16 and float16 on emulated cooperative matrices.
TEST(ViewFold, AttentionReadsQkvWhereTheProjectionLeftThem) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        const char* what;
        int64_t S, H, D;
        int64_t gap;   // columns between q, k and v in the projection (0: adjacent)
        int64_t step;  // the slices' step
    };
    const std::vector<Case> cases = {
        {"heads of 32, adjacent slices", 40, 2, 32, 0, 1},
        {"slices at odd offsets", 24, 3, 20, 3, 1},
        {"stepped slices", 20, 2, 16, 0, 2},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        const int64_t E = c.H * c.D, width = c.step * E + c.gap;  // one slice's span
        const int64_t P = 3 * width;                                // projection columns
        OnnxBuilder b(17);
        b.input("x", {c.S, 32}).output("y");
        b.initializer("w", randomTensor({32, P}, seedOf(c.what), -0.3f, 0.3f));
        b.initializer("heads", int64Tensor({3}, {c.S, c.H, c.D}));
        b.initializer("rows", int64Tensor({2}, {c.S, E}));
        b.node("MatMul", {"x", "w"}, {"qkv"});
        // k first, so that both operands of the scores start inside the projection.
        const char* names[] = {"q", "k", "v"};
        const int64_t position[] = {1, 0, 2};
        for (int i = 0; i < 3; ++i) {
            const std::string n = names[i];
            b.initializer(n + "_start", int64Tensor({1}, {position[i] * width}));
            b.initializer(n + "_end", int64Tensor({1}, {position[i] * width + c.step * E}));
            b.initializer(n + "_axis", int64Tensor({1}, {1}));
            b.initializer(n + "_step", int64Tensor({1}, {c.step}));
            b.node("Slice", {"qkv", n + "_start", n + "_end", n + "_axis", n + "_step"}, {n + "s"});
        }
        addHeadAttention(b, "s");
        std::vector<NamedTensor> in{{"x", randomTensor({c.S, 32}, seedOf(c.what) + 1, -1, 1)}};
        // The projection and one fused attention (passes/attention_fusion.h: it reads q, k and v
        // through the same windows); the GEMMs' windows also with that fusion off.
        EXPECT_EQ(planDispatches(b, in), 2);
        expectGemmPathsMatchCpu(b, in, c.what);
        SessionOptions unfused;
        unfused.kernels.fuseAttention = false;
        expectGpuMatchesCpuWith(b, in, std::string(c.what) + " attention unfused", opTolerance(), unfused);
        unfused.precision = Precision::Float16;
        unfused.kernels.emulateCooperativeMatrix = true;
        expectGpuMatchesCpuWith(b, in, std::string(c.what) + " attention unfused, fp16 coopmat (emulated)",
                                Tolerance{5e-3, 5e-3, true}, unfused);
    }
    // Rows merged with half of the slice's columns: [S, E] -> [2S, E / 2] is no stride.
    OnnxBuilder b(17);
    b.input("x", {8, 32}).output("y");
    b.initializer("w", randomTensor({32, 48}, 5, -0.3f, 0.3f));
    b.initializer("w2", randomTensor({8, 8}, 6, -0.3f, 0.3f));
    b.initializer("start", int64Tensor({1}, {16}));
    b.initializer("end", int64Tensor({1}, {32}));
    b.initializer("axis", int64Tensor({1}, {1}));
    b.initializer("halves", int64Tensor({2}, {16, 8}));
    b.node("MatMul", {"x", "w"}, {"qkv"});
    b.node("Slice", {"qkv", "start", "end", "axis"}, {"k"});
    b.node("Reshape", {"k", "halves"}, {"kh"});
    b.node("MatMul", {"kh", "w2"}, {"y"});
    std::vector<NamedTensor> in{{"x", randomTensor({8, 32}, 7, -1, 1)}};
    EXPECT_EQ(planDispatches(b, in), 3);
    expectGpuMatchesCpu(b, in, "unfoldable reshape");
}

// The split of q, k and v as PyTorch 2.11 exports nn.MultiheadAttention (torchvision's ViT):
// [S, 1, 3E] -> Reshape [S, 1, 3, E] -> Unsqueeze -> Transpose(3, 1, 2, 0, 4) -> Squeeze ->
// [3, S, 1, E], then q, k and v as Gathers of one index each, split into heads. The 5-D
// Transpose has three readers; once each Gather's chain folds into the attention's views the
// copy goes too: the projection and the attention remain. Where one of the three is read by
// something that takes no view (a Relu), the Transpose stays for it and the rest still fold.
TEST(ViewFold, AttentionReadsTheExportersGatheredQkv) {
    VKINFER_REQUIRE_GPU();
    const int64_t S = 24, H = 2, D = 16, E = H * D;
    for (const bool extraReader : {false, true}) {
        const std::string what = extraReader ? "with another reader of v" : "q, k, v only";
        SCOPED_TRACE(what);
        OnnxBuilder b(17);
        b.input("x", {S, 32}).output("y");
        if (extraReader) b.output("vr");
        b.initializer("w", randomTensor({32, 3 * E}, 31, -0.3f, 0.3f));
        b.initializer("heads", int64Tensor({3}, {S, H, D}));
        b.initializer("rows", int64Tensor({2}, {S, E}));
        b.node("MatMul", {"x", "w"}, {"qkv"});
        addExportedQkvSplit(b, S, 1, E);
        addHeadAttention(b, "g");
        if (extraReader) b.node("Relu", {"parts"}, {"vr"});
        std::vector<NamedTensor> in{{"x", randomTensor({S, 32}, 32, -1, 1)}};
        // Another reader keeps the Transpose (a copy) and takes its own dispatch.
        EXPECT_EQ(planDispatches(b, in), extraReader ? 4 : 2);
        expectGemmPathsMatchCpu(b, in, what);
    }
}

// torchvision's encoder block at batch B > 1, as PyTorch 2.11 exports its batch-first
// nn.MultiheadAttention: x [B, L, E] swapped to [L, B, E] for the in-projection, q, k and v
// separated as at batch 1, then each merged with the batch ([L, B, E] -> [L, B * H, Dh]), moved
// batch-first and split again ([B, H, L, Dh]); the output swapped back for the residual. The
// merge is no stride of its own, the chain as a whole is one window (ops::viewThroughChain):
// the 5-D Transpose that separates q, k and v folds into the attention's views as at batch 1.
// The swap back moves before the out-projection (its A read in the swapped order:
// passes::moveRowPermutationBeforeProduct), whose epilogue then takes the residual.
TEST(ViewFold, BatchFirstMultiheadAttentionAtBatchTwo) {
    VKINFER_REQUIRE_GPU();
    const int64_t B = 2, L = 12, H = 2, Dh = 16, E = H * Dh;
    OnnxBuilder b(20);
    b.input("x", {B, L, E}).output("y");
    b.initializer("w_in", randomTensor({E, 3 * E}, 41, -0.3f, 0.3f));
    b.initializer("b_in", randomTensor({3 * E}, 42, -0.2f, 0.2f));
    b.initializer("w_out", randomTensor({E, E}, 43, -0.3f, 0.3f));
    b.initializer("b_out", randomTensor({E}, 44, -0.2f, 0.2f));
    b.initializer("merged", int64Tensor({3}, {L, B * H, Dh}));
    b.initializer("heads", int64Tensor({4}, {B, H, L, Dh}));
    b.initializer("keys", int64Tensor({4}, {B, H, Dh, L}));
    b.initializer("rows", int64Tensor({2}, {L * B, E}));
    b.initializer("seq", int64Tensor({3}, {L, B, E}));
    b.initializer("scale", floatTensor({}, {static_cast<float>(1.0 / std::sqrt(std::sqrt(double(Dh))))}));
    attr(b.node("Transpose", {"x"}, {"xt"}), "perm", std::vector<int64_t>{1, 0, 2});
    b.node("MatMul", {"xt", "w_in"}, {"proj"});
    b.node("Add", {"proj", "b_in"}, {"qkv"});
    addExportedQkvSplit(b, L, B, E);
    for (const std::string n : {"q", "k", "v"}) {
        b.node("Reshape", {n + "g", "merged"}, {n + "m"});
        attr(b.node("Transpose", {n + "m"}, {n + "t"}), "perm", std::vector<int64_t>{1, 0, 2});
    }
    b.node("Reshape", {"qt", "heads"}, {"q4"});
    b.node("Reshape", {"vt", "heads"}, {"v4"});
    attr(b.node("Transpose", {"kt"}, {"ktt"}), "perm", std::vector<int64_t>{0, 2, 1});
    b.node("Reshape", {"ktt", "keys"}, {"k4"});
    b.node("Mul", {"q4", "scale"}, {"qs"});
    b.node("Mul", {"k4", "scale"}, {"ks"});
    b.node("MatMul", {"qs", "ks"}, {"scores"});
    attr(b.node("Softmax", {"scores"}, {"p"}), "axis", int64_t{-1});
    b.node("MatMul", {"p", "v4"}, {"o"});
    attr(b.node("Transpose", {"o"}, {"ot"}), "perm", std::vector<int64_t>{2, 0, 1, 3});
    b.node("Reshape", {"ot", "rows"}, {"o2"});
    attr(b.node("Gemm", {"o2", "w_out", "b_out"}, {"out"}), "transB", int64_t{1});
    b.node("Reshape", {"out", "seq"}, {"out3"});
    attr(b.node("Transpose", {"out3"}, {"outb"}), "perm", std::vector<int64_t>{1, 0, 2});
    b.node("Add", {"outb", "x"}, {"y"});
    std::vector<NamedTensor> in{{"x", randomTensor({B, L, E}, 45, -1, 1)}};
    // The in-projection (reading x swapped), the attention, the out-projection with the
    // residual; no copy of q, k and v, none of the output.
    EXPECT_EQ(planDispatches(b, in), 3);
    expectGemmPathsMatchCpu(b, in, "batch-first attention, batch 2");
}

// A Transpose after a MatMul is the GEMM's store: heads back in place ([H, S, D] -> [S, H, D]),
// rows moved behind two batch dims, a split-K product (the reduce stores transposed), columns
// moved (ConvNeXt's channels back in front), and a graph output written in place. Against the
// reference in float32, float16 and emulated cooperative matrices.
TEST(ViewFold, TransposeAfterTheProductIsItsStore) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        const char* what;
        Shape a, b;
        std::vector<int64_t> perm;
        int64_t dispatches;
    };
    const std::vector<Case> cases = {
        {"heads back in place", {4, 24, 32}, {4, 32, 16}, {1, 0, 2}, 1},
        {"rows before two batch dims", {2, 3, 16, 32}, {2, 3, 32, 24}, {2, 0, 1, 3}, 1},
        {"split-K", {2, 16, 512}, {2, 512, 16}, {1, 0, 2}, 2},
        {"columns moved", {4, 24, 32}, {4, 32, 16}, {0, 2, 1}, 1},
        {"columns moved, split-K", {2, 16, 512}, {2, 512, 16}, {0, 2, 1}, 2},
        {"channels back in front", {1, 6, 10, 32}, {32, 48}, {0, 3, 1, 2}, 1},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        OnnxBuilder b(17);
        b.input("a", c.a).input("b", c.b).output("y");
        b.node("MatMul", {"a", "b"}, {"p"});
        attr(b.node("Transpose", {"p"}, {"y"}), "perm", c.perm);
        std::vector<NamedTensor> in{{"a", randomTensor(c.a, seedOf(c.what), -1, 1)},
                                    {"b", randomTensor(c.b, seedOf(c.what) + 1, -1, 1)}};
        EXPECT_EQ(planDispatches(b, in), c.dispatches);
        expectGemmPathsMatchCpu(b, in, c.what);
    }
}

// A layer scale (a constant per channel) after a product with constant weights scales B's
// columns and the bias at planning: ConvNeXt's tail (Linear, the channels moved back in front,
// gamma [C, 1, 1], the residual) is then one GEMM storing NCHW with the residual in its
// epilogue; CaiT's LayerScale on [S, E] likewise. A scale per row, or weights another product
// also reads, keep the Mul. Against the reference in float32, float16 and emulated
// cooperative matrices.
TEST(LayerScale, FoldsIntoTheProductsColumns) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        const char* what;
        Shape x;
        int64_t dispatches;
        void (*build)(OnnxBuilder&);
    };
    const std::vector<Case> cases = {
        {"ConvNeXt block tail", {1, 32, 6, 10}, 2,
         [](OnnxBuilder& b) {
             b.initializer("gamma", randomTensor({32, 1, 1}, 31, 0.1f, 1.5f));
             attr(b.node("Transpose", {"x"}, {"xt"}), "perm", std::vector<int64_t>{0, 2, 3, 1});
             b.node("MatMul", {"xt", "w1"}, {"h"});
             b.node("Add", {"h", "b1"}, {"hb"});
             b.node("Gelu", {"hb"}, {"g"});
             b.node("MatMul", {"g", "w2"}, {"o"});
             b.node("Add", {"o", "b2"}, {"ob"});
             attr(b.node("Transpose", {"ob"}, {"ot"}), "perm", std::vector<int64_t>{0, 3, 1, 2});
             b.node("Mul", {"ot", "gamma"}, {"s"});
             b.node("Add", {"x", "s"}, {"y"});
         }},
        {"LayerScale on tokens, scale first", {1, 20, 32}, 2,
         [](OnnxBuilder& b) {
             b.initializer("gamma", randomTensor({32}, 32, -1.5f, 1.5f));
             b.node("MatMul", {"x", "w1"}, {"h"});
             b.node("Relu", {"h"}, {"g"});
             b.node("MatMul", {"g", "w2"}, {"o"});
             b.node("Add", {"o", "b2"}, {"ob"});
             b.node("Mul", {"gamma", "ob"}, {"s"});
             b.node("Add", {"s", "x"}, {"y"});
         }},
        {"a scale per row stays", {1, 20, 32}, 3,
         [](OnnxBuilder& b) {
             b.initializer("gamma", randomTensor({20, 1}, 33, 0.1f, 1.5f));
             b.node("MatMul", {"x", "w1"}, {"h"});
             b.node("Relu", {"h"}, {"g"});
             b.node("MatMul", {"g", "w2"}, {"o"});
             b.node("Mul", {"o", "gamma"}, {"s"});
             b.node("Sigmoid", {"s"}, {"y"});
         }},
        {"shared weights stay", {1, 20, 32}, 5,  // (the Relu too: h has two readers)
         [](OnnxBuilder& b) {
             b.initializer("gamma", randomTensor({32}, 34, 0.1f, 1.5f));
             b.initializer("w3", randomTensor({32, 48}, 35, -0.2f, 0.2f));
             b.node("MatMul", {"x", "w3"}, {"h"});
             b.node("Relu", {"h"}, {"g"});
             b.node("MatMul", {"g", "w2"}, {"o"});
             b.node("MatMul", {"h", "w2"}, {"o2"});
             b.node("Mul", {"o", "gamma"}, {"s"});
             b.node("Add", {"s", "o2"}, {"y"});
         }},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        OnnxBuilder b(20);
        b.input("x", c.x).output("y");
        b.initializer("w1", randomTensor({32, 48}, 36, -0.2f, 0.2f));
        b.initializer("b1", randomTensor({48}, 37, -0.5f, 0.5f));
        b.initializer("w2", randomTensor({48, 32}, 38, -0.2f, 0.2f));
        b.initializer("b2", randomTensor({32}, 39, -0.5f, 0.5f));
        c.build(b);
        std::vector<NamedTensor> in{{"x", randomTensor(c.x, seedOf(c.what), -1, 1)}};
        EXPECT_EQ(planDispatches(b, in), c.dispatches);
        expectGemmPathsMatchCpu(b, in, c.what);
    }
}

// A Transpose that moves only dimensions of size 1 moves no element: a view, no dispatch,
// and the reader sees the same values; one that reorders two longer dimensions stays a copy.
TEST(TransposeView, SizeOneMovesAreViews) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        const char* what;
        Shape x;
        std::vector<int64_t> perm;
        int64_t dispatches;
    };
    const std::vector<Case> cases = {
        {"[S, 1, E] -> [1, S, E]", {12, 1, 8}, {1, 0, 2}, 1},
        {"[1, C, 1, W] -> [W, 1, 1, C]", {1, 6, 1, 1}, {3, 0, 2, 1}, 1},
        {"[2, 1, 3] -> [3, 1, 2]", {2, 1, 3}, {2, 1, 0}, 2},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        OnnxBuilder b(17);
        b.input("x", c.x).output("y");
        b.node("Relu", {"x"}, {"r"});
        attr(b.node("Transpose", {"r"}, {"t"}), "perm", c.perm);
        b.node("Sigmoid", {"t"}, {"y"});
        std::vector<NamedTensor> in{{"x", randomTensor(c.x, seedOf(c.what), -1, 1)}};
        EXPECT_EQ(planDispatches(b, in), c.dispatches + 1);
        expectGpuMatchesCpu(b, in, c.what);
        expectGpuMatchesCpu(b, in, std::string(c.what) + " fp16", Tolerance{5e-3, 5e-3, true}, Precision::Float16);
    }
}

OnnxBuilder groupNormModel(const Shape& x, int64_t groups, int64_t params, int64_t opset) {
    OnnxBuilder m(opset);
    m.input("x", x).input("s", {params}).input("b", {params}).output("y");
    auto& n = m.node("GroupNormalization", {"x", "s", "b"}, {"y"});
    attr(n, "num_groups", groups);
    attr(n, "epsilon", 1e-3f);
    return m;
}

TEST(GroupNormOp, ReferenceMatchesHandComputed) {
    // Two groups of two channels of two elements: [0, 2 | 4, 6] and [1, 1 | 1, 5].
    // Group 0: mean 3, var 5; group 1: mean 2, var 3. Per-channel scale/bias (opset 21).
    OnnxBuilder m(21);
    m.input("x", {1, 4, 2}).output("y");
    m.initializer("s", floatTensor({4}, {1, 2, 1, 1}));
    m.initializer("b", floatTensor({4}, {0, 0, 0, 10}));
    auto& n = m.node("GroupNormalization", {"x", "s", "b"}, {"y"});
    attr(n, "num_groups", int64_t{2});
    attr(n, "epsilon", 0.0f);
    const float a = 1.0f / std::sqrt(5.0f), c = 1.0f / std::sqrt(3.0f);
    expectReferenceEquals(m, {{"x", floatTensor({1, 4, 2}, {0, 2, 4, 6, 1, 1, 1, 5})}},
                          {floatTensor({1, 4, 2}, {-3 * a, -1 * a, 2 * a, 6 * a, -c, -c, 10 - c, 10 + 3 * c})},
                          "GroupNorm per channel", Tolerance{1e-5, 1e-6, true});
    // Opset 18: scale and bias per group.
    OnnxBuilder g18(18);
    g18.input("x", {1, 4, 2}).output("y");
    g18.initializer("s", floatTensor({2}, {2, 1}));
    g18.initializer("b", floatTensor({2}, {0, 1}));
    auto& n18 = g18.node("GroupNormalization", {"x", "s", "b"}, {"y"});
    attr(n18, "num_groups", int64_t{2});
    attr(n18, "epsilon", 0.0f);
    expectReferenceEquals(g18, {{"x", floatTensor({1, 4, 2}, {0, 2, 4, 6, 1, 1, 1, 5})}},
                          {floatTensor({1, 4, 2}, {-6 * a, -2 * a, 2 * a, 6 * a, 1 - c, 1 - c, 1 - c, 1 + 3 * c})},
                          "GroupNorm per group", Tolerance{1e-5, 1e-6, true});
}

TEST(GroupNormOp, GpuMatchesCpu) {
    VKINFER_REQUIRE_GPU();
    struct Case {
        Shape x;
        int64_t groups;
        bool perChannel;
    };
    for (const Case& c : {Case{{2, 8, 5, 7}, 4, true}, Case{{1, 32, 16, 16}, 8, true}, Case{{2, 6, 9}, 3, false},
                          Case{{1, 64, 40, 40}, 32, true}, Case{{3, 4, 1, 1}, 4, true}}) {
        const int64_t params = c.perChannel ? c.x[1] : c.groups;
        std::string what = "GroupNorm " + shapeToString(c.x) + " groups " + std::to_string(c.groups);
        std::vector<NamedTensor> in{{"x", randomTensor(c.x, seedOf(what), -2, 4)},
                                    {"s", randomTensor({params}, seedOf(what) + 1)},
                                    {"b", randomTensor({params}, seedOf(what) + 2)}};
        auto m = groupNormModel(c.x, c.groups, params, c.perChannel ? 21 : 18);
        expectGpuMatchesCpu(m, in, what);
        expectGpuMatchesCpu(m, in, what + " fp16", Tolerance{1e-2, 1e-2, true}, Precision::Float16);
    }
    // Parameters of neither size name both.
    auto bad = groupNormModel({1, 6, 4}, 3, 5, 21).build();
    ASSERT_TRUE(bad.ok());
    auto summary = planSummary(*bad, {{"x", {1, 6, 4}}, {"s", {5}}, {"b", {5}}});
    ASSERT_FALSE(summary.ok());
    EXPECT_NE(summary.status().message().find("6 channels in 3 groups"), std::string::npos)
        << summary.status().message();
}

// GroupNorm -> SiLU (a diffusion or restoration block) and LayerNorm -> Gelu: one dispatch.
TEST(GroupNormOp, ActivationsFuseIntoNormalizations) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder m(21);
    m.input("x", {1, 8, 6, 6}).output("y");
    m.initializer("s", randomTensor({8}, 7));
    m.initializer("b", randomTensor({8}, 8));
    attr(m.node("GroupNormalization", {"x", "s", "b"}, {"n"}), "num_groups", int64_t{2});
    m.node("Sigmoid", {"n"}, {"g"});
    m.node("Mul", {"n", "g"}, {"y"});
    std::vector<NamedTensor> in{{"x", randomTensor({1, 8, 6, 6}, 9, -3, 3)}};
    EXPECT_EQ(planDispatches(m, in), 1);
    expectGpuMatchesCpu(m, in, "GroupNorm + SiLU");

    OnnxBuilder l(20);
    l.input("x", {2, 5, 32}).output("y");
    l.initializer("s", randomTensor({32}, 10));
    l.node("LayerNormalization", {"x", "s"}, {"n"});
    l.node("Gelu", {"n"}, {"y"});
    std::vector<NamedTensor> lin{{"x", randomTensor({2, 5, 32}, 11, -3, 3)}};
    EXPECT_EQ(planDispatches(l, lin), 1);
    expectGpuMatchesCpu(l, lin, "LayerNorm + Gelu");
}

}  // namespace
}  // namespace vkinfer::testing
