// Nodes with more or fewer inputs or outputs than their operator takes (ONNX's schemas, per
// opset: src/ops/arity_table.inc) are refused at load in those words, naming the node.
#include <gtest/gtest.h>

#include "support/onnx_builder.h"

namespace vkinfer {
namespace {

using testing::OnnxBuilder;

std::string loadError(const OnnxBuilder& b) {
    auto m = b.build();
    return m.ok() ? std::string() : m.status().toString();
}

TEST(NodeArity, TooManyInputsIsSaidSo) {
    OnnxBuilder b;
    b.input("x", {4}).output("y");
    b.node("Relu", {"x", "x", "x"}, {"y"}, "r");
    EXPECT_EQ(loadError(b), "parse error: test model: node 'r' (Relu): Relu takes 1 input at opset 13, the node has 3");
}

TEST(NodeArity, MissingRequiredInputAndExtraOutput) {
    OnnxBuilder b;
    b.input("x", {4}).output("y");
    b.node("Add", {"x"}, {"y"}, "a");
    EXPECT_EQ(loadError(b), "parse error: test model: node 'a' (Add): Add takes 2 inputs at opset 13, the node has 1");
    OnnxBuilder c;
    c.input("x", {4}).output("y");
    c.node("Add", {"x", ""}, {"y"}, "a");
    EXPECT_EQ(loadError(c), "parse error: test model: node 'a' (Add): input 1 of Add is required but empty");
    OnnxBuilder d;
    d.input("x", {4}).output("y");
    d.node("Relu", {"x"}, {"y", "z"}, "r");
    EXPECT_EQ(loadError(d), "parse error: test model: node 'r' (Relu): Relu has 1 output at opset 13, the node has 2");
}

TEST(NodeArity, OptionalAndVariadicInputsAreFine) {
    OnnxBuilder b;
    b.input("x", {4}).input("z", {4}).output("y");
    b.node("Clip", {"x"}, {"c"}, "clip");  // min and max omitted
    testing::attr(b.node("Concat", {"c", "z", "c"}, {"y"}, "cat"), "axis", int64_t{0});  // any number
    EXPECT_EQ(loadError(b), "");
}

}  // namespace
}  // namespace vkinfer
