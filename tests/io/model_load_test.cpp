// Model::load / Model::fromBytes: what loads, and every way a model file can be broken.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <vkinfer/vkinfer.h>

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <random>

#include "io/io_test_util.h"
#include "support/gpu_context.h"
#include "support/onnx_builder.h"

namespace vkinfer::testing {
namespace {

// x[1,4] -> Relu -> Add(bias) -> y
OnnxBuilder smallModel(int64_t opset = 13) {
    OnnxBuilder b(opset);
    b.input("x", {1, 4});
    b.initializer("bias", floatTensor({4}, {1, 2, 3, 4}));
    b.node("Relu", {"x"}, {"r"}, "relu");
    b.node("Add", {"r", "bias"}, {"y"}, "add");
    b.output("y");
    return b;
}

Status loadStatus(const OnnxBuilder& b) { return b.build().status(); }

TEST(IoModelLoad, SmallModelDescribesItself) {
    TempDir dir;
    writeFile(dir.file("m.onnx"), smallModel().serialize());
    auto m = Model::load(dir.file("m.onnx"));
    ASSERT_TRUE(m.ok()) << m.status().toString();
    EXPECT_EQ(m->opset(), 13);
    EXPECT_EQ(m->nodeCount(), 2u);
    EXPECT_EQ(m->label(), dir.file("m.onnx"));
    ASSERT_EQ(m->inputs().size(), 1u);  // the initializer is not an input
    EXPECT_EQ(m->inputs()[0].name, "x");
    EXPECT_EQ(m->inputs()[0].shape, (std::vector<int64_t>{1, 4}));
    EXPECT_FALSE(m->inputs()[0].isDynamic());
    ASSERT_EQ(m->outputs().size(), 1u);
    EXPECT_EQ(m->outputs()[0].name, "y");
}

TEST(IoModelLoad, InitializersListedAsInputsAreNotInputs) {
    // IR < 4 exporters list every initializer among the graph inputs as well (from IR 4 on
    // such an input is an input with a default: default_input_test.cpp).
    OnnxBuilder b = smallModel();
    b.proto().set_ir_version(3);
    b.input("bias", {4});
    auto m = b.build();
    ASSERT_TRUE(m.ok()) << m.status().toString();
    ASSERT_EQ(m->inputs().size(), 1u);
    EXPECT_EQ(m->inputs()[0].name, "x");
}

TEST(IoModelLoad, DynamicDimsAreNamed) {
    OnnxBuilder b;
    b.input("x", {-1, 3, -1, 8});
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    auto m = b.build();
    ASSERT_TRUE(m.ok()) << m.status().toString();
    const auto& in = m->inputs()[0];
    EXPECT_TRUE(in.isDynamic());
    EXPECT_EQ(in.shape, (std::vector<int64_t>{-1, 3, -1, 8}));
    EXPECT_EQ(in.dimNames, (std::vector<std::string>{"dim0", "", "dim2", ""}));
}

TEST(IoModelLoad, MissingFileIsNotFound) {
    TempDir dir;
    auto m = Model::load(dir.file("absent.onnx"));
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().code(), ErrorCode::NotFound);
    EXPECT_TRUE(contains(m.status().message(), dir.file("absent.onnx")));
    // A folder is not a model either.
    auto d = Model::load(dir.path().string());
    EXPECT_FALSE(d.ok());
}

// A model that cannot be mapped is read whole: a pipe, as a shell's process substitution
// (`vkinfer run <(...)`) passes it, a /proc/self/fd path of a pipe whose writer has finished.
TEST(IoModelLoad, ModelFromAPipeLoads) {
    const std::string bytes = smallModel().serialize();
    ASSERT_LT(bytes.size(), 4096u);  // fits the pipe's buffer: the write needs no reader yet
    int fds[2];
    ASSERT_EQ(pipe(fds), 0) << std::strerror(errno);
    ASSERT_EQ(write(fds[1], bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    close(fds[1]);
    auto m = Model::load("/proc/self/fd/" + std::to_string(fds[0]));
    close(fds[0]);
    ASSERT_TRUE(m.ok()) << m.status().toString();
    EXPECT_EQ(m->nodeCount(), 2u);
    EXPECT_EQ(m->outputs().size(), 1u);
}

TEST(IoModelLoad, EmptyFileIsParseError) {
    TempDir dir;
    writeFile(dir.file("empty.onnx"), "");
    auto m = Model::load(dir.file("empty.onnx"));
    ASSERT_FALSE(m.ok());
    EXPECT_EQ(m.status().code(), ErrorCode::ParseError);
    EXPECT_TRUE(contains(m.status().message(), dir.file("empty.onnx")));
    auto z = Model::fromBytes("", 0, "zero bytes");
    ASSERT_FALSE(z.ok());
    EXPECT_EQ(z.status().code(), ErrorCode::ParseError);
    EXPECT_TRUE(contains(z.status().message(), "zero bytes"));
}

TEST(IoModelLoad, TruncatedRealModelIsParseError) {
    std::string models = modelsDir();
    if (models.empty()) GTEST_SKIP() << "shared models not present";
    std::string bytes = readFile(models + "/squeezenet1_1/model.onnx");
    ASSERT_GT(bytes.size(), 100000u);
    ASSERT_TRUE(Model::fromBytes(bytes.data(), bytes.size(), "whole").ok());

    std::vector<size_t> lengths = {1, 2, 10, 100, 1000};
    for (size_t k = 1; k < 50; ++k) lengths.push_back(bytes.size() * k / 50);
    lengths.push_back(bytes.size() - 1);
    // Exactly the model without its trailing opset_import: still a well-formed protobuf (a
    // message cut on a field boundary), so only the missing opset tells it is truncated.
    onnx::ModelProto proto;
    ASSERT_TRUE(proto.ParseFromString(bytes));
    ASSERT_GT(proto.opset_import_size(), 0);
    onnx::ModelProto noOpset = proto;
    noOpset.clear_opset_import();
    std::string head = noOpset.SerializeAsString();
    EXPECT_EQ(bytes.compare(0, head.size(), head), 0) << "opset_import is not the last field any more";
    lengths.push_back(head.size());

    TempDir dir;
    for (size_t len : lengths) {
        SCOPED_TRACE(len);
        std::string path = dir.file("cut.onnx");
        writeFile(path, bytes.substr(0, len));
        auto m = Model::load(path);
        ASSERT_FALSE(m.ok());
        EXPECT_EQ(m.status().code(), ErrorCode::ParseError) << m.status().toString();
        EXPECT_TRUE(contains(m.status().message(), path));
    }
}

TEST(IoModelLoad, ModelWithoutOpsetImportIsParseError) {
    OnnxBuilder b = smallModel();
    b.proto().clear_opset_import();
    Status s = loadStatus(b);
    EXPECT_EQ(s.code(), ErrorCode::ParseError) << s.toString();
    EXPECT_TRUE(contains(s.message(), "opset"));
}

TEST(IoModelLoad, RandomBytesAreParseError) {
    std::mt19937 rng(2024);
    for (int i = 0; i < 300; ++i) {
        std::string bytes(1 + rng() % 4096, '\0');
        for (auto& c : bytes) c = static_cast<char>(rng());
        auto m = Model::fromBytes(bytes.data(), bytes.size(), "random");
        ASSERT_FALSE(m.ok()) << i;
        EXPECT_EQ(m.status().code(), ErrorCode::ParseError) << i << ": " << m.status().toString();
    }
}

TEST(IoModelLoad, CorruptedBytesOfAValidModelNeverCrash) {
    // Flip bytes of a small valid model: whatever the result, no crash and no Internal error,
    // neither when loading nor when planning (and writing the plan as JSON: names may have
    // become invalid UTF-8) what still loads.
    std::string good = smallModel().serialize();
    std::mt19937 rng(7);
    int failures = 0, planned = 0;
    for (int i = 0; i < 500; ++i) {
        std::string bytes = good;
        for (int k = 0; k < 1 + static_cast<int>(rng() % 4); ++k) bytes[rng() % bytes.size()] = static_cast<char>(rng());
        auto m = Model::fromBytes(bytes.data(), bytes.size(), "flipped");
        if (!m.ok()) {
            ++failures;
            EXPECT_NE(m.status().code(), ErrorCode::Internal) << m.status().toString();
            continue;
        }
        auto plan = planJson(*m, {});
        if (plan.ok()) ++planned;
        else EXPECT_NE(plan.status().code(), ErrorCode::Internal) << plan.status().toString();
    }
    EXPECT_GT(failures, 0);
    EXPECT_GT(planned, 0);
}

TEST(IoModelLoad, UnknownOpNamesNodeOpAndOpset) {
    OnnxBuilder b(13);
    b.input("x", {1, 4});
    b.node("Relu", {"x"}, {"r"}, "relu");
    b.node("FrobnicateOp", {"r"}, {"y"}, "frob_node");
    b.output("y");
    Status s = loadStatus(b);
    ASSERT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
    EXPECT_TRUE(contains(s.message(), "frob_node"));
    EXPECT_TRUE(contains(s.message(), "FrobnicateOp"));
    EXPECT_TRUE(contains(s.message(), "13"));
}

TEST(IoModelLoad, UnnamedNodeGetsAName) {
    OnnxBuilder b(13);
    b.input("x", {1, 4});
    b.node("FrobnicateOp", {"x"}, {"y"}).clear_name();
    b.output("y");
    Status s = loadStatus(b);
    ASSERT_EQ(s.code(), ErrorCode::Unsupported);
    EXPECT_TRUE(contains(s.message(), "'FrobnicateOp_0'"));
}

TEST(IoModelLoad, SupportedOpAtUnsupportedOpsetNamesOpset) {
    OnnxBuilder b(9);
    b.input("x", {1, 1, 2, 2});
    b.initializer("scales", floatTensor({4}, {1, 1, 2, 2}));
    b.node("Resize", {"x", "scales"}, {"y"}, "resize");
    b.output("y");
    Status s = loadStatus(b);
    ASSERT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
    EXPECT_TRUE(contains(s.message(), "resize"));
    EXPECT_TRUE(contains(s.message(), "Resize"));
    EXPECT_TRUE(contains(s.message(), "opset 9"));
}

TEST(IoModelLoad, ForeignDomainIsUnsupported) {
    OnnxBuilder b;
    b.input("x", {1, 4});
    b.node("Relu", {"x"}, {"y"}, "custom").set_domain("com.example");
    b.output("y");
    Status s = loadStatus(b);
    ASSERT_EQ(s.code(), ErrorCode::Unsupported) << s.toString();
    EXPECT_TRUE(contains(s.message(), "com.example"));
    EXPECT_TRUE(contains(s.message(), "custom"));
}

TEST(IoModelLoad, TensorNobodyProducesIsParseError) {
    OnnxBuilder b;
    b.input("x", {1, 4});
    b.node("Add", {"x", "ghost_tensor"}, {"y"}, "add");
    b.output("y");
    Status s = loadStatus(b);
    ASSERT_EQ(s.code(), ErrorCode::ParseError) << s.toString();
    EXPECT_TRUE(contains(s.message(), "'ghost_tensor'"));
}

TEST(IoModelLoad, OutputNobodyProducesIsParseError) {
    OnnxBuilder b = smallModel();
    b.output("not_computed");
    Status s = loadStatus(b);
    ASSERT_EQ(s.code(), ErrorCode::ParseError) << s.toString();
    EXPECT_TRUE(contains(s.message(), "'not_computed'"));
}

TEST(IoModelLoad, NoNodesOrNoOutputsIsParseError) {
    OnnxBuilder empty;
    empty.input("x", {1});
    empty.output("x");
    EXPECT_EQ(loadStatus(empty).code(), ErrorCode::ParseError);

    OnnxBuilder noOut;
    noOut.input("x", {1});
    noOut.node("Relu", {"x"}, {"y"});
    Status s = loadStatus(noOut);
    EXPECT_EQ(s.code(), ErrorCode::ParseError) << s.toString();
    EXPECT_TRUE(contains(s.message(), "output"));
}

TEST(IoModelLoad, GraphCycleIsParseError) {
    // a = Add(x, c); c = Relu(a): each node waits for the other.
    OnnxBuilder b;
    b.input("x", {1, 4});
    b.node("Add", {"x", "c"}, {"a"}, "add_in_cycle");
    b.node("Relu", {"a"}, {"c"}, "relu_in_cycle");
    b.node("Relu", {"a"}, {"y"}, "out");
    b.output("y");
    Status s = loadStatus(b);
    ASSERT_EQ(s.code(), ErrorCode::ParseError) << s.toString();
    EXPECT_TRUE(contains(s.message(), "cycle"));
    EXPECT_TRUE(contains(s.message(), "'add_in_cycle' (Add)"));
    EXPECT_TRUE(contains(s.message(), "'relu_in_cycle' (Relu)"));
    EXPECT_FALSE(contains(s.message(), "'out'"));  // downstream of the cycle, not on it
}

TEST(IoModelLoad, NodeReadingItsOwnOutputIsACycle) {
    OnnxBuilder b;
    b.input("x", {1, 4});
    b.node("Add", {"x", "y"}, {"y"}, "self");
    b.output("y");
    Status s = loadStatus(b);
    ASSERT_EQ(s.code(), ErrorCode::ParseError) << s.toString();
    EXPECT_TRUE(contains(s.message(), "cycle"));
    EXPECT_TRUE(contains(s.message(), "self"));
}

TEST(IoModelLoad, NodesOutOfOrderButAcyclicLoad) {
    // ONNX wants topological order, but an unsorted acyclic graph is still a graph.
    OnnxBuilder b;
    b.input("x", {1, 4});
    b.node("Relu", {"a"}, {"y"}, "second");
    b.node("Relu", {"x"}, {"a"}, "first");
    b.output("y");
    auto m = b.build();
    EXPECT_TRUE(m.ok()) << m.status().toString();
}

TEST(IoModelLoad, TensorWrittenTwiceIsParseError) {
    OnnxBuilder b;
    b.input("x", {1, 4});
    b.node("Relu", {"x"}, {"a"}, "first_writer");
    b.node("Sigmoid", {"x"}, {"a"}, "second_writer");
    b.node("Relu", {"a"}, {"y"});
    b.output("y");
    Status s = loadStatus(b);
    ASSERT_EQ(s.code(), ErrorCode::ParseError) << s.toString();
    EXPECT_TRUE(contains(s.message(), "'a'"));

    // Overwriting a graph input or an initializer is the same mistake.
    OnnxBuilder c = smallModel();
    c.node("Relu", {"y"}, {"bias"}, "clobber");
    Status t = loadStatus(c);
    ASSERT_EQ(t.code(), ErrorCode::ParseError) << t.toString();
    EXPECT_TRUE(contains(t.message(), "'bias'"));
}

TEST(IoModelLoad, InitializerWithBadDataIsParseError) {
    OnnxBuilder b = smallModel();
    b.proto().mutable_graph()->mutable_initializer(0)->set_raw_data(std::string(3, '\0'));
    Status s = loadStatus(b);
    ASSERT_EQ(s.code(), ErrorCode::ParseError) << s.toString();
    EXPECT_TRUE(contains(s.message(), "bias"));
}

TEST(IoModelLoad, ConstantNodeBecomesAConstant) {
    OnnxBuilder b;
    b.input("x", {1, 4});
    auto& c = b.node("Constant", {}, {"k"}, "const");
    auto* a = c.add_attribute();
    a->set_name("value_floats");
    a->set_type(onnx::AttributeProto::FLOATS);
    for (float v : {1.f, 2.f, 3.f, 4.f}) a->add_floats(v);
    b.node("Add", {"x", "k"}, {"y"});
    b.output("y");
    auto m = b.build();
    ASSERT_TRUE(m.ok()) << m.status().toString();
    EXPECT_EQ(m->nodeCount(), 1u);  // the Constant is folded away

    OnnxBuilder bad;
    bad.input("x", {1, 4});
    bad.node("Constant", {}, {"k"}, "valueless");
    bad.node("Add", {"x", "k"}, {"y"});
    bad.output("y");
    Status s = loadStatus(bad);
    EXPECT_FALSE(s.ok());
    EXPECT_TRUE(contains(s.message(), "valueless"));
}

TEST(IoModelLoad, SharedModelsLoadOrSayWhyNot) {
    std::string models = modelsDir();
    if (models.empty()) GTEST_SKIP() << "shared models not present";
    for (const char* name : {"espcn_x2", "squeezenet1_1", "unet_small"}) {
        SCOPED_TRACE(name);
        auto m = Model::load(models + "/" + name + "/model.onnx");
        ASSERT_TRUE(m.ok()) << m.status().toString();
        EXPECT_EQ(m->inputs().size(), 1u);
        EXPECT_EQ(m->outputs().size(), 1u);
        EXPECT_GT(m->nodeCount(), 5u);
    }
    auto sq = Model::load(models + "/squeezenet1_1/model.onnx");
    EXPECT_EQ(sq->inputs()[0].shape, (std::vector<int64_t>{1, 3, 224, 224}));
    auto es = Model::load(models + "/espcn_x2/model.onnx");
    EXPECT_TRUE(es->inputs()[0].isDynamic());
    auto vit = Model::load(models + "/tiny_vit/model.onnx");
    if (!vit.ok()) {
        EXPECT_EQ(vit.status().code(), ErrorCode::Unsupported) << vit.status().toString();
        EXPECT_TRUE(contains(vit.status().message(), "opset"));
    }
}

}  // namespace
}  // namespace vkinfer::testing
