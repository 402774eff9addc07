// Trilu and CumSum, which exporters write for causal masks and position ids: the reference
// against hand-computed values, the GPU against the reference for every element size
// (Trilu) and kernel type (CumSum), in float32 and float16, with the plan-time operands (k,
// axis) given as initializers and as graph inputs bound by value; bad operands refused
// naming the node.
#include <fmt/format.h>

#include <optional>

#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

OnnxBuilder triluModel(const Shape& shape, DataType type, bool upper, std::optional<int64_t> k, bool kIsInput) {
    OnnxBuilder b(14);
    b.input("x", shape, type);
    std::vector<std::string> ins{"x"};
    if (k) {
        if (kIsInput) b.input("k", {}, DataType::Int64);
        else b.initializer("k", int64Tensor({}, {*k}));
        ins.push_back("k");
    }
    b.output("y", type);
    attr(b.node("Trilu", ins, {"y"}), "upper", int64_t{upper ? 1 : 0});
    return b;
}

TEST(TriluOp, ReferenceMatchesHandComputed) {
    const Tensor x = iotaTensor({3, 4}, 1.0f);  // 1..12
    expectReferenceEquals(triluModel({3, 4}, DataType::Float32, true, std::nullopt, false), {{"x", x}},
                          {floatTensor({3, 4}, {1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12})}, "triu");
    expectReferenceEquals(triluModel({3, 4}, DataType::Float32, false, -1, false), {{"x", x}},
                          {floatTensor({3, 4}, {0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0})}, "tril k=-1");
    expectReferenceEquals(triluModel({3, 4}, DataType::Float32, true, 2, true), {{"x", x}, {"k", int64Tensor({}, {2})}},
                          {floatTensor({3, 4}, {0, 0, 3, 4, 0, 0, 0, 8, 0, 0, 0, 0})}, "triu k=2 as an input");
    // A k far beyond the matrix keeps everything (lower) or nothing (upper), without overflow.
    expectReferenceEquals(triluModel({3, 4}, DataType::Float32, false, int64_t{1} << 62, false), {{"x", x}}, {x},
                          "tril k=2^62");
}

TEST(TriluOp, GpuMatchesCpuForEveryElementSize) {
    VKINFER_REQUIRE_GPU();
    const Shape shape{2, 3, 5, 7};
    for (DataType type : {DataType::Float32, DataType::Int64, DataType::Int16, DataType::UInt8, DataType::Bool})
        for (bool upper : {true, false})
            for (int64_t k : {-9, -2, 0, 3, 100}) {
                const std::string what = fmt::format("Trilu {} upper={} k={}", dataTypeName(type), upper, k);
                const uint32_t seed = seedOf(what);
                const Tensor x = type == DataType::Float32 ? randomTensor(shape, seed, -5, 5)
                                 : type == DataType::Bool  ? randomIntTensor(shape, type, seed, 0, 1)
                                 : type == DataType::UInt8 ? randomIntTensor(shape, type, seed, 1, 255)
                                                           : randomIntTensor(shape, type, seed, -1000, 1000);
                expectGpuMatchesCpu(triluModel(shape, type, upper, k, true), {{"x", x}, {"k", int64Tensor({}, {k})}},
                                    what, exactTolerance());
            }
    // float16 tensors (2-byte elements) under fp16 precision; k omitted (the main diagonal).
    const Tensor x = randomTensor({4, 9, 6}, 11, -3, 3);
    expectGpuMatchesCpu(triluModel({4, 9, 6}, DataType::Float32, false, std::nullopt, false), {{"x", x}},
                        "Trilu fp16", Tolerance{1e-3, 1e-3, true}, Precision::Float16);
}

TEST(TriluOp, RefusesWhatItCannotBe) {
    // Rank 1 has no matrix; k must be an int64 scalar.
    auto rank1 = triluModel({5}, DataType::Float32, true, std::nullopt, false).build();
    ASSERT_TRUE(rank1.ok()) << rank1.status().toString();
    auto s = planSummary(*rank1, {{"x", {5}}});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), ErrorCode::ShapeError) << s.status().toString();
    EXPECT_NE(s.status().message().find("Trilu"), std::string::npos) << s.status().message();

    OnnxBuilder vec(14);
    vec.input("x", {3, 3}).output("y").initializer("k", int64Tensor({2}, {0, 1}));
    vec.node("Trilu", {"x", "k"}, {"y"});
    auto m = vec.build();
    ASSERT_TRUE(m.ok());
    s = planSummary(*m, {{"x", {3, 3}}});
    ASSERT_FALSE(s.ok());
    EXPECT_NE(s.status().message().find("k must be a scalar"), std::string::npos) << s.status().message();
}

OnnxBuilder cumsumModel(const Shape& shape, DataType type, int64_t axis, bool exclusive, bool reverse,
                        bool axisIsInput, DataType axisType = DataType::Int64) {
    OnnxBuilder b(14);
    b.input("x", shape, type);
    if (axisIsInput) b.input("axis", {}, axisType);
    else b.initializer("axis", typedTensor(axisType, {}, {static_cast<double>(axis)}));
    b.output("y", type);
    auto& n = b.node("CumSum", {"x", "axis"}, {"y"});
    attr(n, "exclusive", int64_t{exclusive ? 1 : 0});
    attr(n, "reverse", int64_t{reverse ? 1 : 0});
    return b;
}

TEST(CumSumOp, ReferenceMatchesHandComputed) {
    const Tensor x = floatTensor({5}, {1, 2, 3, 4, 5});
    expectReferenceEquals(cumsumModel({5}, DataType::Float32, 0, false, false, false), {{"x", x}},
                          {floatTensor({5}, {1, 3, 6, 10, 15})}, "inclusive");
    expectReferenceEquals(cumsumModel({5}, DataType::Float32, 0, true, false, false), {{"x", x}},
                          {floatTensor({5}, {0, 1, 3, 6, 10})}, "exclusive");
    expectReferenceEquals(cumsumModel({5}, DataType::Float32, 0, false, true, false), {{"x", x}},
                          {floatTensor({5}, {15, 14, 12, 9, 5})}, "reverse");
    expectReferenceEquals(cumsumModel({5}, DataType::Float32, 0, true, true, false), {{"x", x}},
                          {floatTensor({5}, {14, 12, 9, 5, 0})}, "reverse exclusive");
    // Along axis 0 of [2, 3] (given as -2, int32), as an input bound by value.
    expectReferenceEquals(
        cumsumModel({2, 3}, DataType::Float32, -2, false, false, true, DataType::Int32),
        {{"x", floatTensor({2, 3}, {1, 2, 3, 4, 5, 6})}, {"axis", typedTensor(DataType::Int32, {}, {-2})}},
        {floatTensor({2, 3}, {1, 2, 3, 5, 7, 9})}, "axis -2");
}

TEST(CumSumOp, GpuMatchesCpu) {
    VKINFER_REQUIRE_GPU();
    const Shape shape{3, 17, 5};
    for (int64_t axis : {0, 1, 2, -1})
        for (bool exclusive : {false, true})
            for (bool reverse : {false, true}) {
                const std::string what = fmt::format("CumSum axis={} exclusive={} reverse={}", axis, exclusive, reverse);
                const Tensor x = randomTensor(shape, seedOf(what), -2, 2);
                auto m = cumsumModel(shape, DataType::Float32, axis, exclusive, reverse, true);
                expectGpuMatchesCpu(m, {{"x", x}, {"axis", int64Tensor({}, {axis})}}, what);
                expectGpuMatchesCpu(m, {{"x", x}, {"axis", int64Tensor({}, {axis})}}, what + " fp16",
                                    Tolerance{2e-3, 2e-3, true}, Precision::Float16);
            }
    // Integers sum exactly and wrap on overflow as two's complement does (the kernel and the
    // reference alike): int32 values near its limit.
    for (DataType type : {DataType::Int32, DataType::Int64}) {
        const std::string what = fmt::format("CumSum {}", dataTypeName(type));
        const int64_t big = type == DataType::Int32 ? (int64_t{1} << 30) : (int64_t{1} << 61);
        const Tensor x = randomIntTensor({4, 40}, type, seedOf(what), -big, big);
        expectGpuMatchesCpu(cumsumModel({4, 40}, type, 1, false, false, false), {{"x", x}}, what, exactTolerance());
    }
}

TEST(CumSumOp, RefusesWhatItCannotRun) {
    // float64 has no GPU arithmetic (shaderFloat64 is not enabled): refused, not computed wrong.
    expectUnsupported(cumsumModel({6}, DataType::Float64, 0, false, false, false),
                      {{"x", convertTensor(iotaTensor({6}), DataType::Float64)}}, "CumSum float64");
    // The axis must be a scalar in range.
    auto m = cumsumModel({2, 3}, DataType::Float32, 2, false, false, false).build();
    ASSERT_TRUE(m.ok());
    auto s = planSummary(*m, {{"x", {2, 3}}});
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), ErrorCode::ShapeError) << s.status().toString();
    EXPECT_NE(s.status().message().find("axis 2 is out of range"), std::string::npos) << s.status().message();
}

}  // namespace
}  // namespace vkinfer::testing
