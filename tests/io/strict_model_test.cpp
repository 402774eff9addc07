// What a careless exporter writes is refused at load, naming what is wrong: two graph inputs
// or outputs of one name, a negative declared dimension, a Clip bound of another type.
#include <gtest/gtest.h>

#include "support/onnx_builder.h"

namespace vkinfer {
namespace {

using testing::OnnxBuilder;

TEST(StrictModel, DuplicateGraphOutputNamesAreRefused) {
    OnnxBuilder b;
    b.input("x", {4}).output("y").output("y");
    b.node("Relu", {"x"}, {"y"});
    auto m = b.build();
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().toString(), "parse error: test model: the graph lists output 'y' twice");
}

// Twice the same input, also one with an initializer (its default): a fuzzer's model made
// the second listing take a default the first had already taken (undefined).
TEST(StrictModel, DuplicateGraphInputNamesAreRefused) {
    for (bool withDefault : {false, true}) {
        OnnxBuilder b;
        b.input("x", {4}).input("x", {4}).output("y");
        if (withDefault) b.initializer("x", testing::floatTensor({4}, {1, 2, 3, 4}));
        b.node("Relu", {"x"}, {"y"});
        auto m = b.build();
        ASSERT_FALSE(m.ok());
        EXPECT_EQ(m.status().toString(), "parse error: test model: the graph lists input 'x' twice");
    }
}

// A Clip bound of another type than the data is refused when planning, in words that read
// (an int8, not "a int8").
TEST(StrictModel, ClipBoundOfAnotherTypeIsNamed) {
    OnnxBuilder b;
    b.input("x", {4}, DataType::Int8).output("y", DataType::Int8);
    b.initializer("lo", testing::floatTensor({}, {0.5f}));
    b.node("Clip", {"x", "lo"}, {"y"}, "clip");
    auto m = b.build();
    ASSERT_TRUE(m.ok()) << m.status().toString();
    auto plan = planJson(*m, {});
    ASSERT_FALSE(plan.ok());
    EXPECT_NE(plan.status().message().find("bound 'lo' must be an int8 scalar, got a float32 tensor of shape"),
              std::string::npos)
        << plan.status().message();
}

TEST(StrictModel, NegativeDimensionsAreRefused) {
    OnnxBuilder b;
    b.input("x", {1, 4}).output("y");
    b.node("Relu", {"x"}, {"y"});
    b.proto().mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_value(-3);
    auto m = b.build();
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().toString(), "parse error: 'x' declares dimension 1 as -3: a dimension is a size >= 0 or a name");
}

}  // namespace
}  // namespace vkinfer
