// Gemm (transA/transB, alpha/beta, every broadcast shape of C) and MatMul (2-D, batched,
// broadcast batches, 1-D operands). M <= 16 takes the 16x128 tile, larger M the 64x64 tile.
#include <fmt/format.h>

#include "ops/conv_cases.h"
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

struct GemmSpec {
    int64_t M, N, K;
    bool transA = false, transB = false;
    Shape c;              // shape of C; empty with hasC false: no C
    bool hasC = false;
    float alpha = 1, beta = 1;
    bool setAlphaBeta = false;
    bool cIsInput = false;  // C a graph input rather than an initializer
    int64_t opset = 13;
};

void runGemm(const GemmSpec& s) {
    std::string what = "Gemm M" + std::to_string(s.M) + " N" + std::to_string(s.N) + " K" + std::to_string(s.K) +
                       (s.transA ? " transA" : "") + (s.transB ? " transB" : "") +
                       (s.hasC ? " C" + shapeToString(s.c) : " no C") +
                       (s.setAlphaBeta ? " alpha " + std::to_string(s.alpha) + " beta " + std::to_string(s.beta) : "") +
                       (s.cIsInput ? " C input" : "") + " opset " + std::to_string(s.opset);
    SCOPED_TRACE(what);
    uint32_t seed = seedOf(what);
    Shape a = s.transA ? Shape{s.K, s.M} : Shape{s.M, s.K};
    Shape bShape = s.transB ? Shape{s.N, s.K} : Shape{s.K, s.N};
    OnnxBuilder b(s.opset);
    b.input("a", a).output("y");
    std::vector<NamedTensor> inputs{{"a", randomTensor(a, seed)}};
    b.initializer("b", randomTensor(bShape, seed + 1));
    std::vector<std::string> ins{"a", "b"};
    if (s.hasC) {
        if (s.cIsInput) {
            b.input("c", s.c);
            inputs.push_back({"c", randomTensor(s.c, seed + 2)});
        } else {
            b.initializer("c", randomTensor(s.c, seed + 2));
        }
        ins.push_back("c");
    }
    auto& n = b.node("Gemm", ins, {"y"});
    if (s.transA) attr(n, "transA", int64_t{1});
    if (s.transB) attr(n, "transB", int64_t{1});
    if (s.setAlphaBeta) {
        attr(n, "alpha", s.alpha);
        attr(n, "beta", s.beta);
    }
    expectGpuMatchesCpu(b, inputs, what);
}

TEST(GemmOp, Transposes) {
    VKINFER_REQUIRE_GPU();
    for (int64_t m : {1, 17, 100})
        for (int ta = 0; ta < 2; ++ta)
            for (int tb = 0; tb < 2; ++tb) runGemm({m, 33, 19, ta != 0, tb != 0, {33}, true});
}

// A constant B with transB (nn.Linear's weight) is transposed once at planning
// (passes/gemm_weights.h): the tensor cores then load B's rows as whole words (_vb). A weight
// another node also reads stays as it is, gathered. Results against the CPU either way.
TEST(GemmOp, ConstantTransposedWeightIsReadInRows) {
    const Shape a{64, 96}, w{128, 96};
    auto model = [&](bool alsoAdded) {
        OnnxBuilder b(13);
        b.input("a", a).output("y");
        b.initializer("w", randomTensor(w, 7, -0.5f, 0.5f)).initializer("bias", randomTensor({128}, 8));
        attr(b.node("Gemm", {"a", "w", "bias"}, {"g"}), "transB", int64_t{1});
        attr(b.node("Gemm", {"a", "w"}, {"h"}), "transB", int64_t{1});  // a second reader of the same weight
        if (alsoAdded) {
            b.input("m", w);
            b.node("Add", {"w", "m"}, {"s"});
            attr(b.node("Gemm", {"a", "s"}, {"k"}), "transB", int64_t{1});
            b.node("Add", {"g", "k"}, {"gk"});
            b.node("Add", {"gk", "h"}, {"y"});
        } else {
            b.node("Add", {"g", "h"}, {"y"});
        }
        return b;
    };
    DeviceDescription dev;
    dev.kernels.emulateCooperativeMatrix = true;
    auto gemmKernels = [&](const OnnxBuilder& b, bool alsoAdded) {
        InputShapes shapes{{"a", a}};
        if (alsoAdded) shapes.emplace_back("m", w);
        std::vector<std::string> gemms;
        for (const std::string& k : planKernels(b, shapes, dev, Precision::Float16))
            if (k.rfind("gemm_cm", 0) == 0) gemms.push_back(k);
        return gemms;
    };
    // B in whole words: _vb, or _clamped (both operands in words, no bounds checks).
    auto readsBInWords = [](const std::string& k) {
        return k.find("_vb") != std::string::npos || k.find("_clamped") != std::string::npos;
    };
    const auto rows = gemmKernels(model(false), false);
    ASSERT_EQ(rows.size(), 2u) << fmt::format("{}", fmt::join(rows, " "));
    for (const std::string& k : rows) EXPECT_TRUE(readsBInWords(k)) << k;
    // The weight also read by an Add of a graph input: kept as it is, so every Gemm gathers B
    // (the third reads the Add's output, not a constant).
    const auto mixed = gemmKernels(model(true), true);
    ASSERT_EQ(mixed.size(), 3u) << fmt::format("{}", fmt::join(mixed, " "));
    for (const std::string& k : mixed) EXPECT_FALSE(readsBInWords(k)) << k;
    if (!gpuAvailable()) return;
    for (bool alsoAdded : {false, true}) {
        std::vector<NamedTensor> in{{"a", randomTensor(a, 10)}};
        if (alsoAdded) in.push_back({"m", randomTensor(w, 11, -0.5f, 0.5f)});
        const std::string what = alsoAdded ? "weight shared with an Add" : "weight read by two Gemms";
        expectGpuMatchesCpu(model(alsoAdded), in, what);
        SessionOptions o;
        o.precision = Precision::Float16;
        o.kernels.emulateCooperativeMatrix = true;
        expectGpuMatchesCpuWith(model(alsoAdded), in, what + " fp16 tensor cores", Tolerance{5e-3, 5e-3, true}, o);
    }
}

TEST(GemmOp, BiasShapes) {
    VKINFER_REQUIRE_GPU();
    for (int64_t m : {1, 17, 100}) {
        const int64_t n = 37, k = 21;
        for (const Shape& c : std::vector<Shape>{{}, {n}, {1, n}, {m, 1}, {m, n}, {1}, {1, 1}})
            runGemm({m, n, k, false, true, c, true});
        runGemm({m, n, k, false, false});  // no C
    }
    runGemm({17, 37, 21, false, false, {17, 37}, true, 1, 1, false, true});  // C from a graph input
    runGemm({5, 9, 7, false, false, {5, 9}, true, 1, 1, false, false, 9});  // opset 9: C required
}

TEST(GemmOp, AlphaBeta) {
    VKINFER_REQUIRE_GPU();
    runGemm({17, 33, 19, false, false, {17, 33}, true, 0.5f, 2.0f, true});
    runGemm({3, 5, 7, true, true, {5}, true, -1.5f, 0.25f, true});
    runGemm({100, 20, 9, false, true, {100, 1}, true, 2.0f, 0.0f, true});  // beta 0 drops C
    runGemm({16, 70, 11, false, false, {}, false, 3.0f, 1.0f, true});      // alpha without C
}

TEST(GemmOp, TileEdgesAndOddK) {
    VKINFER_REQUIRE_GPU();
    runGemm({16, 128, 16, false, false});   // exactly one 16x128 tile
    runGemm({16, 129, 17, false, true});    // one column and one k past it
    runGemm({17, 64, 15, false, false});    // first M that takes the 64x64 tile
    runGemm({64, 65, 33, true, false});
    runGemm({65, 63, 1, false, false});     // K = 1
    runGemm({1, 1000, 64, false, true, {1000}, true});  // a classifier head
    runGemm({100, 70, 129, false, true, {70}, true});   // several 64x64 tiles, K odd
    runGemm({1, 1, 1, false, false, {}, true});
}

TEST(GemmOp, AllOperandsFromGraphInputs) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b;
    b.input("a", {9, 20}).input("b", {30, 9}).input("c", {20, 1}).output("y");
    auto& n = b.node("Gemm", {"a", "b", "c"}, {"y"});
    attr(n, "transA", int64_t{1});
    attr(n, "transB", int64_t{1});
    attr(n, "alpha", 0.75f);
    expectGpuMatchesCpu(b, {{"a", randomTensor({9, 20}, 1)}, {"b", randomTensor({30, 9}, 2)}, {"c", randomTensor({20, 1}, 3)}},
                        "gemm with runtime A, B, C");
}

TEST(GemmOp, ReferenceMatchesHandComputed) {
    // y = alpha * A^T B + beta * C with A^T = [[1,2,3],[4,5,6]], B = [[1,0],[0,1],[1,1]].
    OnnxBuilder b;
    b.input("a", {3, 2}).output("y");
    b.initializer("b", floatTensor({3, 2}, {1, 0, 0, 1, 1, 1}));
    b.initializer("c", floatTensor({2, 1}, {100, 200}));
    auto& n = b.node("Gemm", {"a", "b", "c"}, {"y"});
    attr(n, "transA", int64_t{1});
    attr(n, "alpha", 2.0f);
    attr(n, "beta", 0.5f);
    // A^T B = [[4, 5], [10, 11]]
    expectReferenceEquals(b, {{"a", floatTensor({3, 2}, {1, 4, 2, 5, 3, 6})}},
                          {floatTensor({2, 2}, {58, 60, 120, 122})}, "gemm transA alpha beta C[M,1]");
}

// ---- MatMul ----

void runMatMul(const Shape& a, const Shape& b, bool bConstant = false) {
    std::string what = "MatMul " + shapeToString(a) + " x " + shapeToString(b) + (bConstant ? " (B constant)" : "");
    SCOPED_TRACE(what);
    uint32_t seed = seedOf(what);
    OnnxBuilder m;
    m.input("a", a).output("y");
    std::vector<NamedTensor> inputs{{"a", randomTensor(a, seed)}};
    if (bConstant) {
        m.initializer("b", randomTensor(b, seed + 1));
    } else {
        m.input("b", b);
        inputs.push_back({"b", randomTensor(b, seed + 1)});
    }
    m.node("MatMul", {"a", "b"}, {"y"});
    expectGpuMatchesCpu(m, inputs, what);
}

TEST(MatMulOp, TwoD) {
    VKINFER_REQUIRE_GPU();
    runMatMul({17, 33}, {33, 5});
    runMatMul({5, 7}, {7, 300});     // small M, N over 3 tiles
    runMatMul({100, 31}, {31, 70}, true);
    runMatMul({1, 129}, {129, 1});
    runMatMul({16, 16}, {16, 16});
}

TEST(MatMulOp, Batched) {
    VKINFER_REQUIRE_GPU();
    runMatMul({3, 20, 9}, {3, 9, 11});
    runMatMul({2, 3, 17, 8}, {2, 3, 8, 6});
    runMatMul({4, 19, 6}, {6, 10}, true);  // 2-D B broadcast over A's batch
    runMatMul({7, 6}, {2, 6, 5});          // 2-D A broadcast over B's batch
    runMatMul({2, 2, 3, 70, 13}, {2, 2, 3, 13, 9});
}

TEST(MatMulOp, BroadcastBatch) {
    VKINFER_REQUIRE_GPU();
    runMatMul({2, 1, 18, 7}, {1, 3, 7, 5});
    runMatMul({1, 3, 4, 5}, {2, 1, 5, 6});
    runMatMul({2, 1, 3, 6}, {4, 6, 2});    // rank mismatch plus broadcast
    runMatMul({5, 1, 20, 4}, {5, 4, 4, 3});
    runMatMul({3, 1, 1, 4, 5}, {3, 1, 5, 2});  // unit dims collapse
}

TEST(MatMulOp, ThreeBroadcastBatchLevelsUnsupported) {
    // Batch strides that no two-level split can express are rejected, not computed wrong.
    OnnxBuilder b;
    b.input("a", {3, 1, 2, 4, 5}).input("b", {3, 1, 5, 2}).output("y");
    b.node("MatMul", {"a", "b"}, {"y"});
    expectUnsupported(b, {{"a", randomTensor({3, 1, 2, 4, 5}, 1)}, {"b", randomTensor({3, 1, 5, 2}, 2)}},
                      "matmul with 3 broadcast batch levels");
}

TEST(MatMulOp, GridBeyondLimitIsUnsupported) {
    // 4.2M rows = 65601 tiles of 64 along y: refused at planning time (nothing is allocated).
    OnnxBuilder b;
    b.input("a", {4198401, 2}).output("y");
    b.initializer("b", randomTensor({2, 17}, 1));
    b.node("MatMul", {"a", "b"}, {"y"});
    expectUnsupported(b, {}, "matmul with 4.2M rows");
}

TEST(MatMulOp, OneDimensional) {
    VKINFER_REQUIRE_GPU();
    runMatMul({6}, {6, 4});        // -> [4]
    runMatMul({3, 6}, {6});        // -> [3]
    runMatMul({6}, {6});           // -> scalar
    runMatMul({2, 3, 4, 5}, {5});  // -> [2,3,4]
    runMatMul({5}, {2, 5, 3});     // -> [2,3]
    runMatMul({40}, {40, 17}, true);
}

TEST(MatMulOp, ReferenceMatchesHandComputed) {
    // Batch of 2 against a broadcast 2-D B, and 1-D operands.
    OnnxBuilder b;
    b.input("a", {2, 1, 2}).input("v", {2}).output("y").output("d");
    b.initializer("b", floatTensor({2, 3}, {1, 2, 3, 4, 5, 6}));
    b.node("MatMul", {"a", "b"}, {"y"});
    b.node("MatMul", {"v", "v"}, {"d"});
    expectReferenceEquals(b, {{"a", floatTensor({2, 1, 2}, {1, 1, 2, -1})}, {"v", floatTensor({2}, {3, 4})}},
                          {floatTensor({2, 1, 3}, {5, 7, 9, -2, -1, 0}), floatTensor({}, {25})}, "matmul batched + dot");
}

// Split-K: few output tiles and a long reduction (a batch-1 classifier, attention-sized
// batched products) run as partial sums plus an ordered reduce that applies alpha, beta * C
// and the activation; against the CPU reference in both sync modes, and it did split.
TEST(GemmOp, SplitKForFewTilesAndLongReductions) {
    VKINFER_REQUIRE_GPU();
    runGemm({1, 1000, 1280, false, true, {1000}, true});                      // classifier, C row
    runGemm({3, 70, 777, true, false, {3, 70}, true, 0.5f, -2.0f, true});     // odd K, alpha, beta
    runGemm({20, 130, 512, false, false, {}, false});                         // 64x64 tiles, no C
    runGemm({1, 10, 4096, false, true, {1}, true, 1.0f, 1.0f, false, true});  // C input, 64 splits' worth
    runMatMul({2, 3, 9, 256}, {2, 3, 256, 40});                              // batched
    OnnxBuilder b(13);
    b.input("a", {1, 1280}).output("y");
    b.initializer("w", randomTensor({1000, 1280}, 5));
    b.initializer("bias", randomTensor({1000}, 6));
    attr(b.node("Gemm", {"a", "w", "bias"}, {"g"}), "transB", int64_t{1});
    b.node("Relu", {"g"}, {"y"});
    std::vector<NamedTensor> in{{"a", randomTensor({1, 1280}, 7)}};
    EXPECT_EQ(planDispatches(b, in), 2);  // split product + reduce (with the Relu fused)
    expectGpuMatchesCpu(b, in, "split-K Gemm + Relu");
    expectGpuMatchesCpu(b, in, "split-K Gemm + Relu (fp16)", Tolerance{1e-2, 1e-2, true}, Precision::Float16);
}

}  // namespace
}  // namespace vkinfer::testing
