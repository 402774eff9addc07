// An attribute of the wrong ONNX type is the model's error, named with the node, the
// attribute, the type the operator takes and the one the model gives: never the default in
// its place (Conv strides given as FLOATS once ran with stride 1 and another output shape).
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "support/onnx_builder.h"
#include "vkinfer/plan.h"

namespace vkinfer {
namespace {

using testing::attr;
using testing::OnnxBuilder;

OnnxBuilder conv(const std::function<void(onnx::NodeProto&)>& attrs) {
    OnnxBuilder b;
    b.input("x", {1, 3, 8, 8}).output("y");
    b.initializer("w", Tensor(DataType::Float32, {4, 3, 3, 3}));
    attrs(b.node("Conv", {"x", "w"}, {"y"}, "the_conv"));
    return b;
}

std::string planError(const OnnxBuilder& b) {
    auto model = b.build();
    if (!model.ok()) return model.status().toString();
    auto plan = planSummary(*model, {});
    return plan.ok() ? std::string() : plan.status().toString();
}

TEST(AttributeTypes, WrongTypesAreNamedNotDefaulted) {
    EXPECT_EQ(planError(conv([](auto& n) { attr(n, "strides", std::vector<float>{2.0f, 2.0f}); })),
              "parse error: node 'the_conv' (Conv): attribute 'strides' must be INTS, the model gives FLOATS");
    EXPECT_EQ(planError(conv([](auto& n) { attr(n, "strides", std::string("2")); })),
              "parse error: node 'the_conv' (Conv): attribute 'strides' must be INTS, the model gives STRING");
    EXPECT_EQ(planError(conv([](auto& n) { attr(n, "kernel_shape", std::string("3x3")); })),
              "parse error: node 'the_conv' (Conv): attribute 'kernel_shape' must be INTS, the model gives STRING");
    EXPECT_EQ(planError(conv([](auto& n) { attr(n, "group", 1.0f); })),
              "parse error: node 'the_conv' (Conv): attribute 'group' must be INT, the model gives FLOAT");
    OnnxBuilder leaky;
    leaky.input("x", {4}).output("y");
    attr(leaky.node("LeakyRelu", {"x"}, {"y"}, "leaky"), "alpha", int64_t{1});
    EXPECT_EQ(planError(leaky), "parse error: node 'leaky' (LeakyRelu): attribute 'alpha' must be FLOAT, the model gives INT");
}

TEST(AttributeTypes, RightTypesPlan) {
    EXPECT_EQ(planError(conv([](auto& n) { attr(n, "strides", std::vector<int64_t>{2, 2}); })), "");
}

}  // namespace
}  // namespace vkinfer
