// Shape (start/end), Size, ConstantOfShape, Range, the folding of shape-computing subgraphs
// once input shapes are known, and a session that re-plans a Shape-driven Reshape at a
// second input size.
#include <vkinfer/plan.h>

#include "ops/op_harness.h"
#include "passes/specialize.h"
#include "runtime/model_data.h"

// Defined in passes/specialize.cpp; to be declared in passes/specialize.h together with the
// session change that keys plans by these inputs' values (see the ops report).
namespace vkinfer::passes {
std::vector<int> valueInputs(const graph::Graph& model);
graph::Graph specialize(const graph::Graph& model, const InputShapes& shapes, const std::vector<NamedTensor>& values);
}  // namespace vkinfer::passes

namespace vkinfer::testing {
namespace {

using Shape = std::vector<int64_t>;

TEST(ShapeOp, StartEndAndSize) {
    auto x = randomTensor({2, 3, 4, 5}, 1);
    auto shapeModel = [](int64_t start, int64_t end, bool hasEnd) {
        OnnxBuilder b(15);
        b.input("x", {2, 3, 4, 5}).output("s", DataType::Int64);
        auto& n = b.node("Shape", {"x"}, {"s"});
        attr(n, "start", start);
        if (hasEnd) attr(n, "end", end);
        return b;
    };
    expectReferenceEquals(shapeModel(0, 0, false), {{"x", x}}, {int64Tensor({4}, {2, 3, 4, 5})}, "whole shape");
    expectReferenceEquals(shapeModel(1, -1, true), {{"x", x}}, {int64Tensor({2}, {3, 4})}, "start 1 end -1");
    expectReferenceEquals(shapeModel(-10, 10, true), {{"x", x}}, {int64Tensor({4}, {2, 3, 4, 5})}, "clamped");
    expectReferenceEquals(shapeModel(3, 1, true), {{"x", x}}, {int64Tensor({0}, {})}, "empty");
    OnnxBuilder b;
    b.input("x", {2, 3, 4, 5}).output("n", DataType::Int64);
    b.node("Size", {"x"}, {"n"});
    expectReferenceEquals(b, {{"x", x}}, {int64Tensor({}, {120})}, "Size");
}

void addTensorAttr(onnx::NodeProto& n, const std::string& name, const Tensor& t) {
    auto* a = n.add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::TENSOR);
    auto* p = a->mutable_t();
    p->set_data_type(static_cast<int32_t>(t.dtype()));
    for (int64_t d : t.shape()) p->add_dims(d);
    p->set_raw_data(std::string(reinterpret_cast<const char*>(t.data()), t.byteSize()));
}

TEST(ConstantOfShapeOp, Values) {
    OnnxBuilder b(13);
    b.output("y", DataType::Int32);
    b.initializer("shape", int64Tensor({2}, {2, 3}));
    addTensorAttr(b.node("ConstantOfShape", {"shape"}, {"y"}), "value",
                  Tensor::fromVector(DataType::Int32, {1}, std::vector<int32_t>{7}));
    expectReferenceEquals(b, {}, {Tensor::fromVector(DataType::Int32, {2, 3}, std::vector<int32_t>(6, 7))},
                          "int32 sevens");
    OnnxBuilder c(13);
    c.output("y");
    c.initializer("shape", int64Tensor({3}, {1, 2, 2}));
    c.node("ConstantOfShape", {"shape"}, {"y"});
    expectReferenceEquals(c, {}, {floatTensor({1, 2, 2}, {0, 0, 0, 0})}, "default float zeros");
}

TEST(RangeOp, Values) {
    auto model = [](DataType t) {
        OnnxBuilder b(13);
        b.output("y", t);
        b.node("Range", {"s", "l", "d"}, {"y"});
        return b;
    };
    {
        OnnxBuilder b = model(DataType::Float32);
        b.initializer("s", floatTensor({}, {1}))
            .initializer("l", floatTensor({}, {2.1f}))
            .initializer("d", floatTensor({}, {0.25f}));
        expectReferenceEquals(b, {}, {floatTensor({5}, {1, 1.25f, 1.5f, 1.75f, 2})}, "float, fractional count");
    }
    {  // float16 (opset 27): computed in float32, stored as float16; other stash types refused
        OnnxBuilder b = model(DataType::Float16);
        auto f16 = [](float v) { return convertTensor(floatTensor({}, {v}), DataType::Float16); };
        b.initializer("s", f16(1)).initializer("l", f16(2.1f)).initializer("d", f16(0.25f));
        expectReferenceEquals(b, {}, {convertTensor(floatTensor({5}, {1, 1.25f, 1.5f, 1.75f, 2}), DataType::Float16)},
                              "float16");
        attr(*b.proto().mutable_graph()->mutable_node(0), "stash_type", int64_t{10});
        expectUnsupported(b, {}, "float16 Range with stash_type 10");
    }
    {
        OnnxBuilder b = model(DataType::Int32);
        auto i32 = [](int32_t v) { return Tensor::fromVector(DataType::Int32, {}, std::vector<int32_t>{v}); };
        b.initializer("s", i32(10)).initializer("l", i32(3)).initializer("d", i32(-3));
        expectReferenceEquals(b, {}, {Tensor::fromVector(DataType::Int32, {3}, std::vector<int32_t>{10, 7, 4})},
                              "int32 negative delta");
    }
    {
        OnnxBuilder b = model(DataType::Int64);
        b.initializer("s", int64Tensor({}, {5}))
            .initializer("l", int64Tensor({}, {5}))
            .initializer("d", int64Tensor({}, {1}));
        expectReferenceEquals(b, {}, {int64Tensor({0}, {})}, "empty range");
    }
}

// y = Reshape(x, [x.shape[0], -1]) * 2: Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
OnnxBuilder flattenByShapeModel() {
    OnnxBuilder b;
    b.input("x", {-1, -1, -1}).output("y");
    b.initializer("zero", int64Tensor({}, {0}))
        .initializer("axes0", int64Tensor({1}, {0}))
        .initializer("minus1", int64Tensor({1}, {-1}))
        .initializer("two", floatTensor({}, {2}));
    b.node("Shape", {"x"}, {"s"});
    attr(b.node("Gather", {"s", "zero"}, {"n"}), "axis", int64_t{0});
    b.node("Unsqueeze", {"n", "axes0"}, {"n1"});
    attr(b.node("Concat", {"n1", "minus1"}, {"target"}), "axis", int64_t{0});
    b.node("Reshape", {"x", "target"}, {"r"});
    b.node("Mul", {"r", "two"}, {"y"});
    return b;
}

TEST(ShapeFolding, ShapeSubgraphFoldsAtLoad) {
    auto x = randomTensor({2, 3, 4}, 5);
    // Only the Mul remains: every shape node folded, the Reshape is a view.
    EXPECT_EQ(planDispatches(flattenByShapeModel(), {{"x", x}}), 1);
    auto y = x;
    y.reshape({2, 12});
    for (int64_t i = 0; i < y.elementCount(); ++i) y.as<float>()[i] *= 2;
    expectReferenceEquals(flattenByShapeModel(), {{"x", x}}, {y}, "flatten by Shape");
}

TEST(ShapeFolding, SessionReplansAtSecondSize) {
    VKINFER_REQUIRE_GPU();
    auto model = flattenByShapeModel().build();
    ASSERT_TRUE(model.ok()) << model.status().toString();
    auto session = Session::create(gpuContext(), *model);
    ASSERT_TRUE(session.ok()) << session.status().toString();
    const std::vector<Shape> sizes{{2, 3, 4}, {5, 2, 3}, {2, 3, 4}};
    for (size_t k = 0; k < sizes.size(); ++k) {
        const Shape& s = sizes[k];
        auto x = randomTensor(s, static_cast<uint32_t>(k + 1));
        RunStats stats;
        auto out = session->run({{"x", x}}, &stats);
        ASSERT_TRUE(out.ok()) << out.status().toString();
        ASSERT_EQ(out->size(), 1u);
        const Tensor& y = (*out)[0].tensor;
        ASSERT_EQ(y.shape(), (Shape{s[0], s[1] * s[2]}));
        for (int64_t i = 0; i < y.elementCount(); ++i) ASSERT_EQ(y.as<float>()[i], 2 * x.as<float>()[i]) << i;
        EXPECT_EQ(stats.planned, k < 2) << "run " << k << ": a new shape plans, a seen one reuses its plan";
    }
}

// Inputs whose values shape the plan: Reshape's target given as a graph input is one; the
// data input read only through Shape is not.
TEST(ShapeFolding, ValueInputs) {
    OnnxBuilder b;
    b.input("x", {2, 6}).input("target", {2}, DataType::Int64).output("y").output("z");
    b.node("Reshape", {"x", "target"}, {"y"});
    b.node("Shape", {"x"}, {"s"});
    b.node("Reshape", {"x", "s"}, {"z"});
    auto model = b.build();
    ASSERT_TRUE(model.ok()) << model.status().toString();
    const graph::Graph& g = model->data()->graph;
    auto found = passes::valueInputs(g);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(g.values[found[0]].name, "target");
    // Bound by value, the Reshape folds its target and infers its shape.
    graph::Graph s = passes::specialize(g, {{"x", {2, 6}}, {"target", {2}}}, {{"target", int64Tensor({2}, {3, -1})}});
    EXPECT_EQ(s.values[s.findValue("y")].shape, (Shape{3, 4}));
    EXPECT_EQ(s.values[s.findValue("z")].shape, (Shape{2, 6}));
    // A ViT computes its shapes from Shape(x) only: nothing to key by value.
    if (std::string dir = modelsDir(); !dir.empty()) {
        auto vit = Model::load(dir + "/tiny_vit/model.onnx");
        ASSERT_TRUE(vit.ok()) << vit.status().toString();
        EXPECT_TRUE(passes::valueInputs(vit->data()->graph).empty());
    }
}

}  // namespace
}  // namespace vkinfer::testing
