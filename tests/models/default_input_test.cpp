// Graph inputs with a default (ONNX IR 4 and later: an input that also has an initializer):
// listed as inputs, planned as constants when a run leaves them out, overridable by a run.
#include <gtest/gtest.h>
#include <vkinfer/vkinfer.h>

#include "io/io_test_util.h"
#include "ops/op_harness.h"
#include "support/gpu_context.h"
#include "support/onnx_builder.h"

namespace vkinfer::testing {
namespace {

// y = x * w, where w is an input whose initializer [1, 2, 3, 4] is its default.
OnnxBuilder scaleModel(int64_t irVersion = 8) {
    OnnxBuilder b;
    b.proto().set_ir_version(irVersion);
    b.input("x", {1, 4}).input("w", {4});
    b.initializer("w", floatTensor({4}, {1, 2, 3, 4}));
    b.node("Mul", {"x", "w"}, {"y"}, "scale");
    b.output("y");
    return b;
}

std::vector<float> values(const Tensor& t) { return {t.as<float>(), t.as<float>() + t.elementCount()}; }

TEST(DefaultInput, ListedWithItsDefault) {
    auto m = scaleModel().build();
    ASSERT_TRUE(m.ok()) << m.status().toString();
    ASSERT_EQ(m->inputs().size(), 2u);
    EXPECT_FALSE(m->inputs()[0].hasDefault);
    EXPECT_TRUE(m->inputs()[1].hasDefault);
    EXPECT_EQ(m->inputs()[1].shape, (std::vector<int64_t>{4}));
    EXPECT_EQ(m->defaultInput("x"), nullptr);
    EXPECT_EQ(m->defaultInput("nope"), nullptr);
    const Tensor* d = m->defaultInput("w");
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(values(*d), (std::vector<float>{1, 2, 3, 4}));
    // Shapes resolve without it: its default's.
    auto shapes = m->resolveShapes({});
    ASSERT_TRUE(shapes.ok()) << shapes.status().toString();
    EXPECT_EQ(shapes->at(1).second, (std::vector<int64_t>{4}));
}

TEST(DefaultInput, IrThreeInitializersAmongInputsAreWeights) {
    auto m = scaleModel(3).build();
    ASSERT_TRUE(m.ok()) << m.status().toString();
    ASSERT_EQ(m->inputs().size(), 1u);
    EXPECT_EQ(m->inputs()[0].name, "x");
}

TEST(DefaultInput, InspectListsItAsOptional) {
    TempDir dir;
    writeFile(dir.file("ir8.onnx"), scaleModel().serialize());
    writeFile(dir.file("ir3.onnx"), scaleModel(3).serialize());
    auto info = Model::inspect(dir.file("ir8.onnx"));
    ASSERT_TRUE(info.ok()) << info.status().toString();
    ASSERT_EQ(info->inputs.size(), 2u);
    EXPECT_FALSE(info->inputs[0].hasDefault);
    EXPECT_TRUE(info->inputs[1].hasDefault);
    auto info3 = Model::inspect(dir.file("ir3.onnx"));
    ASSERT_TRUE(info3.ok()) << info3.status().toString();
    EXPECT_EQ(info3->inputs.size(), 1u);
}

TEST(DefaultInput, DeclarationThatContradictsTheDefaultIsRefused) {
    {
        OnnxBuilder b = scaleModel();
        b.proto().mutable_graph()->mutable_input(1)->mutable_type()->mutable_tensor_type()->set_elem_type(
            onnx::TensorProto::INT64);
        auto m = b.build();
        ASSERT_FALSE(m.ok());
        EXPECT_EQ(m.status().code(), ErrorCode::ParseError);
        EXPECT_NE(m.status().message().find("input 'w' is declared int64 but its initializer (its default) is float32"),
                  std::string::npos)
            << m.status().message();
    }
    {
        OnnxBuilder b;
        b.input("x", {1, 4}).input("w", {5});
        b.initializer("w", floatTensor({4}, {1, 2, 3, 4}));
        b.node("Mul", {"x", "w"}, {"y"});
        b.output("y");
        auto m = b.build();
        ASSERT_FALSE(m.ok());
        EXPECT_NE(m.status().message().find("input 'w' is declared with shape 5 but its initializer (its default) has shape 4"),
                  std::string::npos)
            << m.status().message();
    }
}

TEST(DefaultInput, RunTakesTheDefaultOrTheGivenValue) {
    VKINFER_REQUIRE_GPU();
    auto m = scaleModel().build();
    ASSERT_TRUE(m.ok()) << m.status().toString();
    auto s = Session::create(gpuContext(), *m);
    ASSERT_TRUE(s.ok()) << s.status().toString();
    Tensor x = floatTensor({1, 4}, {10, 20, 30, 40});
    auto left = s->run({{"x", x}});
    ASSERT_TRUE(left.ok()) << left.status().toString();
    EXPECT_EQ(values(left->at(0).tensor), (std::vector<float>{10, 40, 90, 160}));
    auto given = s->run({{"x", x}, {"w", floatTensor({4}, {-1, 0, 0.5f, 2})}});
    ASSERT_TRUE(given.ok()) << given.status().toString();
    EXPECT_EQ(values(given->at(0).tensor), (std::vector<float>{-10, 0, 15, 80}));
    // Leaving it out again takes the default again (not the last value given).
    auto again = s->run({{"x", x}});
    ASSERT_TRUE(again.ok()) << again.status().toString();
    EXPECT_EQ(values(again->at(0).tensor), (std::vector<float>{10, 40, 90, 160}));
    // A given value of another shape than the default's is an ordinary input of that shape.
    auto wider = s->run({{"x", floatTensor({1, 4}, {1, 1, 1, 1})}, {"w", floatTensor({1}, {3})}});
    EXPECT_FALSE(wider.ok()) << "w is declared [4]";
}

// PyTorch's keep_initializers_as_inputs=True: every weight an input with its default. Left
// out, they are constants, so the convolution is planned as with plain initializers.
TEST(DefaultInput, WeightsExportedAsInputsPlanAsConstants) {
    VKINFER_REQUIRE_GPU();
    auto build = [](bool asInputs) {
        OnnxBuilder b;
        b.input("x", {1, 3, 8, 8});
        if (asInputs) b.input("w", {8, 3, 3, 3}).input("bias", {8});
        b.initializer("w", randomTensor({8, 3, 3, 3}, 5));
        b.initializer("bias", randomTensor({8}, 6));
        auto& c = b.node("Conv", {"x", "w", "bias"}, {"c"}, "conv");
        attr(c, "pads", std::vector<int64_t>{1, 1, 1, 1});
        b.node("Relu", {"c"}, {"y"}, "relu");
        b.output("y");
        return b;
    };
    std::vector<NamedTensor> inputs{{"x", randomTensor({1, 3, 8, 8}, 7)}};
    EXPECT_EQ(planDispatches(build(true), inputs), planDispatches(build(false), inputs));
    expectGpuMatchesCpu(build(true), inputs, "conv with its weights as inputs left to their defaults");
}

}  // namespace
}  // namespace vkinfer::testing
