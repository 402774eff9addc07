// Models with external data, as PyTorch writes them (weights in model.onnx.data next to
// model.onnx): a shared model rewritten that way gives its reference outputs, bit-identical
// to the embedded original, and `vkinfer check` passes on the folder. Runs under validation.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_runner.h"
#include "io/io_test_util.h"
#include "models/reference_checks.h"
#include "runtime/model_data.h"
#include "support/gpu_context.h"
#include "support/onnx_builder.h"

namespace vkinfer::testing {
namespace {

namespace fs = std::filesystem;

// The model's folder: the shared models, or the bundled espcn_x2.
std::string modelFolder(const std::string& name) {
    std::string root = modelsDir();
    if (!root.empty() && fs::exists(root + "/" + name + "/model.onnx")) return root + "/" + name;
    std::string bundled = std::string(VKINFER_SOURCE_DIR) + "/data/" + name;
    return fs::exists(bundled + "/model.onnx") ? bundled : std::string();
}

// Copies `from`'s model into `to` with every initializer of 1 KiB or more in
// model.onnx.data, and its test data sets alongside; returns the number of tensors moved.
size_t writeExternalCopy(const std::string& from, const fs::path& to) {
    fs::create_directories(to);
    onnx::ModelProto proto;
    std::string bytes = readFile(from + "/model.onnx");
    if (!proto.ParseFromString(bytes)) throw std::runtime_error("cannot parse " + from + "/model.onnx");
    size_t moved = moveInitializersToExternalData(proto, to.string(), "model.onnx.data");
    writeFile((to / "model.onnx").string(), proto.SerializeAsString());
    for (const auto& set : fs::directory_iterator(from)) {
        if (!set.is_directory()) continue;
        fs::create_directories(to / set.path().filename());
        for (const auto& f : fs::directory_iterator(set.path()))  // files one by one: the shared copy is read-only
            writeFile((to / set.path().filename() / f.path().filename()).string(), readFile(f.path().string()));
    }
    return moved;
}

size_t borrowedConstants(const Model& m) {
    size_t n = 0;
    for (const auto& v : m.data()->graph.values) n += v.constant && v.constant->borrowed();
    return n;
}

class ExternalDataModel : public ::testing::TestWithParam<const char*> {};

TEST_P(ExternalDataModel, MatchesReferenceAndTheEmbeddedOriginal) {
    VKINFER_REQUIRE_GPU();
    std::string from = modelFolder(GetParam());
    if (from.empty()) GTEST_SKIP() << GetParam() << " not found (shared models: set VKINFER_MODELS_DIR)";
    TempDir dir;
    size_t moved = writeExternalCopy(from, dir.path());
    ASSERT_GT(moved, 0u) << "no initializer of 1 KiB or more in " << from;
    ASSERT_LT(fs::file_size(dir.file("model.onnx")), fs::file_size(from + "/model.onnx") / 2)
        << "the weights should have left model.onnx";

    auto original = Model::load(from + "/model.onnx");
    auto external = Model::load(dir.file("model.onnx"));
    ASSERT_TRUE(original.ok()) << original.status().toString();
    ASSERT_TRUE(external.ok()) << external.status().toString();
    EXPECT_EQ(borrowedConstants(*external), moved) << "every moved weight should be read in place from the mapping";

    auto embedded = Session::create(gpuContext(), *original);
    auto mapped = Session::create(gpuContext(), *external);
    ASSERT_TRUE(embedded.ok()) << embedded.status().toString();
    ASSERT_TRUE(mapped.ok()) << mapped.status().toString();
    auto sets = listTestDataSets(dir.path().string());
    ASSERT_FALSE(sets.empty());
    for (const auto& set : sets) {
        auto ds = loadTestDataSet(set, *external);
        ASSERT_TRUE(ds.ok()) << ds.status().toString();
        auto out = mapped->run(ds->inputs);
        ASSERT_TRUE(out.ok()) << set << ": " << out.status().toString();
        expectMatchesReferences(*out, ds->outputs, Tolerance{}, set);
        auto ref = embedded->run(ds->inputs);
        ASSERT_TRUE(ref.ok()) << ref.status().toString();
        EXPECT_TRUE(sameBytes(*out, *ref)) << set << ": external and embedded weights give different outputs";
    }
}

INSTANTIATE_TEST_SUITE_P(Models, ExternalDataModel, ::testing::Values("squeezenet1_1", "espcn_x2"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

TEST(ExternalDataCli, CheckPassesOnAnExternalDataCopy) {
    VKINFER_REQUIRE_GPU();
    std::string from = modelFolder("espcn_x2");
    if (from.empty()) GTEST_SKIP() << "espcn_x2 not found";
    // (model_tests does not depend on the CLI target; a full build has it.)
    if (!fs::exists(VKINFER_CLI)) GTEST_SKIP() << "the vkinfer CLI is not built: " << VKINFER_CLI;
    TempDir dir;
    ASSERT_GT(writeExternalCopy(from, dir.path() / "espcn_ext"), 0u);
    CliResult r = runCli({"check", (dir.path() / "espcn_ext").string()});
    EXPECT_EQ(r.exitCode, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, "espcn_ext")) << r.describe();

    // Without its data file the model fails to load, naming the tensor and the file.
    fs::remove(dir.path() / "espcn_ext" / "model.onnx.data");
    CliResult missing = runCli({"check", (dir.path() / "espcn_ext").string()});
    EXPECT_NE(missing.exitCode, 0) << missing.describe();
    EXPECT_TRUE(contains(missing.out + missing.err, "model.onnx.data")) << missing.describe();
    EXPECT_TRUE(contains(missing.out + missing.err, "does not exist")) << missing.describe();
}

}  // namespace
}  // namespace vkinfer::testing
