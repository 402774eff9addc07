// vkinfer CLI: help, devices, and usage errors (exit 2), global options on either side of
// the command.
#include <algorithm>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_models.h"
#include "cli/cli_runner.h"

namespace vkinfer::testing {
namespace {

TEST(CliUsage, HelpListsCommandsAndGlobalOptions) {
    CliResult r = runCli({"--help"});
    ASSERT_EQ(r.exitCode, 0) << r.describe();
    for (const char* word : {"devices", "run", "check", "plan", "bench", "upscale", "info", "--device", "--validate",
                             "--sync", "minimal", "conservative"})
        EXPECT_TRUE(contains(r.out, word));
}

TEST(CliUsage, CommandHelpListsItsOptions) {
    CliResult check = runCli({"check", "--help"});
    ASSERT_EQ(check.exitCode, 0) << check.describe();
    for (const char* word : {"--rtol", "--atol", "--atol-absolute", "--filter", "--report"})
        EXPECT_TRUE(contains(check.out, word));
    CliResult run = runCli({"run", "--help"});
    ASSERT_EQ(run.exitCode, 0) << run.describe();
    for (const char* word : {"--input", "--output-dir", "--random", "--shape"}) EXPECT_TRUE(contains(run.out, word));
    CliResult bench = runCli({"bench", "--help"});
    ASSERT_EQ(bench.exitCode, 0) << bench.describe();
    EXPECT_TRUE(contains(bench.out, "--iters"));
    EXPECT_TRUE(contains(bench.out, "--json"));
}

// Global options belong to the app, but each command's --help lists them too.
TEST(CliUsage, CommandHelpListsTheGlobalOptions) {
    for (const char* cmd : {"devices", "run", "check", "plan", "bench", "upscale", "info"}) {
        CliResult r = runCli({cmd, "--help"});
        ASSERT_EQ(r.exitCode, 0) << r.describe();
        for (const char* word : {"Global options", "--device", "--validate", "--sync", "--precision"})
            EXPECT_TRUE(contains(r.out, word)) << cmd;
    }
}

// Every option a --help lists is documented in docs/CLI.md, and the words for results agree.
TEST(CliUsage, HelpAndDocsAgree) {
    const std::string docs = readFile(std::string(VKINFER_SOURCE_DIR) + "/docs/CLI.md");
    ASSERT_FALSE(docs.empty());
    for (const char* cmd : {"devices", "run", "check", "plan", "bench", "upscale", "info"}) {
        CliResult r = runCli({cmd, "--help"});
        ASSERT_EQ(r.exitCode, 0) << r.describe();
        EXPECT_TRUE(contains(docs, std::string("## ") + cmd));
        for (const auto& line : r.outLines()) {
            // "  -i,--input TEXT ...  description": the long name of each option.
            size_t dash = line.find("--");
            if (line.rfind("  -", 0) != 0 || dash == std::string::npos) continue;
            std::string name = line.substr(dash, line.find_first_of(" :", dash) - dash);
            if (name == "--help") continue;
            EXPECT_TRUE(contains(docs, "`" + name)) << cmd << " " << name;
        }
    }
    CliResult check = runCli({"check", "--help"});
    EXPECT_TRUE(contains(check.out, "TIMEOUT"));
    EXPECT_FALSE(contains(check.out, "HANG"));
    EXPECT_TRUE(contains(docs, "TIMEOUT"));
    EXPECT_FALSE(contains(docs, "HANG"));
    EXPECT_FALSE(contains(docs, "SKIP  tiny_vit")) << "tiny_vit is supported: the example must be a true one";
}

TEST(CliUsage, Version) {
    CliResult r = runCli({"--version"});
    ASSERT_EQ(r.exitCode, 0) << r.describe();
    EXPECT_EQ(r.out.rfind("vkinfer ", 0), 0u) << r.out;
}

TEST(CliDevices, PrintsDeviceZero) {
    CliResult r = runCli({"devices"});
    ASSERT_EQ(r.exitCode, 0) << r.describe();
    EXPECT_EQ(r.out.rfind("0: ", 0), 0u) << r.out;
    EXPECT_TRUE(contains(r.out, "Vulkan"));
    EXPECT_TRUE(contains(r.out, "subgroup"));
}

TEST(CliDevices, Json) {
    CliResult r = runCli({"devices", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.describe();
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out;
    ASSERT_TRUE(j.is_array());
    ASSERT_GE(j.size(), 1u);
    EXPECT_EQ(j[0]["index"], 0);
    EXPECT_TRUE(j[0]["name"].is_string());
    EXPECT_TRUE(j[0]["subgroup_size"].is_number());
}

// Usage errors: exit 2, "vkinfer: error: ..." on stderr naming what was wrong, nothing on stdout.
void expectUsageError(const std::vector<std::string>& args, const std::string& mention) {
    std::string cmd;
    for (const auto& a : args) cmd += a + " ";
    SCOPED_TRACE(cmd);
    CliResult r = runCli(args);
    EXPECT_EQ(r.exitCode, 2) << r.describe();
    EXPECT_TRUE(contains(r.err, "vkinfer: error: "));
    EXPECT_TRUE(contains(r.err, mention));
    EXPECT_EQ(r.out, "");
}

TEST(CliUsage, UnknownCommand) {
    expectUsageError({"frobnicate"}, "frobnicate");
    expectUsageError({"--sync", "minimal", "frobnicate", "model.onnx"}, "unknown command 'frobnicate'");
}

TEST(CliUsage, NoCommand) {
    expectUsageError({}, "no command given (vkinfer --help lists the commands)");
    expectUsageError({"--sync", "minimal"}, "no command given");
}

// CLI11's "The following arguments were not expected: 3 --iterations" in a person's words:
// the unknown option by name, and where the real ones are listed.
TEST(CliUsage, UnknownOption) {
    expectUsageError({"--frobnicate", "devices"}, "--frobnicate");
    expectUsageError({"devices", "--frobnicate"}, "unknown option '--frobnicate' (vkinfer devices --help");
    expectUsageError({"run", "--frobnicate", "model.onnx"}, "--frobnicate");
    expectUsageError({"bench", "model.onnx", "--iterations", "3"}, "unknown option '--iterations' (vkinfer bench --help");
    expectUsageError({"run", "model.onnx", "--frob=3"}, "unknown option '--frob' ");
    expectUsageError({"--bogus"}, "unknown option '--bogus'");
    expectUsageError({"info", "model.onnx", "extra", "3"}, "unexpected arguments 'extra', '3' (vkinfer info --help");
}

TEST(CliUsage, BogusSyncModeBeforeAndAfterTheCommand) {
    expectUsageError({"--sync", "bogus", "devices"}, "bogus");
    expectUsageError({"devices", "--sync", "bogus"}, "bogus");
    expectUsageError({"plan", "model.onnx", "--sync", "bogus"}, "minimal");
}

TEST(CliUsage, MissingArguments) {
    expectUsageError({"run"}, "model");
    expectUsageError({"check"}, "dir");
    expectUsageError({"--device"}, "--device");
}

TEST(CliUsage, BadOptionValues) {
    expectUsageError({"--device", "zero", "devices"}, "--device");
    expectUsageError({"plan", "m.onnx", "--alignment", "3"}, "--alignment");
}

TEST(CliUsage, NoInputsListsWhatTheModelTakes) {
    TempDir dir;
    writeFile(dir.file("m.onnx"), smallConvModel().serialize());
    CliResult r = runCli({"run", dir.file("m.onnx")});
    EXPECT_EQ(r.exitCode, 2) << r.describe();
    EXPECT_TRUE(contains(r.err, "x (float32 1x3x8x8)"));
    EXPECT_TRUE(contains(r.err, "--random"));
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line, like every failure";
}

TEST(CliUsage, BadShapeSpec) {
    TempDir dir;
    writeFile(dir.file("m.onnx"), smallConvModel().serialize());
    CliResult r = runCli({"run", dir.file("m.onnx"), "--random", "--shape", "x=1x3xeightx8"});
    EXPECT_EQ(r.exitCode, 2) << r.describe();
    EXPECT_TRUE(contains(r.err, "1x3xeightx8"));
}

int deviceCount() {
    CliResult r = runCli({"devices", "--json"});
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    return j.is_array() ? static_cast<int>(j.size()) : -1;
}

TEST(CliDevices, DeviceOutOfRangeNamesTheDeviceCount) {
    TempDir dir;
    writeModelFolder(dir.path() / "small", smallConvModel(), 1);
    const std::string model = (dir.path() / "small" / "model.onnx").string();
    const int n = deviceCount();
    ASSERT_GT(n, 0);
    const std::string count = std::to_string(n) + (n == 1 ? " device found" : " devices found");
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"--device", "99", "run", model, "--random"},
             {"run", model, "--random", "--device", "99"},
             {"check", (dir.path() / "small").string(), "--device", "99"},
             {"--device", "99", "bench", model, "--iters", "1"},
             {"plan", model, "--device", "99"}}) {
        SCOPED_TRACE(args[0] + " " + args[1]);
        CliResult r = runCli(args);
        EXPECT_EQ(r.exitCode, 1) << r.describe();
        EXPECT_TRUE(contains(r.err, "vkinfer: error: "));
        EXPECT_TRUE(contains(r.err, "device 99"));
        EXPECT_TRUE(contains(r.err, count));
    }
}

TEST(CliDevices, ExplicitDeviceZeroWorksOnEitherSide) {
    TempDir dir;
    writeFile(dir.file("m.onnx"), smallConvModel().serialize());
    for (const auto& args : std::vector<std::vector<std::string>>{{"--device", "0", "run", dir.file("m.onnx"), "--random"},
                                                                 {"run", dir.file("m.onnx"), "--random", "--device", "0"}}) {
        CliResult r = runCli(args);
        EXPECT_EQ(r.exitCode, 0) << r.describe();
        EXPECT_TRUE(contains(r.out, "output  y: float32 1x4x4x4"));
    }
}

}  // namespace
}  // namespace vkinfer::testing
