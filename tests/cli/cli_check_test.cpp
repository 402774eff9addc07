// vkinfer check: model folders in the ONNX backend-test layout against their reference data.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <nlohmann/json.hpp>

#include "cli/cli_models.h"
#include "cli/cli_runner.h"
#include "support/gpu_context.h"

namespace vkinfer::testing {
namespace {

namespace fs = std::filesystem;

int countLines(const CliResult& r, const std::string& prefix) {
    auto lines = r.outLines();
    return static_cast<int>(
        std::count_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(prefix, 0) == 0; }));
}

std::string lineStartingWith(const CliResult& r, const std::string& prefix) {
    for (const auto& l : r.outLines())
        if (l.rfind(prefix, 0) == 0) return l;
    return "";
}

// Rewrites one reference output file with `edit` applied to its tensor.
template <class F>
void editReference(const fs::path& file, F edit) {
    std::string name;
    auto t = loadTensorProto(file.string(), &name);
    ASSERT_TRUE(t.ok()) << t.status().toString();
    Tensor tensor = std::move(t).value();
    edit(tensor);
    ASSERT_TRUE(saveTensorProto(file.string(), tensor, name).ok());
}

TEST(CliCheck, SmallModelPasses) {
    TempDir dir;
    writeModelFolder(dir.path() / "small", smallConvModel(), 2);
    CliResult r = runCli({"check", (dir.path() / "small").string()});
    EXPECT_EQ(r.exitCode, 0) << r.describe();
    EXPECT_EQ(r.lastOutLine(), "2 passed, 0 failed, 0 unsupported") << r.describe();
    EXPECT_EQ(countLines(r, "PASS  small/test_data_set_"), 2) << r.out;
    EXPECT_EQ(countLines(r, "FAIL"), 0) << r.out;
}

TEST(CliCheck, LabelsStartWithTheFolderNameHoweverItIsSpelled) {
    TempDir dir;
    writeModelFolder(dir.path() / "suite" / "small", smallConvModel(), 1);
    const std::string suite = (dir.path() / "suite").string();
    struct Case {
        std::vector<std::string> args;
        std::string cwd, label;
    };
    for (const auto& c : std::vector<Case>{{{"check", suite + "/small/"}, "", "small/test_data_set_0"},
                                           {{"check", suite + "/./small"}, "", "small/test_data_set_0"},
                                           {{"check", "small"}, suite, "small/test_data_set_0"},
                                           {{"check", "."}, suite, "suite/small/test_data_set_0"},
                                           {{"check", suite + "/"}, "", "suite/small/test_data_set_0"}}) {
        SCOPED_TRACE(c.args[1] + " in " + c.cwd);
        CliResult r = runCli(c.args, {}, c.cwd);
        EXPECT_EQ(r.exitCode, 0) << r.describe();
        EXPECT_FALSE(lineStartingWith(r, "PASS  " + c.label + " ").empty()) << r.out;
    }
}

TEST(CliCheck, CorruptedReferenceFails) {
    TempDir dir;
    fs::path model = dir.path() / "small";
    writeModelFolder(model, smallConvModel(), 2);
    editReference(model / "test_data_set_1" / "output_0.pb", [](Tensor& t) { t.as<float>()[5] += 1.0f; });
    CliResult r = runCli({"check", model.string()});
    EXPECT_EQ(r.exitCode, 1) << r.describe();
    EXPECT_EQ(r.lastOutLine(), "1 passed, 1 failed, 0 unsupported") << r.describe();
    std::string fail = lineStartingWith(r, "FAIL  small/test_data_set_1");
    EXPECT_FALSE(fail.empty()) << r.out;
    EXPECT_TRUE(contains(fail, "1 of 64 elements"));
    EXPECT_TRUE(contains(fail, "worst at 5"));
    EXPECT_FALSE(lineStartingWith(r, "PASS  small/test_data_set_0").empty()) << r.out;
}

// Under --precision fp16, reference_fp16.json beside a data set (a peer's float16 error on
// it) sets the bound: within 2x the peer's error passes, beyond it fails, and the line reports
// both errors. A reference moved by delta stands in for a model whose float16 error is large.
TEST(CliCheck, Fp16ToleranceDerivedFromThePeersError) {
    VKINFER_REQUIRE_GPU();
    TempDir dir;
    const fs::path model = dir.path() / "small";
    writeModelFolder(model, smallConvModel(), 1);
    double delta = 0;
    editReference(model / "test_data_set_0" / "output_0.pb", [&](Tensor& t) {
        float m = 0;
        for (int64_t i = 0; i < t.elementCount(); ++i) m = std::max(m, std::abs(t.as<float>()[i]));
        delta = 0.05 * m;
        t.as<float>()[5] += static_cast<float>(delta);
    });
    const std::string peer = (model / "test_data_set_0" / "reference_fp16.json").string();
    auto writePeer = [&](double error) {
        writeFile(peer, nlohmann::json{{"source", "a test"}, {"outputs", {{"y", {{"max_abs_error", error}}}}}}.dump());
    };
    // Without the file, the moved element fails at the default tolerance.
    CliResult plain = runCli({"--precision", "fp16", "check", model.string()});
    EXPECT_EQ(plain.exitCode, 1) << plain.describe();

    writePeer(0.6 * delta);  // 2 x 0.6 delta covers delta and fp16's own rounding
    CliResult within = runCli({"--precision", "fp16", "check", model.string()});
    EXPECT_EQ(within.exitCode, 0) << within.describe();
    const std::string pass = lineStartingWith(within, "PASS  small/test_data_set_0");
    EXPECT_TRUE(contains(pass, "peer fp16 max error")) << within.out;
    EXPECT_TRUE(contains(pass, "(ratio 1.")) << within.out;

    writePeer(0.4 * delta);  // 0.8 delta: the moved element is outside
    CliResult beyond = runCli({"--precision", "fp16", "check", model.string()});
    EXPECT_EQ(beyond.exitCode, 1) << beyond.describe();
    EXPECT_TRUE(contains(lineStartingWith(beyond, "FAIL  small/test_data_set_0"), "1 of 64 elements")) << beyond.out;
    // A factor of 3 lets it pass; a tolerance given by hand replaces the peer's.
    CliResult wider = runCli({"--precision", "fp16", "check", model.string(), "--peer-factor", "3"});
    EXPECT_EQ(wider.exitCode, 0) << wider.describe();
    writePeer(0.6 * delta);
    CliResult byHand = runCli({"--precision", "fp16", "check", model.string(), "--rtol", "1e-3"});
    EXPECT_EQ(byHand.exitCode, 1) << byHand.describe();
    CliResult both = runCli({"check", model.string(), "--rtol", "1e-3", "--peer-factor", "3"});
    EXPECT_EQ(both.exitCode, 2) << both.describe();
    // The file is read only in fp16; in fp32 the moved element fails as before.
    EXPECT_EQ(runCli({"check", model.string()}).exitCode, 1);

    // A malformed file fails the data set naming the file, and the run goes on.
    writeFile(peer, "{\"outputs\": {\"y\": {\"max_abs_error\": -1}}}");
    CliResult bad = runCli({"--precision", "fp16", "check", model.string()});
    EXPECT_EQ(bad.exitCode, 1) << bad.describe();
    const std::string fail = lineStartingWith(bad, "FAIL  small/test_data_set_0");
    EXPECT_TRUE(contains(fail, "reference_fp16.json")) << bad.out;
    EXPECT_TRUE(contains(fail, "finite number >= 0")) << bad.out;
}

TEST(CliCheck, ReferenceOfWrongShapeFails) {
    TempDir dir;
    fs::path model = dir.path() / "small";
    writeModelFolder(model, smallConvModel(), 1);
    editReference(model / "test_data_set_0" / "output_0.pb", [](Tensor& t) { ASSERT_TRUE(t.reshape({1, 4, 16})); });
    CliResult r = runCli({"check", model.string()});
    EXPECT_EQ(r.exitCode, 1) << r.describe();
    EXPECT_TRUE(contains(lineStartingWith(r, "FAIL"), "1x4x16")) << r.out;
    EXPECT_EQ(r.lastOutLine(), "0 passed, 1 failed, 0 unsupported");
}

// NaN in the outputs: NaN where the reference has NaN passes; NaN against a number, or a
// number against NaN, fails naming the element.
TEST(CliCheck, NaNMatchesOnlyNaN) {
    TempDir dir;
    fs::path model = dir.path() / "relu";
    OnnxBuilder b;
    b.input("x", {2, 4}).output("y");
    b.node("Relu", {"x"}, {"y"});
    writeModelFolder(model, b, 1);
    const fs::path set = model / "test_data_set_0";
    const float nan = std::numeric_limits<float>::quiet_NaN();
    Tensor x = floatTensor({2, 4}, {1.0f, nan, -1.0f, 2.0f, nan, 0.5f, -3.0f, 4.0f});
    ASSERT_TRUE(saveTensorProto((set / "input_0.pb").string(), x, "x").ok());
    Tensor y = floatTensor({2, 4}, {1.0f, nan, 0.0f, 2.0f, nan, 0.5f, 0.0f, 4.0f});
    ASSERT_TRUE(saveTensorProto((set / "output_0.pb").string(), y, "y").ok());
    CliResult pass = runCli({"check", model.string()});
    EXPECT_EQ(pass.exitCode, 0) << pass.describe();
    EXPECT_FALSE(lineStartingWith(pass, "PASS  relu/test_data_set_0").empty()) << pass.out;

    editReference(set / "output_0.pb", [](Tensor& t) { t.as<float>()[1] = 0.0f; });  // NaN due, a number given
    CliResult numberDue = runCli({"check", model.string()});
    EXPECT_EQ(numberDue.exitCode, 1) << numberDue.describe();
    EXPECT_TRUE(contains(lineStartingWith(numberDue, "FAIL"), "1 of 8 elements")) << numberDue.out;
    EXPECT_TRUE(contains(lineStartingWith(numberDue, "FAIL"), "worst at 1")) << numberDue.out;

    editReference(set / "output_0.pb", [&](Tensor& t) {
        t.as<float>()[1] = nan;
        t.as<float>()[3] = nan;  // a number where the reference has NaN
    });
    CliResult nanDue = runCli({"check", model.string()});
    EXPECT_EQ(nanDue.exitCode, 1) << nanDue.describe();
    EXPECT_TRUE(contains(lineStartingWith(nanDue, "FAIL"), "worst at 3")) << nanDue.out;
}

TEST(CliCheck, ToleranceOptions) {
    TempDir dir;
    fs::path model = dir.path() / "small";
    writeModelFolder(model, smallConvModel(), 1);
    // Move one value by 0.05: outside the default tolerance, inside an absolute atol of 0.1
    // and inside an rtol of 100 % on a value >= 0.05 (the outputs are ReLU'd, >= 0).
    int64_t at = -1;
    editReference(model / "test_data_set_0" / "output_0.pb", [&](Tensor& t) {
        for (int64_t i = 0; i < t.elementCount() && at < 0; ++i)
            if (t.as<float>()[i] > 0.1f) at = i;
        ASSERT_GE(at, 0);
        t.as<float>()[at] += 0.05f;
    });
    const std::string m = model.string();
    CliResult strict = runCli({"check", m});
    EXPECT_EQ(strict.exitCode, 1) << strict.describe();
    CliResult abs = runCli({"check", m, "--atol", "0.1", "--atol-absolute"});
    EXPECT_EQ(abs.exitCode, 0) << abs.describe();
    CliResult absTight = runCli({"check", m, "--atol", "0.01", "--atol-absolute", "--rtol", "0"});
    EXPECT_EQ(absTight.exitCode, 1) << absTight.describe();
    CliResult rel = runCli({"check", m, "--rtol", "1"});
    EXPECT_EQ(rel.exitCode, 0) << rel.describe();
}

TEST(CliCheck, FolderOfModelsCountsUnsupportedAndListsIt) {
    TempDir dir;
    writeModelFolder(dir.path() / "suite" / "good_model", smallConvModel(), 2);
    writeModelFolder(dir.path() / "suite" / "weird_model", unsupportedModel(), 0);
    const std::string suite = (dir.path() / "suite").string();
    const std::string report = dir.file("report.json");
    CliResult r = runCli({"check", suite, "--report", report});
    EXPECT_EQ(r.exitCode, 0) << r.describe();
    EXPECT_EQ(r.lastOutLine(), "2 passed, 0 failed, 1 unsupported") << r.describe();
    EXPECT_EQ(countLines(r, "PASS  suite/good_model/test_data_set_"), 2) << r.out;
    std::string skip = lineStartingWith(r, "SKIP  suite/weird_model");
    EXPECT_TRUE(contains(skip, "FrobnicateOp")) << r.out;
    // The summary lists each unsupported case with the reason.
    EXPECT_TRUE(contains(r.out, "unsupported (1):\n  suite/weird_model: "));
    EXPECT_TRUE(contains(r.out, "'frob'"));

    auto j = nlohmann::json::parse(readFile(report), nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << readFile(report);
    ASSERT_TRUE(j.is_array());
    ASSERT_EQ(j.size(), 3u);
    int pass = 0, unsupported = 0;
    for (const auto& e : j) {
        pass += e["result"] == "pass";
        unsupported += e["result"] == "unsupported";
    }
    EXPECT_EQ(pass, 2);
    EXPECT_EQ(unsupported, 1);

    CliResult filtered = runCli({"check", suite, "--filter", "good_model"});
    EXPECT_EQ(filtered.exitCode, 0) << filtered.describe();
    EXPECT_EQ(filtered.lastOutLine(), "2 passed, 0 failed, 0 unsupported") << filtered.describe();
}

TEST(CliCheck, BrokenModelFileIsAFailure) {
    TempDir dir;
    writeModelFolder(dir.path() / "suite" / "a_good", smallConvModel(), 1);
    writeModelFolder(dir.path() / "suite" / "b_broken", smallConvModel(), 1);
    fs::path broken = dir.path() / "suite" / "b_broken" / "model.onnx";
    std::string bytes = readFile(broken.string());
    writeFile(broken.string(), bytes.substr(0, bytes.size() / 2));
    CliResult r = runCli({"check", (dir.path() / "suite").string()});
    EXPECT_EQ(r.exitCode, 1) << r.describe();
    EXPECT_EQ(r.lastOutLine(), "1 passed, 1 failed, 0 unsupported") << r.describe();
    EXPECT_TRUE(contains(lineStartingWith(r, "FAIL  suite/b_broken"), "parse error")) << r.out;
}

TEST(CliCheck, ModelWithoutDataSetsIsAFailure) {
    TempDir dir;
    writeModelFolder(dir.path() / "bare", smallConvModel(), 0);
    CliResult r = runCli({"check", (dir.path() / "bare").string()});
    EXPECT_EQ(r.exitCode, 1) << r.describe();
    EXPECT_TRUE(contains(lineStartingWith(r, "FAIL"), "test_data_set")) << r.out;
}

TEST(CliCheck, NothingToCheck) {
    TempDir dir;
    CliResult empty = runCli({"check", dir.path().string()});
    EXPECT_NE(empty.exitCode, 0) << empty.describe();
    EXPECT_TRUE(contains(empty.err, "no model.onnx"));
    CliResult missing = runCli({"check", dir.file("nope")});
    EXPECT_NE(missing.exitCode, 0) << missing.describe();
    EXPECT_TRUE(contains(missing.err, dir.file("nope")));
}

TEST(CliCheck, SharedTinyVitIsUnsupportedOrPasses) {
    std::string models = modelsDir();
    if (models.empty()) GTEST_SKIP() << "shared models not present";
    CliResult r = runCli({"check", models, "--filter", "tiny_vit"});
    EXPECT_EQ(r.exitCode, 0) << r.describe();
    if (r.lastOutLine() == "0 passed, 0 failed, 1 unsupported") {
        // The SKIP line and the summary list name the case, the model file and the node at fault.
        std::string skip = lineStartingWith(r, "SKIP  ");
        EXPECT_TRUE(contains(skip, "/tiny_vit  unsupported: ")) << r.out;
        EXPECT_TRUE(contains(skip, "tiny_vit/model.onnx: node '")) << r.out;
        EXPECT_TRUE(contains(r.out, "  models/tiny_vit: ")) << r.out;
    } else {
        EXPECT_EQ(r.lastOutLine(), "2 passed, 0 failed, 0 unsupported") << r.describe();
    }
}

// The shared super-resolution model with the validation layer, in both sync modes, with the
// global options on either side of the command.
TEST(CliCheck, SharedEspcnPassesWithValidationInBothSyncModes) {
    std::string models = modelsDir();
    if (models.empty()) GTEST_SKIP() << "shared models not present";
    const std::string espcn = models + "/espcn_x2";
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"--validate", "--sync", "minimal", "check", espcn},
             {"check", espcn, "--validate", "--sync", "conservative"}}) {
        SCOPED_TRACE(args[0]);
        CliResult r = runCli(args, {"VKINFER_VALIDATE=0"});  // validation from --validate alone
        EXPECT_EQ(r.exitCode, 0) << r.describe();
        EXPECT_EQ(r.lastOutLine(), "2 passed, 0 failed, 0 unsupported") << r.describe();
        EXPECT_EQ(countLines(r, "PASS  espcn_x2/test_data_set_"), 2) << r.out;
    }
}

}  // namespace
}  // namespace vkinfer::testing
