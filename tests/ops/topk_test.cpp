// TopK (what exporters write for top-k classes, detection heads and k-nearest lookups): the
// reference against hand-computed values (ties by lower index, NaN above every number), the
// GPU against the reference for each kernel type (every integer type too), both orders and axes, in float32 and
// float16, with K as an initializer and as a graph input bound by value; bad K refused.
#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

OnnxBuilder topkModel(const Shape& x, DataType type, int64_t k, int64_t axis, bool largest, bool kIsInput = false) {
    OnnxBuilder b(11);
    b.input("x", x, type);
    if (kIsInput) b.input("k", {1}, DataType::Int64);
    else b.initializer("k", int64Tensor({1}, {k}));
    b.output("values", type).output("indices", DataType::Int64);
    auto& n = b.node("TopK", {"x", "k"}, {"values", "indices"});
    attr(n, "axis", axis);
    attr(n, "largest", int64_t{largest ? 1 : 0});
    return b;
}

TEST(TopKOp, ReferenceMatchesHandComputed) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // Ties keep the lower index first; NaN ranks above every number.
    const Tensor x = floatTensor({2, 5}, {3, 1, 3, 7, 1, 2, nan, 5, 2, 0});
    expectReferenceEquals(topkModel({2, 5}, DataType::Float32, 3, 1, true), {{"x", x}},
                          {floatTensor({2, 3}, {7, 3, 3, nan, 5, 2}), int64Tensor({2, 3}, {3, 0, 2, 1, 2, 0})},
                          "largest 3");
    expectReferenceEquals(topkModel({2, 5}, DataType::Float32, 2, -1, false), {{"x", x}},
                          {floatTensor({2, 2}, {1, 1, 0, 2}), int64Tensor({2, 2}, {1, 4, 4, 0})}, "smallest 2");
    // Along axis 0, K given as a graph input.
    expectReferenceEquals(topkModel({2, 5}, DataType::Float32, 1, 0, true, true),
                          {{"x", x}, {"k", int64Tensor({1}, {1})}},
                          {floatTensor({1, 5}, {3, nan, 5, 7, 1}), int64Tensor({1, 5}, {0, 1, 1, 0, 0})}, "axis 0");
}

TEST(TopKOp, GpuMatchesCpu) {
    VKINFER_REQUIRE_GPU();
    const Shape shape{3, 37, 4};
    for (int64_t axis : {1, 2, 0})
        for (bool largest : {true, false})
            for (int64_t k : {1, 3}) {
                const std::string what = fmt::format("TopK axis={} largest={} k={}", axis, largest, k);
                // Values from few levels: many ties, which must break by index.
                const Tensor x = convertTensor(randomIntTensor(shape, DataType::Int32, seedOf(what), -4, 4),
                                               DataType::Float32);
                auto m = topkModel(shape, DataType::Float32, k, axis, largest, true);
                expectGpuMatchesCpu(m, {{"x", x}, {"k", int64Tensor({1}, {k})}}, what, exactTolerance());
                expectGpuMatchesCpu(m, {{"x", x}, {"k", int64Tensor({1}, {k})}}, what + " fp16", exactTolerance(),
                                    Precision::Float16);
            }
    for (DataType type : {DataType::Int32, DataType::Int64, DataType::Int8, DataType::Int16, DataType::UInt8,
                          DataType::UInt16, DataType::UInt32, DataType::UInt64}) {
        const std::string what = fmt::format("TopK {}", dataTypeName(type));
        const bool isUnsigned = type == DataType::UInt8 || type == DataType::UInt16 || type == DataType::UInt32 ||
                                type == DataType::UInt64;
        const Tensor x = randomIntTensor({5, 100}, type, seedOf(what), isUnsigned ? 0 : -50, isUnsigned ? 120 : 50);
        expectGpuMatchesCpu(topkModel({5, 100}, type, 10, -1, true), {{"x", x}}, what, exactTolerance());
        expectGpuMatchesCpu(topkModel({5, 100}, type, 7, -1, false), {{"x", x}}, what + " smallest", exactTolerance());
    }
    // uint64 orders above 2^63 as unsigned (as int64 these would be the smallest).
    const double big = 9223372036854775808.0;  // 2^63
    expectReferenceEquals(topkModel({1, 4}, DataType::UInt64, 2, 1, true),
                          {{"x", typedTensor(DataType::UInt64, {1, 4}, {1, big + 4096, 5, big})}},
                          {typedTensor(DataType::UInt64, {1, 2}, {big + 4096, big}), int64Tensor({1, 2}, {1, 3})},
                          "uint64 past 2^63");
    // Every element (k = the axis length): a full sort.
    const Tensor x = randomTensor({2, 64}, 5, -1, 1);
    expectGpuMatchesCpu(topkModel({2, 64}, DataType::Float32, 64, 1, false), {{"x", x}}, "TopK full sort");
}

TEST(TopKOp, RefusesAKOutsideTheAxis) {
    for (int64_t k : {-1, 6}) {
        auto m = topkModel({2, 5}, DataType::Float32, k, 1, true).build();
        ASSERT_TRUE(m.ok()) << m.status().toString();
        auto s = planSummary(*m, {{"x", {2, 5}}});
        ASSERT_FALSE(s.ok()) << k;
        EXPECT_EQ(s.status().code(), ErrorCode::ShapeError) << s.status().toString();
        EXPECT_NE(s.status().message().find("is outside [0, 5]"), std::string::npos) << s.status().message();
    }
    // TopK-1 took k as an attribute: an opset-9 model is refused by opset, not misread.
    OnnxBuilder old(9);
    old.input("x", {2, 5}).output("values").output("indices", DataType::Int64);
    attr(old.node("TopK", {"x"}, {"values", "indices"}), "k", int64_t{2});
    auto m = old.build();
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().code(), ErrorCode::Unsupported) << m.status().toString();
}

}  // namespace
}  // namespace vkinfer::testing
