// Indices out of range (an error in ONNX): constant ones fail the plan; ones computed at run
// time are reported by the kernel (shaders/index_status.glsl) and fail the run naming the
// node, the indices tensor, the index and the extent, with no outputs returned. The next
// run of the same frame slot, with good indices, must match the CPU reference again.
#include <cstdint>
#include <string>

#include "ops/op_harness.h"

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

Session makeSession(const OnnxBuilder& b, uint32_t framesInFlight = 1) {
    auto model = b.build();
    if (!model.ok()) throw std::runtime_error(model.status().toString());
    SessionOptions options;
    options.framesInFlight = framesInFlight;
    auto s = Session::create(gpuContext(), *model, options);
    if (!s.ok()) throw std::runtime_error(s.status().toString());
    return std::move(s).value();
}

// Expects the run to fail with an index report containing each of `words`.
void expectIndexError(Session& s, const std::vector<NamedTensor>& inputs, const std::vector<std::string>& words) {
    auto out = s.run(inputs);
    ASSERT_FALSE(out.ok()) << "an out-of-range index was not reported";
    EXPECT_EQ(out.status().code(), ErrorCode::InvalidArgument) << out.status().toString();
    for (const auto& w : words) EXPECT_NE(out.status().message().find(w), std::string::npos) << out.status().message();
}

// Expects the run to succeed and to match the CPU reference.
void expectMatchesReference(Session& s, const OnnxBuilder& b, const std::vector<NamedTensor>& inputs,
                            const std::string& what) {
    auto out = s.run(inputs);
    ASSERT_TRUE(out.ok()) << what << ": " << out.status().toString();
    auto ref = cpuReference(b, inputs, what);
    ASSERT_EQ(ref.size(), out->size());
    for (size_t k = 0; k < ref.size(); ++k) expectTensorNear(out->at(k).tensor, ref[k], what, opTolerance());
}

Tensor int32Tensor(const Shape& shape, const std::vector<int32_t>& v) {
    return Tensor::fromVector(DataType::Int32, shape, v);
}

OnnxBuilder gather(DataType indexType, int64_t axis = 0) {
    OnnxBuilder b;
    b.input("x", {5, 3}).input("idx", {4}, indexType).output("y");
    attr(b.node("Gather", {"x", "idx"}, {"y"}, "embed"), "axis", axis);
    return b;
}

TEST(IndexCheck, GatherRuntimeIndices) {
    VKINFER_REQUIRE_GPU();
    const Tensor x = randomTensor({5, 3}, 11);
    OnnxBuilder b = gather(DataType::Int64);
    Session s = makeSession(b);
    expectIndexError(s, {{"x", x}, {"idx", int64Tensor({4}, {0, 4, 5, 1})}},
                     {"node 'embed' (Gather)", "index 5 in 'idx'", "extent 5", "-5 to 4", "not returned"});
    expectMatchesReference(s, b, {{"x", x}, {"idx", int64Tensor({4}, {0, 4, -5, 1})}}, "good indices after a bad run");
    expectIndexError(s, {{"x", x}, {"idx", int64Tensor({4}, {0, -6, 1, 1})}}, {"index -6"});
    // The high word counts: 2^32 + 1 reads as 1 through the low word alone.
    expectIndexError(s, {{"x", x}, {"idx", int64Tensor({4}, {0, (int64_t{1} << 32) + 1, 1, 1})}},
                     {"index 4294967297"});
    expectIndexError(s, {{"x", x}, {"idx", int64Tensor({4}, {0, -(int64_t{1} << 32), 1, 1})}},
                     {"index -4294967296"});

    OnnxBuilder b32 = gather(DataType::Int32, 1);
    Session s32 = makeSession(b32);
    expectIndexError(s32, {{"x", x}, {"idx", int32Tensor({4}, {0, 2, 3, 1})}}, {"index 3", "extent 3"});
    expectMatchesReference(s32, b32, {{"x", x}, {"idx", int32Tensor({4}, {0, 2, -3, 1})}}, "int32 indices");
}

TEST(IndexCheck, GatherElementsAndScatters) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder ge;
    ge.input("x", {2, 4}).input("idx", {2, 3}, DataType::Int64).output("y");
    attr(ge.node("GatherElements", {"x", "idx"}, {"y"}, "ge"), "axis", int64_t{1});
    Session sge = makeSession(ge);
    const Tensor x = randomTensor({2, 4}, 12);
    expectIndexError(sge, {{"x", x}, {"idx", int64Tensor({2, 3}, {0, 1, 2, 3, 4, 0})}},
                     {"node 'ge' (GatherElements)", "index 4", "extent 4"});
    expectMatchesReference(sge, ge, {{"x", x}, {"idx", int64Tensor({2, 3}, {0, 1, 2, 3, -4, 0})}}, "GatherElements");

    OnnxBuilder se(13);
    se.input("x", {2, 4}).input("idx", {2, 2}, DataType::Int64).input("u", {2, 2}).output("y");
    attr(se.node("ScatterElements", {"x", "idx", "u"}, {"y"}, "se"), "axis", int64_t{0});
    Session sse = makeSession(se);
    const Tensor u = randomTensor({2, 2}, 13);
    // Before the check an out-of-range update was silently dropped.
    expectIndexError(sse, {{"x", x}, {"idx", int64Tensor({2, 2}, {0, 1, 2, 0})}, {"u", u}},
                     {"node 'se' (ScatterElements)", "index 2", "extent 2"});
    expectMatchesReference(sse, se, {{"x", x}, {"idx", int64Tensor({2, 2}, {0, 1, -2, 0})}, {"u", u}},
                           "ScatterElements");

    OnnxBuilder gnd(13);
    gnd.input("x", {4, 4}).input("idx", {2, 2}, DataType::Int64).output("y");
    gnd.node("GatherND", {"x", "idx"}, {"y"}, "gnd");
    Session sgnd = makeSession(gnd);
    expectIndexError(sgnd, {{"x", randomTensor({4, 4}, 16)}, {"idx", int64Tensor({2, 2}, {3, 3, 0, 4})}},
                     {"node 'gnd' (GatherND)", "index 4", "extent 4"});
    expectMatchesReference(sgnd, gnd, {{"x", randomTensor({4, 4}, 16)}, {"idx", int64Tensor({2, 2}, {3, 3, 0, -4})}},
                           "GatherND");

    OnnxBuilder nd(13);
    nd.input("x", {4, 4}).input("idx", {2, 2}, DataType::Int64).input("u", {2}).output("y");
    nd.node("ScatterND", {"x", "idx", "u"}, {"y"}, "nd");
    Session snd = makeSession(nd);
    const Tensor x44 = randomTensor({4, 4}, 14);
    // (0, 5) once wrote element 5 = (1, 1) of the flattened data: a wrong element, silently.
    expectIndexError(snd, {{"x", x44}, {"idx", int64Tensor({2, 2}, {3, 3, 0, 5})}, {"u", floatTensor({2}, {7, 8})}},
                     {"node 'nd' (ScatterND)", "index 5", "extent 4"});
    expectMatchesReference(snd, nd, {{"x", x44}, {"idx", int64Tensor({2, 2}, {3, 3, 0, -4})}, {"u", floatTensor({2}, {7, 8})}},
                           "ScatterND");
}

// Reports belong to the frame slot that ran: a bad frame in flight does not fail the other,
// and waiting twice for the failed ticket does not return its outputs.
TEST(IndexCheck, SubmitAndWaitPerFrame) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b = gather(DataType::Int64);
    Session s = makeSession(b, 2);
    const Tensor x = randomTensor({5, 3}, 15);
    auto bad = s.submit({{"x", x}, {"idx", int64Tensor({4}, {9, 0, 0, 0})}});
    auto good = s.submit({{"x", x}, {"idx", int64Tensor({4}, {1, 2, 3, 4})}});
    ASSERT_TRUE(bad.ok() && good.ok());
    auto goodOut = s.wait(*good);
    EXPECT_TRUE(goodOut.ok()) << goodOut.status().toString();
    auto badOut = s.wait(*bad);
    ASSERT_FALSE(badOut.ok());
    EXPECT_NE(badOut.status().message().find("index 9"), std::string::npos) << badOut.status().message();
    auto again = s.wait(*bad);
    ASSERT_FALSE(again.ok());
    EXPECT_NE(again.status().message().find("not outstanding"), std::string::npos) << again.status().message();
}

// Constant indices are checked when planning, every one of them (an irregular list went to
// the kernel unchecked after its first two entries).
TEST(IndexCheck, ConstantIndicesFailThePlan) {
    for (const auto& indices : {Shape{1, 0, 7}, Shape{0, 1, 2, -6}}) {
        OnnxBuilder b;
        b.input("x", {5, 3}).output("y");
        b.initializer("idx", int64Tensor({static_cast<int64_t>(indices.size())}, indices));
        b.node("Gather", {"x", "idx"}, {"y"}, "embed");
        auto model = b.build();
        ASSERT_TRUE(model.ok());
        auto summary = planSummary(*model, {{"x", {5, 3}}});
        ASSERT_FALSE(summary.ok());
        EXPECT_EQ(summary.status().code(), ErrorCode::ShapeError);
        EXPECT_NE(summary.status().message().find("'embed'"), std::string::npos) << summary.status().message();
        EXPECT_NE(summary.status().message().find("extent 5"), std::string::npos) << summary.status().message();
    }
}

}  // namespace
}  // namespace vkinfer::testing
