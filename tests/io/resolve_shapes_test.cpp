// Model::resolveShapes: completing input shapes from what the caller gives.
#include <gtest/gtest.h>
#include <vkinfer/vkinfer.h>

#include "io/io_test_util.h"
#include "support/onnx_builder.h"

namespace vkinfer::testing {
namespace {

// image [N?, 3, H?, W?] and a static table [2, 4].
Model twoInputModel() {
    OnnxBuilder b;
    b.input("image", {-1, 3, -1, -1});
    b.input("table", {2, 4});
    b.node("Relu", {"image"}, {"a"});
    b.node("Relu", {"table"}, {"b"});
    b.output("a");
    b.output("b");
    auto m = b.build();
    if (!m.ok()) throw std::runtime_error(m.status().toString());
    return std::move(m).value();
}

TEST(IoResolveShapes, FillsStaticInputsAndKeepsModelOrder) {
    Model m = twoInputModel();
    auto r = m.resolveShapes({{"image", {2, 3, 8, 16}}});
    ASSERT_TRUE(r.ok()) << r.status().toString();
    ASSERT_EQ(r->size(), 2u);
    EXPECT_EQ((*r)[0].first, "image");
    EXPECT_EQ((*r)[0].second, (std::vector<int64_t>{2, 3, 8, 16}));
    EXPECT_EQ((*r)[1].first, "table");
    EXPECT_EQ((*r)[1].second, (std::vector<int64_t>{2, 4}));

    // Given in the other order, with the static one restated: same result, model order.
    auto r2 = m.resolveShapes({{"table", {2, 4}}, {"image", {1, 3, 5, 5}}});
    ASSERT_TRUE(r2.ok()) << r2.status().toString();
    EXPECT_EQ((*r2)[0].first, "image");
    EXPECT_EQ((*r2)[0].second, (std::vector<int64_t>{1, 3, 5, 5}));
}

TEST(IoResolveShapes, UnknownInputNameListsTheInputs) {
    Model m = twoInputModel();
    auto r = m.resolveShapes({{"imag", {1, 3, 4, 4}}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(r.status().message(), "'imag'"));
    EXPECT_TRUE(contains(r.status().message(), "'image'"));
    EXPECT_TRUE(contains(r.status().message(), "'table'"));
}

TEST(IoResolveShapes, WrongRank) {
    Model m = twoInputModel();
    auto r = m.resolveShapes({{"image", {3, 8, 8}}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(r.status().message(), "'image'"));
    EXPECT_TRUE(contains(r.status().message(), "rank 3"));
    EXPECT_TRUE(contains(r.status().message(), "rank 4"));
}

TEST(IoResolveShapes, MismatchingStaticDim) {
    Model m = twoInputModel();
    auto r = m.resolveShapes({{"image", {1, 4, 8, 8}}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(r.status().message(), "1x4x8x8"));
    EXPECT_TRUE(contains(r.status().message(), "?x3x?x?"));
    EXPECT_TRUE(contains(r.status().message(), "dimension 1"));

    auto t = m.resolveShapes({{"image", {1, 3, 8, 8}}, {"table", {2, 5}}});
    ASSERT_FALSE(t.ok());
    EXPECT_TRUE(contains(t.status().message(), "'table'"));
    EXPECT_TRUE(contains(t.status().message(), "dimension 1"));
}

TEST(IoResolveShapes, MissingDynamicDimSaysWhich) {
    Model m = twoInputModel();
    auto r = m.resolveShapes({});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(r.status().message(), "'image'"));
    EXPECT_TRUE(contains(r.status().message(), "dimension 0"));
    EXPECT_TRUE(contains(r.status().message(), "'dim0'"));
    EXPECT_TRUE(contains(r.status().message(), "--shape image="));
}

TEST(IoResolveShapes, NegativeDimIsRejected) {
    Model m = twoInputModel();
    auto r = m.resolveShapes({{"image", {1, 3, -1, 8}}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), ErrorCode::InvalidArgument);
    EXPECT_TRUE(contains(r.status().message(), "negative"));
}

TEST(IoResolveShapes, StaticModelNeedsNothing) {
    OnnxBuilder b;
    b.input("x", {1, 2, 3});
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    auto m = b.build();
    ASSERT_TRUE(m.ok());
    auto r = m->resolveShapes({});
    ASSERT_TRUE(r.ok()) << r.status().toString();
    ASSERT_EQ(r->size(), 1u);
    EXPECT_EQ((*r)[0].second, (std::vector<int64_t>{1, 2, 3}));
}

}  // namespace
}  // namespace vkinfer::testing
