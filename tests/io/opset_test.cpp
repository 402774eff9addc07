// Opsets: a model importing a default-domain opset newer than vkinfer implements is refused
// at load; opset 18 semantics (axes as inputs, Split's num_outputs, Pad's axes) run; an op at
// an opset whose semantics vkinfer does not implement is refused naming the node.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <vkinfer/vkinfer.h>

#include "io/io_test_util.h"
#include "passes/cpu_reference.h"
#include "runtime/model_data.h"
#include "support/onnx_builder.h"

namespace vkinfer::testing {
namespace {

// x[1,4] -> Relu -> y
OnnxBuilder reluModel(int64_t opset) {
    OnnxBuilder b(opset);
    b.input("x", {1, 4});
    b.node("Relu", {"x"}, {"y"}, "relu");
    b.output("y");
    return b;
}

void addImport(OnnxBuilder& b, const std::string& domain, int64_t version) {
    auto* op = b.proto().add_opset_import();
    op->set_domain(domain);
    op->set_version(version);
}

TEST(IoOpset, NewerDefaultOpsetThanImplementedIsRefused) {
    for (const char* domain : {"", "ai.onnx"}) {
        SCOPED_TRACE(domain);
        OnnxBuilder b = reluModel(13);
        b.proto().mutable_opset_import(0)->set_domain(domain);
        b.proto().mutable_opset_import(0)->set_version(99);
        auto m = b.build();
        ASSERT_FALSE(m.ok());
        EXPECT_EQ(m.status().code(), ErrorCode::Unsupported);
        EXPECT_TRUE(contains(m.status().message(), "test model: "));
        EXPECT_TRUE(contains(m.status().message(),
                             "imports opset 99 of the default ONNX domain; vkinfer implements opsets up to " +
                                 std::to_string(Model::kNewestOpset)));
    }
    auto next = reluModel(Model::kNewestOpset + 1).build();
    EXPECT_EQ(next.status().code(), ErrorCode::Unsupported) << next.status().toString();
}

TEST(IoOpset, BothSpellingsOfTheDefaultDomainAreHeldToTheNewer) {
    OnnxBuilder b = reluModel(17);
    addImport(b, "ai.onnx", 99);
    EXPECT_EQ(b.build().status().code(), ErrorCode::Unsupported);
}

TEST(IoOpset, NewestImplementedOpsetLoadsAndPlans) {
    auto m = reluModel(Model::kNewestOpset).build();
    ASSERT_TRUE(m.ok()) << m.status().toString();
    EXPECT_EQ(m->opset(), Model::kNewestOpset);
    auto plan = planSummary(*m, {});
    ASSERT_TRUE(plan.ok()) << plan.status().toString();
    EXPECT_GE(plan->dispatches, 1u);
}

TEST(IoOpset, OtherDomainsMatterOnlyWhenNodesUseThem) {
    OnnxBuilder b = reluModel(17);
    addImport(b, "ai.onnx.ml", 99);
    addImport(b, "com.microsoft", 1);
    auto m = b.build();
    EXPECT_TRUE(m.ok()) << m.status().toString();

    auto& n = b.node("Gelu", {"y"}, {"z"}, "gelu");
    n.set_domain("com.microsoft");
    b.proto().mutable_graph()->mutable_output(0)->set_name("z");
    auto used = b.build();
    ASSERT_FALSE(used.ok());
    EXPECT_EQ(used.status().code(), ErrorCode::Unsupported);
    EXPECT_TRUE(contains(used.status().message(), "node 'gelu' (Gelu)"));
    EXPECT_TRUE(contains(used.status().message(), "com.microsoft"));
}

TEST(IoOpset, OpsetsPastAnOpsRangeAreReportedNamingTheNode) {
    // Upsample ends at opset 9 (deprecated for Resize), Scatter at 10 (ScatterElements).
    OnnxBuilder up(10);
    up.input("x", {1, 1, 2, 2});
    up.initializer("scales", floatTensor({4}, {1, 1, 2, 2}));
    up.node("Upsample", {"x", "scales"}, {"y"}, "up");
    up.output("y");
    auto m = up.build();
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().code(), ErrorCode::Unsupported);
    EXPECT_TRUE(contains(m.status().message(), "node 'up' (Upsample): operator Upsample is not supported at opset 10"));
    up.proto().mutable_opset_import(0)->set_version(9);
    EXPECT_TRUE(up.build().ok());
}

// Semantics added after opset 17 that vkinfer does not implement are refused when planned,
// naming the node, instead of running with the old meaning.
TEST(IoOpset, UnimplementedNewSemanticsAreReportedNamingTheNode) {
    {  // Resize-18 antialias when downsampling linearly is implemented now (resize_general_test.cpp): it plans.
        OnnxBuilder b(18);
        b.input("x", {1, 1, 8, 8});
        b.initializer("scales", floatTensor({4}, {1, 1, 0.5f, 0.5f}));
        auto& r = b.node("Resize", {"x", "", "scales"}, {"y"}, "resize");
        attr(r, "mode", std::string("linear"));
        attr(r, "antialias", int64_t{1});
        b.output("y");
        auto m = b.build();
        ASSERT_TRUE(m.ok()) << m.status().toString();
        EXPECT_TRUE(planSummary(*m, {}).ok());
    }
    // Resize-19 half_pixel_symmetric and AveragePool-19 dilations are implemented now
    // (tests/ops/resize_general_test.cpp, tests/ops/pool_test.cpp): they plan.
    {
        OnnxBuilder b(19);
        b.input("x", {1, 1, 6, 6});
        auto& p = b.node("AveragePool", {"x"}, {"y"}, "pool");
        attr(p, "kernel_shape", std::vector<int64_t>{2, 2});
        attr(p, "dilations", std::vector<int64_t>{2, 2});
        b.output("y");
        auto m = b.build();
        ASSERT_TRUE(m.ok()) << m.status().toString();
        EXPECT_TRUE(planSummary(*m, {}).ok());
    }
}

std::vector<Tensor> runCpu(const OnnxBuilder& b, const Tensor& x) {
    auto m = b.build();
    EXPECT_TRUE(m.ok()) << m.status().toString();
    if (!m.ok()) return {};
    return passes::runOnCpu(m->data()->graph, {{"x", x}});
}

// The opset-18 forms PyTorch's dynamo exporter writes.
TEST(IoOpset, Opset18InputFormsRun) {
    Tensor x = floatTensor({2, 3}, {1, 2, 3, 4, 5, 6});
    {  // ReduceMean with axes as an input
        OnnxBuilder b(18);
        b.input("x", {2, 3});
        b.initializer("axes", int64Tensor({1}, {1}));
        auto& r = b.node("ReduceMean", {"x", "axes"}, {"y"}, "mean");
        attr(r, "keepdims", int64_t{0});
        b.output("y");
        auto out = runCpu(b, x);
        ASSERT_EQ(out.size(), 1u);
        ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{2}));
        EXPECT_FLOAT_EQ(out[0].as<float>()[0], 2.0f);
        EXPECT_FLOAT_EQ(out[0].as<float>()[1], 5.0f);
    }
    {  // ReduceMax with an empty axes input and noop_with_empty_axes: the identity
        OnnxBuilder b(18);
        b.input("x", {2, 3});
        b.initializer("axes", int64Tensor({0}, {}));
        auto& r = b.node("ReduceMax", {"x", "axes"}, {"y"}, "max");
        attr(r, "noop_with_empty_axes", int64_t{1});
        b.output("y");
        auto out = runCpu(b, x);
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 3}));
        EXPECT_FLOAT_EQ(out[0].as<float>()[4], 5.0f);
    }
    {  // Split with num_outputs, uneven: 2 + 1
        OnnxBuilder b(18);
        b.input("x", {2, 3});
        auto& s = b.node("Split", {"x"}, {"a", "c"}, "split");
        attr(s, "axis", int64_t{1});
        attr(s, "num_outputs", int64_t{2});
        b.output("a");
        b.output("c");
        auto out = runCpu(b, x);
        ASSERT_EQ(out.size(), 2u);
        EXPECT_EQ(out[0].shape(), (std::vector<int64_t>{2, 2}));
        EXPECT_EQ(out[1].shape(), (std::vector<int64_t>{2, 1}));
        EXPECT_FLOAT_EQ(out[1].as<float>()[1], 6.0f);
    }
    {  // Pad with an axes input: one column of zeros before axis 1 only
        OnnxBuilder b(18);
        b.input("x", {2, 3});
        b.initializer("pads", int64Tensor({2}, {1, 0}));
        b.initializer("axes", int64Tensor({1}, {1}));
        b.node("Pad", {"x", "pads", "", "axes"}, {"y"}, "pad");
        b.output("y");
        auto out = runCpu(b, x);
        ASSERT_EQ(out.size(), 1u);
        ASSERT_EQ(out[0].shape(), (std::vector<int64_t>{2, 4}));
        EXPECT_FLOAT_EQ(out[0].as<float>()[0], 0.0f);
        EXPECT_FLOAT_EQ(out[0].as<float>()[1], 1.0f);
        EXPECT_FLOAT_EQ(out[0].as<float>()[4], 0.0f);
    }
}

}  // namespace
}  // namespace vkinfer::testing
