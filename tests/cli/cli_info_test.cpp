// vkinfer info: what a model declares and what vkinfer cannot run, without a GPU and without
// failing on unsupported models.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_models.h"
#include "cli/cli_runner.h"
#include "support/gpu_context.h"

namespace vkinfer::testing {
namespace {

namespace fs = std::filesystem;

const std::string kEspcn = std::string(VKINFER_SOURCE_DIR) + "/data/espcn_x2/model.onnx";

// No Vulkan driver: the loader finds no ICD (info must not need one).
const std::vector<std::string> kNoGpu = {"VK_ICD_FILENAMES=/nonexistent/icd.json", "VK_DRIVER_FILES=/nonexistent/icd.json"};

nlohmann::json infoJson(const std::string& model, const std::vector<std::string>& env = {}) {
    CliResult r = runCli({"info", model, "--json"}, env);
    EXPECT_EQ(r.exitCode, 0) << r.describe();
    return nlohmann::json::parse(r.out);  // pure JSON on stdout
}

TEST(CliInfo, DescribesAModelWithoutAGpu) {
    CliResult r = runCli({"info", kEspcn}, kNoGpu);
    ASSERT_EQ(r.exitCode, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, "producer     pytorch"));
    EXPECT_TRUE(contains(r.out, "opset 13"));
    EXPECT_TRUE(contains(r.out, "N x 3 x H x W"));  // symbolic dims by name
    EXPECT_TRUE(contains(r.out, "nodes        6: Conv 3, Tanh 2, DepthToSpace 1"));
    EXPECT_TRUE(contains(r.out, "supported    yes"));
    EXPECT_TRUE(contains(r.out, "plan         input=")) << r.out;  // shapes from test_data_set_0

    nlohmann::json j = infoJson(kEspcn, kNoGpu);
    EXPECT_EQ(j["inputs"][0]["name"], "input");
    EXPECT_EQ(j["inputs"][0]["type"], "float32");
    EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json::parse(R"(["N", 3, "H", "W"])"));
    EXPECT_EQ(j["opset"], 13);
    EXPECT_EQ(j["nodes"], 6);
    EXPECT_EQ(j["supported"], true);
    EXPECT_TRUE(j["unsupported"].empty());
    EXPECT_EQ(j["plan"]["status"], "ok");
    // Parameters: the initializers' elements, float32 (4 bytes each) in espcn.
    auto model = Model::load(kEspcn);
    ASSERT_TRUE(model.ok());
    uint64_t parameters = 0;
    for (const auto& v : model->data()->graph.values)
        if (v.constant) parameters += static_cast<uint64_t>(v.constant->elementCount());
    EXPECT_EQ(j["parameters"].get<uint64_t>(), parameters);
    EXPECT_EQ(j["weight_bytes"].get<uint64_t>(), 4 * parameters);
    size_t counted = 0, last = SIZE_MAX;
    for (const auto& op : j["ops"]) {
        EXPECT_LE(op["count"].get<size_t>(), last);  // most frequent first
        last = op["count"].get<size_t>();
        counted += last;
    }
    EXPECT_EQ(counted, 6u);
}

TEST(CliInfo, ListsEveryUnsupportedNodeInsteadOfFailing) {
    TempDir dir;
    OnnxBuilder b(13);
    b.input("x", {1, 4});
    b.node("FrobnicateOp", {"x"}, {"a"}, "frob");
    b.node("Relu", {"x"}, {"r"}, "relu");
    b.node("Gelu", {"r"}, {"g"}, "msgelu").set_domain("com.microsoft");
    b.output("a");
    b.output("g");
    writeFile(dir.file("u.onnx"), b.serialize());
    CliResult r = runCli({"info", dir.file("u.onnx")}, kNoGpu);
    ASSERT_EQ(r.exitCode, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, "supported    no: 2 unsupported nodes"));
    EXPECT_TRUE(contains(r.out, "node 'frob' (FrobnicateOp): operator FrobnicateOp (opset 13) is not supported"));
    EXPECT_TRUE(contains(r.out, "node 'msgelu' (Gelu): domain 'com.microsoft' is not supported"));
    EXPECT_FALSE(contains(r.out, "'relu'"));
    EXPECT_TRUE(contains(r.out, "com.microsoft.Gelu 1"));
    nlohmann::json j = infoJson(dir.file("u.onnx"), kNoGpu);
    EXPECT_EQ(j["supported"], false);
    ASSERT_EQ(j["unsupported"].size(), 2u);
    EXPECT_EQ(j["unsupported"][0]["node"], "frob");
    EXPECT_EQ(j["unsupported"][1]["node"], "msgelu");
    EXPECT_EQ(j["plan"]["status"], "not compiled");
    // `run` stops at the first one, as before.
    EXPECT_EQ(runCli({"run", dir.file("u.onnx"), "--random"}).exitCode, 1);

    // A newer opset than vkinfer implements is a model-wide reason.
    OnnxBuilder newer(99);
    newer.input("x", {1, 4});
    newer.node("Relu", {"x"}, {"y"}, "relu");
    newer.output("y");
    writeFile(dir.file("new.onnx"), newer.serialize());
    nlohmann::json n = infoJson(dir.file("new.onnx"), kNoGpu);
    EXPECT_EQ(n["supported"], false);
    ASSERT_FALSE(n["unsupported"].empty());
    EXPECT_TRUE(n["unsupported"][0]["node"].is_null());
    EXPECT_TRUE(contains(n["unsupported"][0]["reason"].get<std::string>(), "opset 99"));
}

TEST(CliInfo, FilesThatAreNotModelsFail) {
    TempDir dir;
    writeFile(dir.file("text.onnx"), "this is not a protobuf of an ONNX model");
    CliResult r = runCli({"info", dir.file("text.onnx")}, kNoGpu);
    EXPECT_EQ(r.exitCode, 1) << r.describe();
    EXPECT_TRUE(contains(r.err, dir.file("text.onnx")));
    EXPECT_EQ(runCli({"info", dir.file("missing.onnx")}, kNoGpu).exitCode, 1);
}

TEST(CliInfo, SharedModelsAreDescribedAndSupported) {
    const std::string models = modelsDir();
    if (models.empty()) GTEST_SKIP() << "shared models not present";
    for (const auto& entry : fs::directory_iterator(models)) {
        const fs::path model = entry.path() / "model.onnx";
        if (!fs::exists(model)) continue;
        SCOPED_TRACE(model.string());
        nlohmann::json j = infoJson(model.string(), kNoGpu);
        EXPECT_FALSE(j["inputs"].empty());
        EXPECT_FALSE(j["outputs"].empty());
        EXPECT_GT(j["parameters"].get<uint64_t>(), 0u);
        EXPECT_EQ(j["supported"], true) << j["unsupported"].dump();
        EXPECT_EQ(j["plan"]["status"], "ok") << j["plan"].dump();
    }
}

}  // namespace
}  // namespace vkinfer::testing
