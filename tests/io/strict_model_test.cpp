// What a careless exporter writes is refused at load, naming what is wrong: two graph outputs
// of one name, a negative declared dimension.
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
