// vkinfer check on a suite of model folders: --isolate, --expect, --write-expected and the
// --markdown conformance report that CI holds the engine to.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/cli_models.h"
#include "cli/cli_runner.h"
#include "support/gpu_context.h"

namespace vkinfer::testing {
namespace {

namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// suite/{good, bad (corrupted reference), odd (unsupported op)}.
fs::path writeSuite(const TempDir& dir) {
    fs::path suite = dir.path() / "suite";
    writeModelFolder(suite / "good", smallConvModel(), 1);
    writeModelFolder(suite / "bad", smallConvModel(), 1, 5);
    std::string name;
    auto ref = loadTensorProto((suite / "bad" / "test_data_set_0" / "output_0.pb").string(), &name);
    EXPECT_TRUE(ref.ok());
    Tensor t = std::move(ref).value();
    t.as<float>()[0] += 1.0f;
    EXPECT_TRUE(saveTensorProto((suite / "bad" / "test_data_set_0" / "output_0.pb").string(), t, name).ok());
    writeModelFolder(suite / "odd", unsupportedModel(), 0);
    return suite;
}

TEST(CliSuite, IsolatedRunMatchesInProcessRun) {
    TempDir dir;
    fs::path suite = writeSuite(dir);
    CliResult inProcess = runCli({"check", suite.string()});
    CliResult isolated = runCli({"check", suite.string(), "--isolate"});
    EXPECT_EQ(inProcess.exitCode, 1) << inProcess.describe();
    EXPECT_EQ(isolated.exitCode, 1) << isolated.describe();
    EXPECT_EQ(isolated.lastOutLine(), "1 passed, 1 failed, 1 unsupported") << isolated.describe();
    EXPECT_EQ(inProcess.lastOutLine(), isolated.lastOutLine());
    EXPECT_TRUE(contains(isolated.out, "PASS  suite/good/test_data_set_0")) << isolated.out;
    EXPECT_TRUE(contains(isolated.out, "FAIL  suite/bad/test_data_set_0")) << isolated.out;
}

TEST(CliSuite, ExpectedPassesToleratesKnownFailuresButNotRegressions) {
    TempDir dir;
    fs::path suite = writeSuite(dir);
    fs::path expected = dir.path() / "expected.txt";
    CliResult write = runCli({"check", suite.string(), "--isolate", "--write-expected", expected.string()});
    EXPECT_EQ(write.exitCode, 1) << write.describe();
    std::string list = slurp(expected);
    EXPECT_TRUE(contains(list, "suite/good/test_data_set_0\n")) << list;
    EXPECT_FALSE(contains(list, "suite/bad")) << list;

    // Only "good" is expected: the known failure of "bad" does not fail the run.
    CliResult held = runCli({"check", suite.string(), "--isolate", "--expect", expected.string()});
    EXPECT_EQ(held.exitCode, 0) << held.describe();
    EXPECT_TRUE(contains(held.out, "0 regressions")) << held.out;

    // Expecting "bad" to pass as well is a regression, named as such.
    {
        std::ofstream f(expected, std::ios::app);
        f << "suite/bad/test_data_set_0\n# a comment\n\nsuite/gone/test_data_set_0\n";
    }
    CliResult regressed = runCli({"check", suite.string(), "--isolate", "--expect", expected.string()});
    EXPECT_EQ(regressed.exitCode, 1) << regressed.describe();
    EXPECT_TRUE(contains(regressed.out, "REGRESSION suite/bad/test_data_set_0 (fail)")) << regressed.out;
    EXPECT_TRUE(contains(regressed.out, "MISSING suite/gone/test_data_set_0")) << regressed.out;
    EXPECT_TRUE(contains(regressed.out, "2 regressions")) << regressed.out;
}

TEST(CliSuite, MarkdownReportCountsPerSuiteOperatorAndScope) {
    TempDir dir;
    fs::path suite = writeSuite(dir);
    fs::path scope = dir.path() / "scope.txt", md = dir.path() / "report.md";
    {
        std::ofstream f(scope);
        f << "# ops that count\nConv\nRelu\nMaxPool\n";
    }
    CliResult r = runCli({"check", suite.string(), "--isolate", "--scope", scope.string(), "--markdown", md.string()});
    EXPECT_EQ(r.exitCode, 1) << r.describe();
    std::string report = slurp(md);
    // Suite rows: the folder under the checked one ("good", "bad", "odd" here).
    EXPECT_TRUE(contains(report, "| good | 1 | 1 | 0 | 0 | 0 |")) << report;
    EXPECT_TRUE(contains(report, "| bad | 1 | 0 | 1 | 0 | 0 |")) << report;
    EXPECT_TRUE(contains(report, "| odd | 1 | 0 | 0 | 1 | 0 |")) << report;
    // In scope: the two conv models (all three ops listed); the unknown op is not.
    EXPECT_TRUE(contains(report, "**1 of 2 pass (50.0%)**")) << report;
    // Several operators per model: counted in the last row.
    EXPECT_TRUE(contains(report, "| (several operators) | | 2 | 1 | 1 | 0 | 0 |")) << report;
    EXPECT_TRUE(contains(report, "| FrobnicateOp |  | 1 | 0 | 0 | 1 | 0 |")) << report;
    EXPECT_TRUE(contains(report, "| suite/bad/test_data_set_0 | fail |")) << report;
}

// A case whose inputs or outputs vkinfer cannot hold (bfloat16 here) is out of scope whatever
// its operators, counted apart by type; the JSON report names the values; --title heads it.
TEST(CliSuite, ForeignValueTypesAreOutOfScope) {
    TempDir dir;
    const fs::path suite = dir.path() / "suite";
    writeModelFolder(suite / "conv", smallConvModel(), 1);
    OnnxBuilder b(13);
    b.input("x", {4}, static_cast<DataType>(16)).output("y", static_cast<DataType>(16));
    b.node("Relu", {"x"}, {"y"});
    writeModelFolder(suite / "relu_bf16", b, 0);
    const fs::path scope = dir.path() / "scope.txt", md = dir.path() / "report.md", json = dir.path() / "r.json";
    {
        std::ofstream f(scope);
        f << "Conv\nRelu\nMaxPool\n";
    }
    CliResult r = runCli({"check", suite.string(), "--isolate", "--scope", scope.string(), "--markdown", md.string(),
                          "--title", "Conformance: a test suite", "--report", json.string()});
    EXPECT_EQ(r.exitCode, 0) << r.describe();
    const std::string report = slurp(md);
    EXPECT_EQ(report.rfind("# Conformance: a test suite\n", 0), 0u) << report;
    EXPECT_TRUE(contains(report, "**1 of 1 pass (100.0%)**")) << report;
    EXPECT_TRUE(contains(report, "(cases, by its type): bfloat16 1.")) << report;
    // The reasons name files from the suite's folder down, wherever it lies.
    EXPECT_TRUE(contains(report, "| suite/relu_bf16 | unsupported | suite/relu_bf16/model.onnx: ")) << report;
    EXPECT_FALSE(contains(report, dir.path().string())) << report;
    auto j = nlohmann::json::parse(slurp(json), nullptr, false);
    ASSERT_TRUE(j.is_array()) << slurp(json);
    bool named = false;
    for (const auto& e : j)
        if (e["model"] == "suite/relu_bf16")
            named = e["foreign_values"] == nlohmann::json::array({"input 'x': bfloat16", "output 'y': bfloat16"});
    EXPECT_TRUE(named) << j.dump(1);
}

}  // namespace
}  // namespace vkinfer::testing

namespace vkinfer::testing {
namespace {

// A data set that hangs is recorded under its own name, and the model's other data sets and
// the cases after it still run (a killed worker's successor resumes after it).
TEST(CliSuite, ATimeoutNamesItsDataSetAndTheOthersRun) {
    VKINFER_REQUIRE_GPU();
    TempDir dir;
    const fs::path upscaler = fs::path(VKINFER_SOURCE_DIR) / "data/upscaler_x2";
    const fs::path slow = dir.path() / "suite/slow";
    fs::create_directories(slow);
    fs::copy_file(upscaler / "model.onnx", slow / "model.onnx");
    for (int k : {0, 2}) fs::copy(upscaler / "test_data_set_0", slow / ("test_data_set_" + std::to_string(k)));
    fs::create_directories(slow / "test_data_set_1");
    // A 960x540 frame through the shipped upscaler: minutes on lavapipe (the demo's frame, about
    // 44 GFLOP, under its 128 MiB binding limit), far past the 20 s timeout; its reference is
    // never reached. (ESPCN at 480x800 was half a minute once, until the portable conv's
    // register prefetch made it 11 s.) The timeout leaves the other data sets room on a loaded
    // machine: at 3 s and at 10 s, data set 0 (pipeline creation under validation included)
    // timed out under ctest -j16.
    ASSERT_TRUE(saveTensorProto((slow / "test_data_set_1/input_0.pb").string(), randomTensor({1, 3, 540, 960}, 5), "input").ok());
    fs::copy_file(upscaler / "test_data_set_0/output_0.pb", slow / "test_data_set_1/output_0.pb");
    writeModelFolder(dir.path() / "suite/zafter", smallConvModel(), 1);
    CliResult r = runCli({"check", (dir.path() / "suite").string(), "--isolate", "--timeout", "20"});
    EXPECT_EQ(r.exitCode, 1) << r.describe();
    EXPECT_TRUE(contains(r.out, "PASS  suite/slow/test_data_set_0")) << r.out;
    EXPECT_TRUE(contains(r.out, "suite/slow/test_data_set_1")) << r.out;
    EXPECT_TRUE(contains(r.out, "no progress for 20 s")) << r.out;
    EXPECT_TRUE(contains(r.out, "PASS  suite/slow/test_data_set_2")) << r.out;
    EXPECT_TRUE(contains(r.out, "PASS  suite/zafter/test_data_set_0")) << r.out;
}

}  // namespace
}  // namespace vkinfer::testing
