// Model::inspect: what a file declares, read from its protobuf alone, with everything vkinfer
// does not support listed rather than the first failure.
#include <gtest/gtest.h>
#include <vkinfer/vkinfer.h>

#include "io/io_test_util.h"
#include "support/onnx_builder.h"

namespace vkinfer::testing {
namespace {

TEST(ModelInfo, CountsWeightsIncludingExternalOnesWithoutReadingThem) {
    TempDir dir;
    OnnxBuilder b(13);
    b.proto().set_producer_name("vkinfer-test");
    b.proto().set_producer_version("1.2");
    b.input("x", {-1, 3});
    b.initializer("w", randomTensor({3, 3}, 1));
    // 1000 float16 values in a file that does not exist: inspect reads no external data.
    b.externalInitializer("big", DataType::Float16, {10, 100}, "weights.bin");
    b.node("MatMul", {"x", "w"}, {"y"}, "mm");
    b.output("y");
    writeFile(dir.file("m.onnx"), b.serialize());
    auto info = Model::inspect(dir.file("m.onnx"));
    ASSERT_TRUE(info.ok()) << info.status().toString();
    EXPECT_EQ(info->producerName, "vkinfer-test");
    EXPECT_EQ(info->producerVersion, "1.2");
    EXPECT_EQ(info->opset, 13);
    EXPECT_EQ(info->initializerCount, 2u);
    EXPECT_EQ(info->parameters, 9u + 1000u);
    EXPECT_EQ(info->weightBytes, 9u * 4 + 1000u * 2);
    EXPECT_EQ(info->externalWeightBytes, 2000u);
    ASSERT_EQ(info->inputs.size(), 1u);  // initializers are not inputs
    EXPECT_EQ(info->inputs[0].shape, (std::vector<int64_t>{-1, 3}));
    EXPECT_EQ(info->inputs[0].dimNames[0], "dim0");
    EXPECT_TRUE(info->unsupported.empty());
    ASSERT_EQ(info->opCounts.size(), 1u);
    EXPECT_EQ(info->opCounts[0].op, "MatMul");
    // Loading needs the external file: inspect did not.
    EXPECT_FALSE(Model::load(dir.file("m.onnx")).ok());
}

TEST(ModelInfo, ListsEveryUnsupportedPart) {
    TempDir dir;
    OnnxBuilder b(13);
    b.input("x", {1, 4});
    b.input("h", {1, 4}, static_cast<DataType>(16));  // bfloat16
    b.node("FrobnicateOp", {"x"}, {"a"}, "frob1");
    b.node("FrobnicateOp", {"a"}, {"b"}, "frob2");
    auto& c = b.node("Constant", {}, {"s"}, "text");
    auto* value = c.add_attribute();
    value->set_name("value_string");
    value->set_type(onnx::AttributeProto::STRING);
    value->set_s("hello");
    b.node("Relu", {"x"}, {"y"}, "relu");
    b.output("b");
    b.output("y");
    writeFile(dir.file("u.onnx"), b.serialize());
    auto info = Model::inspect(dir.file("u.onnx"));
    ASSERT_TRUE(info.ok()) << info.status().toString();
    std::vector<std::string> nodes;
    bool typeReason = false;
    for (const auto& u : info->unsupported) {
        if (u.node.empty()) typeReason |= contains(u.reason, "'h'") && contains(u.reason, "bfloat16");
        else nodes.push_back(u.node);
    }
    EXPECT_TRUE(typeReason);
    EXPECT_EQ(nodes, (std::vector<std::string>{"frob1", "frob2", "text"}));
    EXPECT_EQ(info->opCounts[0].op, "FrobnicateOp");  // most frequent first
    EXPECT_EQ(info->opCounts[0].count, 2u);
    // Model::load stops at the first.
    EXPECT_EQ(Model::load(dir.file("u.onnx")).status().code(), ErrorCode::Unsupported);
}

TEST(ModelInfo, OnlyUnreadableOrNonOnnxFilesFail) {
    TempDir dir;
    EXPECT_EQ(Model::inspect(dir.file("none.onnx")).status().code(), ErrorCode::NotFound);
    writeFile(dir.file("junk.onnx"), std::string(64, '\xff'));
    auto junk = Model::inspect(dir.file("junk.onnx"));
    EXPECT_EQ(junk.status().code(), ErrorCode::ParseError);
    EXPECT_TRUE(contains(junk.status().message(), dir.file("junk.onnx")));
}

}  // namespace
}  // namespace vkinfer::testing
