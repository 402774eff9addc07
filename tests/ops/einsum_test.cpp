// Einsum (src/ops/einsum.cpp): the reference against hand-computed values (diagonals,
// traces, implicit outputs, ellipses that broadcast), the GPU against the reference in float32
// and float16 for every path of the lowering (a reduction or copy for one operand; one GEMM
// through strides, either operand order, labels summed away first, the canonical copies; three
// operands), that a batched product is one dispatch, and bad equations refused naming the node.
#include <fmt/format.h>

#include "ops/conv_cases.h"
#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

OnnxBuilder einsumModel(const std::string& equation, const std::vector<Shape>& shapes, DataType type = DataType::Float32) {
    OnnxBuilder b(12);
    std::vector<std::string> ins;
    for (size_t i = 0; i < shapes.size(); ++i) {
        ins.push_back(fmt::format("x{}", i));
        b.input(ins.back(), shapes[i], type);
    }
    b.output("y", type);
    attr(b.node("Einsum", ins, {"y"}), "equation", equation);
    return b;
}

std::vector<NamedTensor> randomInputs(const std::vector<Shape>& shapes, const std::string& what) {
    std::vector<NamedTensor> in;
    for (size_t i = 0; i < shapes.size(); ++i)
        // Positive values: float16's rounding of the inputs does not cancel into the sums.
        in.push_back({fmt::format("x{}", i), randomTensor(shapes[i], seedOf(what) + static_cast<uint32_t>(i), 0.25f, 1.0f)});
    return in;
}

TEST(EinsumOp, ReferenceMatchesHandComputed) {
    const Tensor a = floatTensor({2, 2}, {1, 2, 3, 4}), b = floatTensor({2, 2}, {5, 6, 7, 8});
    expectReferenceEquals(einsumModel("ij,jk->ik", {{2, 2}, {2, 2}}), {{"x0", a}, {"x1", b}},
                          {floatTensor({2, 2}, {19, 22, 43, 50})}, "matrix product");
    expectReferenceEquals(einsumModel("ij,jk", {{2, 2}, {2, 2}}), {{"x0", a}, {"x1", b}},
                          {floatTensor({2, 2}, {19, 22, 43, 50})}, "implicit output: the letters seen once, sorted");
    expectReferenceEquals(einsumModel("ij,jk->ki", {{2, 2}, {2, 2}}), {{"x0", a}, {"x1", b}},
                          {floatTensor({2, 2}, {19, 43, 22, 50})}, "product stored transposed");
    const Tensor m = iotaTensor({3, 3}, 1.0f);  // 1..9
    expectReferenceEquals(einsumModel("ii->i", {{3, 3}}), {{"x0", m}}, {floatTensor({3}, {1, 5, 9})}, "diagonal");
    expectReferenceEquals(einsumModel("ii", {{3, 3}}), {{"x0", m}}, {floatTensor({}, {15})}, "trace (implicit)");
    expectReferenceEquals(einsumModel("ij->ji", {{3, 3}}), {{"x0", m}}, {floatTensor({3, 3}, {1, 4, 7, 2, 5, 8, 3, 6, 9})},
                          "transpose");
    expectReferenceEquals(einsumModel("ij->j", {{3, 3}}), {{"x0", m}}, {floatTensor({3}, {12, 15, 18})}, "column sums");
    expectReferenceEquals(einsumModel("i,j->ij", {{2}, {3}}), {{"x0", floatTensor({2}, {1, 2})}, {"x1", floatTensor({3}, {1, 10, 100})}},
                          {floatTensor({2, 3}, {1, 10, 100, 2, 20, 200})}, "outer product");
    expectReferenceEquals(einsumModel("i,i", {{3}, {3}}), {{"x0", floatTensor({3}, {1, 2, 3})}, {"x1", floatTensor({3}, {4, 5, 6})}},
                          {floatTensor({}, {32})}, "inner product");
    // "...ii->...i" (ONNX's batch diagonal, with its space) and an ellipsis of size 1 broadcast.
    const Tensor batch = iotaTensor({2, 2, 2});  // [[0 1][2 3]], [[4 5][6 7]]
    expectReferenceEquals(einsumModel("...ii ->...i", {{2, 2, 2}}), {{"x0", batch}}, {floatTensor({2, 2}, {0, 3, 4, 7})},
                          "batch diagonal");
    expectReferenceEquals(einsumModel("...i,...i->...", {{2, 2}, {1, 2}}),
                          {{"x0", floatTensor({2, 2}, {1, 2, 3, 4})}, {"x1", floatTensor({1, 2}, {10, 1})}},
                          {floatTensor({2}, {12, 34})}, "ellipsis broadcast from size 1");
    expectReferenceEquals(einsumModel("ij,jk,kl->il", {{1, 2}, {2, 2}, {2, 1}}),
                          {{"x0", floatTensor({1, 2}, {1, 2})}, {"x1", floatTensor({2, 2}, {1, 0, 0, 1})}, {"x2", floatTensor({2, 1}, {3, 4})}},
                          {floatTensor({1, 1}, {11})}, "three operands");
    // Integers run on the CPU only (constant folding): the GPU kernels multiply floats.
    const auto ints = cpuReference(einsumModel("ij,jk->ik", {{2, 2}, {2, 2}}, DataType::Int64),
                                   {{"x0", typedTensor(DataType::Int64, {2, 2}, {1, 2, 3, 4})},
                                    {"x1", typedTensor(DataType::Int64, {2, 2}, {5, 6, 7, 8})}},
                                   "int64 product");
    ASSERT_EQ(ints.size(), 1u);
    expectTensorNear(ints[0], typedTensor(DataType::Int64, {2, 2}, {19, 22, 43, 50}), "int64 product");
}

struct Case {
    std::string equation;
    std::vector<Shape> shapes;
};

// One case per path of the lowering (the comment says which).
const Case kCases[] = {
    {"bij,bjk->bik", {{3, 17, 33}, {3, 33, 20}}},                 // one GEMM, batch of 3
    {"bhid,bhjd->bhij", {{2, 3, 20, 16}, {2, 3, 24, 16}}},        // q k^T: B read transposed, two batch dims
    {"bhij,bhjd->bhid", {{2, 3, 20, 24}, {2, 3, 24, 16}}},        // attention x v
    {"bij,jk->bik", {{4, 5, 6}, {6, 7}}},                          // batch and rows merge into one row run
    {"ik,jk->ij", {{9, 13}, {11, 13}}},                            // B transposed (nn.Linear's weight)
    {"ij,jk->ki", {{7, 9}, {9, 5}}},                               // the operands swapped: y^T = B^T A^T
    {"bji,bjk->kib", {{3, 6, 5}, {3, 6, 4}}},                      // no strides express y: canonical copies
    {"ij,kj->", {{4, 6}, {5, 6}}},                                 // i and k summed away first, then a dot
    {"i,i->", {{37}, {37}}},                                       // inner product
    {"i,j->ij", {{9}, {10}}},                                      // outer product (K = 1)
    {"ij,ij->i", {{8, 12}, {8, 12}}},                              // row-wise dots (batch i)
    {"ii,i->i", {{6, 6}, {6}}},                                    // a diagonal read through strides
    {"...ij,...jk->...ik", {{2, 1, 4, 5}, {3, 5, 6}}},             // ellipses broadcast
    {"abc,cd,de->abe", {{2, 3, 4}, {4, 5}, {5, 6}}},               // three operands: an intermediate
    {"ij->ji", {{5, 7}}},                                          // one operand: a copy
    {"ijk->ki", {{4, 5, 6}}},                                      // one operand: a strided sum
    {"ii->", {{7, 7}}},                                            // trace
    // torchvision's MaxViT writes its attention this way: three batch labels, spaces.
    {"B G H I D, B G H J D -> B G H I J", {{1, 2, 3, 7, 8}, {1, 2, 3, 9, 8}}},
    {"B G H I J, B G H J D -> B G H I D", {{1, 2, 3, 7, 9}, {1, 2, 3, 9, 8}}},
    {"bij,bjk->ibk", {{3, 5, 6}, {3, 6, 7}}},                      // a MatMul storing through a Transpose
};

TEST(EinsumOp, GpuMatchesCpu) {
    VKINFER_REQUIRE_GPU();
    for (const Case& c : kCases) {
        SCOPED_TRACE(c.equation);
        const auto in = randomInputs(c.shapes, c.equation);
        expectGpuMatchesCpu(einsumModel(c.equation, c.shapes), in, c.equation);
        expectGpuMatchesCpu(einsumModel(c.equation, c.shapes), in, c.equation + " fp16", Tolerance{5e-3, 5e-3, true},
                            Precision::Float16);
    }
}

// Attention written as einsum in float16 on the (emulated) tensor-core GEMM.
TEST(EinsumOp, TensorCoreGemm) {
    VKINFER_REQUIRE_GPU();
    const std::vector<Shape> shapes{{1, 2, 64, 32}, {1, 2, 48, 32}};
    const OnnxBuilder b = einsumModel("bhid,bhjd->bhij", shapes);
    DeviceDescription dev;
    dev.kernels.emulateCooperativeMatrix = true;
    const auto kernels = planKernels(b, {{"x0", shapes[0]}, {"x1", shapes[1]}}, dev, Precision::Float16);
    EXPECT_TRUE(std::any_of(kernels.begin(), kernels.end(), [](const std::string& k) { return k.rfind("gemm_cm", 0) == 0; }))
        << fmt::format("{}", fmt::join(kernels, " "));
    SessionOptions o;
    o.precision = Precision::Float16;
    o.kernels.emulateCooperativeMatrix = true;
    expectGpuMatchesCpuWith(b, randomInputs(shapes, "einsum cm"), "einsum on gemm_cm", Tolerance{5e-3, 5e-3, true}, o);
}

TEST(EinsumOp, ProductsReadOperandsWhereTheyAre) {
    // No copies: a batched product, q k^T, a transposed weight and MaxViT's attention products
    // are one GEMM dispatch each.
    for (const Case& c : {kCases[0], kCases[1], kCases[4], kCases[5], kCases[17], kCases[18], kCases[19]}) {
        const auto in = randomInputs(c.shapes, c.equation);
        EXPECT_EQ(planDispatches(einsumModel(c.equation, c.shapes), in), 1) << c.equation;
    }
}

// Attention written as two einsums (MaxViT: three batch labels, a position bias) becomes MatMuls
// (passes/einsum_matmul.h), which the attention fusion then takes: one fused dispatch.
TEST(EinsumOp, AttentionOfEinsumsIsFused) {
    const Shape q{1, 2, 3, 16, 8}, k{1, 2, 3, 12, 8};
    OnnxBuilder b(13);
    b.input("q", q).input("k", k).input("v", k).output("y");
    b.initializer("scale", floatTensor({}, {0.35f})).initializer("bias", randomTensor({3, 16, 12}, 3, -1, 1));
    attr(b.node("Einsum", {"q", "k"}, {"s"}), "equation", std::string("B G H I D, B G H J D -> B G H I J"));
    b.node("Mul", {"s", "scale"}, {"t"});
    b.node("Add", {"t", "bias"}, {"u"});
    attr(b.node("Softmax", {"u"}, {"p"}), "axis", int64_t{-1});
    attr(b.node("Einsum", {"p", "v"}, {"y"}), "equation", std::string("B G H I J, B G H J D -> B G H I D"));
    const auto kernels = planKernels(b, {{"q", q}, {"k", k}, {"v", k}}, DeviceDescription{}, Precision::Float32);
    ASSERT_EQ(kernels.size(), 1u) << fmt::format("{}", fmt::join(kernels, " "));
    EXPECT_EQ(kernels[0].rfind("attention", 0), 0u) << kernels[0];
    if (!gpuAvailable()) return;
    const std::vector<NamedTensor> in{{"q", randomTensor(q, 1, -1, 1)}, {"k", randomTensor(k, 2, -1, 1)},
                                      {"v", randomTensor(k, 3, -1, 1)}};
    expectGpuMatchesCpu(b, in, "einsum attention");
    expectGpuMatchesCpu(b, in, "einsum attention fp16", Tolerance{5e-3, 5e-3, true}, Precision::Float16);
}

TEST(EinsumOp, RefusesBadEquationsNamingTheNode) {
    const std::pair<std::string, std::vector<Shape>> bad[] = {
        {"ij,jk->ik", {{2, 3}, {4, 5}}},    // j is 3 and 4
        {"ijk->i", {{2, 3}}},               // three subscripts for rank 2
        {"ij->iz", {{2, 3}}},               // z is in no input
        {"ij->ii", {{2, 3}}},               // output repeats i
        {"i.j->i", {{2, 3}}},               // a lone '.'
        {"i1->i", {{2, 3}}},                // not a letter
        {"ij,jk->ik", {{2, 3}}},            // two terms, one input
    };
    for (const auto& [equation, shapes] : bad) {
        auto model = einsumModel(equation, shapes).build();
        ASSERT_TRUE(model.ok()) << model.status().toString();
        InputShapes s;
        for (size_t i = 0; i < shapes.size(); ++i) s.emplace_back(fmt::format("x{}", i), shapes[i]);
        auto r = planSummary(*model, s);
        ASSERT_FALSE(r.ok()) << equation;
        EXPECT_EQ(r.status().code(), ErrorCode::ShapeError) << equation << ": " << r.status().toString();
        EXPECT_NE(r.status().message().find("Einsum"), std::string::npos) << r.status().message();
    }
}

// Constant operands fold on the CPU, whose loop forms every label combination: 2^33 products
// for three vectors of 2048 (minutes there) are left to the GPU, which multiplies pairwise.
TEST(EinsumOp, AFoldPastTheWorkBudgetRunsOnTheGpu) {
    OnnxBuilder b(12);
    b.input("x", {1}).output("y");
    for (const char* name : {"a", "b", "c"}) b.initializer(name, randomTensor({2048}, 5, 0, 1));
    attr(b.node("Einsum", {"a", "b", "c"}, {"e"}), "equation", std::string("i,j,k->"));
    b.node("Add", {"x", "e"}, {"y"});
    auto model = b.build();
    ASSERT_TRUE(model.ok()) << model.status().toString();
    // 2^33 products: not folded (passes/specialize.cpp's work budget) but lowered.
    auto r = planSummary(*model, {{"x", {1}}});
    ASSERT_TRUE(r.ok()) << r.status().toString();
    EXPECT_GE(r->dispatches, 2u);
    EXPECT_LT(r->weightBytes, 3u * 2048 * 4 + 1024);
}

}  // namespace
}  // namespace vkinfer::testing
