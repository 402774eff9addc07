// vkinfer run and plan: outputs written to files, the plan as JSON, and the error paths.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <nlohmann/json.hpp>

#include "cli/cli_models.h"
#include "cli/cli_runner.h"
#include "support/gpu_context.h"

namespace vkinfer::testing {
namespace {

namespace fs = std::filesystem;

// A model folder with one data set, shared by the tests of this file.
class CliRun : public ::testing::Test {
protected:
    void SetUp() override {
        writeModelFolder(dir_.path() / "small", smallConvModel(), 1);
        model_ = (dir_.path() / "small" / "model.onnx").string();
        input_ = (dir_.path() / "small" / "test_data_set_0" / "input_0.pb").string();
        reference_ = (dir_.path() / "small" / "test_data_set_0" / "output_0.pb").string();
    }
    std::string file(const std::string& name) const { return dir_.file(name); }

    TempDir dir_;
    std::string model_, input_, reference_;
};

TEST_F(CliRun, WritesOutputsThatMatchTheReference) {
    const std::string out = file("out");
    CliResult r = runCli({"run", model_, "-i", "x=" + input_, "-o", out});
    ASSERT_EQ(r.exitCode, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, "input   x: float32 1x3x8x8"));
    EXPECT_TRUE(contains(r.out, "output  y: float32 1x4x4x4"));
    EXPECT_TRUE(contains(r.out, "wrote   " + out + "/y.npy"));
    auto y = loadNpy(out + "/y.npy");
    ASSERT_TRUE(y.ok()) << y.status().toString();
    auto ref = loadTensorProto(reference_);
    ASSERT_TRUE(ref.ok());
    Comparison c = compareTensors(*y, *ref);
    EXPECT_TRUE(c.pass) << "max error " << c.maxAbsError << " " << c.problem;
    // Same verdict as `check` on the folder.
    CliResult check = runCli({"check", (dir_.path() / "small").string()});
    EXPECT_EQ(check.exitCode, 0) << check.describe();
}

TEST_F(CliRun, Float16PrecisionIsNamedAndStaysCloseToTheReference) {
    CliResult r = runCli({"--precision", "fp16", "run", model_, "-i", input_, "-o", file("h")});
    ASSERT_EQ(r.exitCode, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, "sync minimal, fp16"));
    EXPECT_TRUE(contains(r.out, "output  y: float32 1x4x4x4"));  // outputs stay float32
    auto y = loadNpy(file("h/y.npy"));
    ASSERT_TRUE(y.ok()) << y.status().toString();
    // float16 storage: about 3 significant digits (docs/BENCHMARKS.md, "fp16 precision").
    Tolerance loose;
    loose.rtol = 1e-2;
    loose.atol = 1e-2;
    Comparison c = compareTensors(*y, *loadTensorProto(reference_), loose);
    EXPECT_TRUE(c.pass) << "max error " << c.maxAbsError << " " << c.problem;

    CliResult plan = runCli({"plan", model_, "--json", "--precision", "fp16"});
    ASSERT_EQ(plan.exitCode, 0) << plan.describe();
    auto j = nlohmann::json::parse(plan.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded());
    EXPECT_EQ(j["precision"], "fp16");

    CliResult bad = runCli({"--precision", "fp8", "run", model_, "-i", input_});
    EXPECT_NE(bad.exitCode, 0);
    EXPECT_TRUE(contains(bad.err, "fp8")) << bad.describe();
}

TEST_F(CliRun, NpyInputWithoutNameForASingleInputModel) {
    auto in = loadTensorProto(input_);
    ASSERT_TRUE(in.ok());
    ASSERT_TRUE(saveNpy(file("x.npy"), *in).ok());
    CliResult r = runCli({"run", model_, "-i", file("x.npy"), "-o", file("out")});
    ASSERT_EQ(r.exitCode, 0) << r.describe();
    auto y = loadNpy(file("out/y.npy"));
    ASSERT_TRUE(y.ok()) << y.status().toString();
    EXPECT_TRUE(compareTensors(*y, *loadTensorProto(reference_)).pass);
}

// An input with a default (IR 4+: also an initializer): info lists it as optional, run
// takes the default when it is left out (and says so), -i overrides it, a lone -i FILE feeds
// the input without a default.
TEST_F(CliRun, InputWithADefaultIsOptionalAndOverridable) {
    VKINFER_REQUIRE_GPU();
    OnnxBuilder b;
    b.input("x", {1, 4}).input("w", {4});
    b.initializer("w", floatTensor({4}, {1, 2, 3, 4}));
    b.node("Mul", {"x", "w"}, {"y"}, "scale");
    b.output("y");
    const std::string model = file("default.onnx");
    writeFile(model, b.serialize());
    ASSERT_TRUE(saveNpy(file("x.npy"), floatTensor({1, 4}, {10, 20, 30, 40})).ok());
    ASSERT_TRUE(saveNpy(file("w.npy"), floatTensor({4}, {-1, 0, 0.5f, 2})).ok());

    CliResult info = runCli({"info", model});
    ASSERT_EQ(info.exitCode, 0) << info.describe();
    EXPECT_TRUE(contains(info.out, "(optional: defaults to its initializer)")) << info.out;
    // Planned as left out: w is a weight (4 floats padded to the plan's alignment), not an input.
    EXPECT_TRUE(contains(info.out, "plan         x=1x4: 1 dispatch")) << info.out;
    EXPECT_FALSE(contains(info.out, "weights 0 bytes")) << info.out;
    CliResult named = runCli({"info", model, "--shape", "w=4"});
    EXPECT_TRUE(contains(named.out, "plan         x=1x4, w=4: 1 dispatch")) << named.out;
    EXPECT_TRUE(contains(named.out, "weights 0 bytes")) << named.out;
    CliResult json = runCli({"info", model, "--json"});
    ASSERT_EQ(json.exitCode, 0) << json.describe();
    nlohmann::json j = nlohmann::json::parse(json.out);
    EXPECT_FALSE(j["inputs"][0].contains("default"));
    EXPECT_EQ(j["inputs"][1]["default"], true);

    auto values = [](const Tensor& t) { return std::vector<float>(t.as<float>(), t.as<float>() + t.elementCount()); };
    CliResult left = runCli({"run", model, "-i", file("x.npy"), "-o", file("left")});
    ASSERT_EQ(left.exitCode, 0) << left.describe();
    EXPECT_TRUE(contains(left.err, "note: input 'w' takes the model's default")) << left.err;
    EXPECT_EQ(values(*loadNpy(file("left/y.npy"))), (std::vector<float>{10, 40, 90, 160}));

    CliResult given = runCli({"run", model, "-i", "x=" + file("x.npy"), "-i", "w=" + file("w.npy"), "-o", file("given")});
    ASSERT_EQ(given.exitCode, 0) << given.describe();
    EXPECT_FALSE(contains(given.err, "default")) << given.err;
    EXPECT_EQ(values(*loadNpy(file("given/y.npy"))), (std::vector<float>{-10, 0, 15, 80}));

    CliResult random = runCli({"run", model, "--random", "-o", file("random")});
    ASSERT_EQ(random.exitCode, 0) << random.describe();
    EXPECT_TRUE(contains(random.err, "note: input 'w' takes the model's default")) << random.err;
    auto y = loadNpy(file("random/y.npy"));
    ASSERT_TRUE(y.ok()) << y.status().toString();
    for (int i = 0; i < 4; ++i) {  // x uniform in [0, 1), times the default
        EXPECT_GE(y->as<float>()[i], 0.0f);
        EXPECT_LT(y->as<float>()[i], float(i + 1));
    }

    CliResult none = runCli({"run", model, "-o", file("none")});
    EXPECT_EQ(none.exitCode, 2) << none.describe();
    EXPECT_TRUE(contains(none.err, "the model takes x (float32 1x4):")) << none.err;
}

TEST_F(CliRun, SyncModesGiveBitIdenticalOutputs) {
    CliResult a = runCli({"--sync", "minimal", "run", model_, "-i", input_, "-o", file("a")});
    CliResult b = runCli({"run", model_, "-i", input_, "-o", file("b"), "--sync", "conservative"});
    ASSERT_EQ(a.exitCode, 0) << a.describe();
    ASSERT_EQ(b.exitCode, 0) << b.describe();
    EXPECT_TRUE(contains(a.out, "sync minimal"));
    EXPECT_TRUE(contains(b.out, "sync conservative"));
    std::string ya = readFile(file("a/y.npy")), yb = readFile(file("b/y.npy"));
    ASSERT_FALSE(ya.empty());
    EXPECT_EQ(ya, yb);
}

TEST_F(CliRun, ValidateFlagOnEitherSide) {
    for (const auto& args : std::vector<std::vector<std::string>>{{"--validate", "run", model_, "--random"},
                                                                 {"run", model_, "--random", "--validate"}}) {
        CliResult r = runCli(args, {"VKINFER_VALIDATE=0"});
        EXPECT_EQ(r.exitCode, 0) << r.describe();
        EXPECT_TRUE(contains(r.out, "validation on (no messages)"));
    }
    CliResult off = runCli({"run", model_, "--random"}, {"VKINFER_VALIDATE=0"});
    EXPECT_EQ(off.exitCode, 0) << off.describe();
    EXPECT_FALSE(contains(off.out, "validation on"));
}

// Runtime errors: exit 1, "vkinfer: error: <message>" on stderr.
void expectError(const CliResult& r, const std::vector<std::string>& mentions) {
    EXPECT_EQ(r.exitCode, 1) << r.describe();
    EXPECT_EQ(r.err.rfind("vkinfer: error: ", 0), 0u) << r.err;
    for (const auto& m : mentions) EXPECT_TRUE(contains(r.err, m));
}

TEST_F(CliRun, MissingModelFile) {
    const std::string missing = file("no_such_model.onnx");
    expectError(runCli({"run", missing, "--random"}), {missing, "not found"});
    expectError(runCli({"plan", missing}), {missing});
    expectError(runCli({"bench", missing}), {missing});
}

TEST_F(CliRun, TruncatedModel) {
    std::string bytes = readFile(model_);
    writeFile(file("cut.onnx"), bytes.substr(0, bytes.size() * 2 / 3));
    expectError(runCli({"run", file("cut.onnx"), "-i", input_}), {"parse error", file("cut.onnx")});
    expectError(runCli({"plan", file("cut.onnx")}), {"parse error"});
}

TEST_F(CliRun, UnsupportedModel) {
    writeFile(file("u.onnx"), unsupportedModel().serialize());
    expectError(runCli({"run", file("u.onnx"), "--random"}), {"unsupported", "FrobnicateOp", "'frob'", "opset 13"});
}

TEST_F(CliRun, WrongInputNameListsValidInputs) {
    // A usage error (exit 2), like a missing input.
    CliResult r = runCli({"run", model_, "-i", "image=" + input_});
    EXPECT_EQ(r.exitCode, 2) << r.describe();
    EXPECT_EQ(r.err.rfind("vkinfer: error: ", 0), 0u) << r.err;
    EXPECT_TRUE(contains(r.err, "'image'"));
    EXPECT_TRUE(contains(r.err, "'x'"));
}

TEST_F(CliRun, InputWithWrongShape) {
    ASSERT_TRUE(saveNpy(file("small.npy"), randomTensor({1, 3, 4, 4}, 3)).ok());
    expectError(runCli({"run", model_, "-i", "x=" + file("small.npy")}), {"'x'", "1x3x4x4", "1x3x8x8"});
}

TEST_F(CliRun, InputWithWrongType) {
    ASSERT_TRUE(saveNpy(file("ints.npy"), Tensor(DataType::Int64, {1, 3, 8, 8})).ok());
    CliResult r = runCli({"run", model_, "-i", "x=" + file("ints.npy")});
    EXPECT_EQ(r.exitCode, 1) << r.describe();
    EXPECT_TRUE(contains(r.err, "int64"));
}

TEST_F(CliRun, MissingOrBadInputFile) {
    const std::string missing = file("absent.npy");
    expectError(runCli({"run", model_, "-i", "x=" + missing}), {missing});
    writeFile(file("junk.npy"), "not numpy");
    expectError(runCli({"run", model_, "-i", "x=" + file("junk.npy")}), {file("junk.npy"), "parse error"});
    CliResult ext = runCli({"run", model_, "-i", "x=" + file("input.txt")});
    EXPECT_NE(ext.exitCode, 0) << ext.describe();
    EXPECT_TRUE(contains(ext.err, "input.txt"));
}

TEST_F(CliRun, DynamicModelNeedsAShape) {
    OnnxBuilder b;
    b.input("img", {1, 2, -1, -1});
    b.node("Relu", {"img"}, {"y"});
    b.output("y");
    writeFile(file("dyn.onnx"), b.serialize());
    expectError(runCli({"plan", file("dyn.onnx")}), {"'img'", "--shape"});
    CliResult ok = runCli({"plan", file("dyn.onnx"), "--shape", "img=1x2x5x7", "--json"});
    ASSERT_EQ(ok.exitCode, 0) << ok.describe();
    auto j = nlohmann::json::parse(ok.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << ok.out;
    EXPECT_EQ(j["inputs"]["img"], nlohmann::json({1, 2, 5, 7}));
    CliResult random = runCli({"run", file("dyn.onnx"), "--random", "--shape", "1x2x3x3"});
    EXPECT_EQ(random.exitCode, 0) << random.describe();
    EXPECT_TRUE(contains(random.out, "output  y: float32 1x2x3x3"));
}

TEST(CliPlan, SqueezenetJson) {
    std::string models = modelsDir();
    if (models.empty()) GTEST_SKIP() << "shared models not present";
    const std::string model = models + "/squeezenet1_1/model.onnx";
    CliResult r = runCli({"plan", model, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.describe();
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out.substr(0, 2000);
    for (const char* key : {"dispatches", "barriers", "barrier_lower_bound", "arena_bytes", "intermediate_bytes", "schedule"})
        ASSERT_TRUE(j.contains(key)) << key;
    const int64_t dispatches = j["dispatches"], barriers = j["barriers"], lower = j["barrier_lower_bound"];
    EXPECT_GT(dispatches, 10);
    EXPECT_LT(barriers, dispatches);  // the parallel expand branches share barriers
    EXPECT_LE(lower, barriers);
    EXPECT_GT(lower, 0);
    EXPECT_GT(j["arena_bytes"].get<int64_t>(), 0);
    EXPECT_LE(j["arena_bytes"].get<int64_t>(), j["intermediate_bytes"].get<int64_t>());
    ASSERT_TRUE(j["schedule"].is_array());
    EXPECT_EQ(static_cast<int64_t>(j["schedule"].size()), dispatches);
    EXPECT_EQ(j["sync"], "minimal");
    EXPECT_EQ(j["precision"], "fp32");

    // Conservative sync, given before or after the command: a barrier between every pair.
    CliResult c1 = runCli({"--sync", "conservative", "plan", model, "--json"});
    CliResult c2 = runCli({"plan", model, "--json", "--sync", "conservative"});
    ASSERT_EQ(c1.exitCode, 0) << c1.describe();
    ASSERT_EQ(c2.exitCode, 0) << c2.describe();
    EXPECT_EQ(c1.out, c2.out);
    auto jc = nlohmann::json::parse(c1.out, nullptr, false);
    ASSERT_FALSE(jc.is_discarded());
    EXPECT_EQ(jc["sync"], "conservative");
    EXPECT_EQ(jc["dispatches"], dispatches);
    EXPECT_GE(jc["barriers"].get<int64_t>(), dispatches - 1);
}

// Node names are bytes from the file, not necessarily UTF-8: JSON output replaces what is not
// valid UTF-8 (U+FFFD) instead of failing.
TEST(CliPlan, NamesThatAreNotUtf8StillGiveValidJson) {
    TempDir dir;
    OnnxBuilder b = smallConvModel();
    b.proto().mutable_graph()->mutable_node(0)->set_name("conv\xff\xfe");
    writeModelFolder(dir.path() / "m", b, 1);
    const std::string model = (dir.path() / "m" / "model.onnx").string();
    CliResult r = runCli({"plan", model, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.describe();
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out.substr(0, 500);
    EXPECT_EQ(j["schedule"][0]["nodes"][0], "conv\xef\xbf\xbd\xef\xbf\xbd");  // two U+FFFD
    CliResult check = runCli({"check", (dir.path() / "m").string(), "--isolate", "--report", dir.file("r.json")});
    EXPECT_EQ(check.exitCode, 0) << check.describe();
    EXPECT_FALSE(nlohmann::json::parse(readFile(dir.file("r.json")), nullptr, false).is_discarded());
}

TEST(CliPlan, TextPlanOfASmallModel) {
    TempDir dir;
    writeFile(dir.file("m.onnx"), smallConvModel().serialize());
    CliResult r = runCli({"plan", dir.file("m.onnx")});
    ASSERT_EQ(r.exitCode, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, "dispatches"));
    EXPECT_TRUE(contains(r.out, "barrier"));
    EXPECT_TRUE(contains(r.out, "sync minimal"));
}

TEST(CliBench, JsonReportsTimes) {
    TempDir dir;
    writeFile(dir.file("m.onnx"), smallConvModel().serialize());
    CliResult r = runCli({"bench", dir.file("m.onnx"), "--iters", "3", "--warmup", "1", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.describe();
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(j.is_discarded()) << r.out;
    EXPECT_EQ(j["iters"], 3);
    EXPECT_GT(j["wall_ms"]["median"].get<double>(), 0.0);
    EXPECT_LE(j["wall_ms"]["min"].get<double>(), j["wall_ms"]["median"].get<double>());
    CliResult bad = runCli({"bench", dir.file("m.onnx"), "--iters", "0"});
    EXPECT_EQ(bad.exitCode, 2) << bad.describe();
}

// --profile: one time per dispatch of the plan, named as the plan names it, totals per op
// that add up; under validation in both sync modes (the timestamps need no extra barriers).
TEST(CliBench, ProfileTimesEveryDispatchOfThePlan) {
    TempDir dir;
    writeFile(dir.file("m.onnx"), smallConvModel().serialize());
    CliResult plan = runCli({"plan", dir.file("m.onnx"), "--json"});
    ASSERT_EQ(plan.exitCode, 0) << plan.describe();
    auto schedule = nlohmann::json::parse(plan.out)["schedule"];
    for (const char* sync : {"minimal", "conservative"}) {
        CliResult r = runCli({"--sync", sync, "--validate", "bench", dir.file("m.onnx"), "--iters", "3", "--warmup", "1",
                              "--json", "--profile"});
        ASSERT_EQ(r.exitCode, 0) << r.describe();
        auto j = nlohmann::json::parse(r.out, nullptr, false);
        ASSERT_FALSE(j.is_discarded()) << r.out;
        const auto& p = j["profile"];
        ASSERT_EQ(p["dispatches"].size(), schedule.size()) << sync;
        double sum = 0;
        for (size_t i = 0; i < schedule.size(); ++i) {
            const auto& d = p["dispatches"][i];
            EXPECT_EQ(d["op"], schedule[i]["op"]);
            EXPECT_EQ(d["kernel"], schedule[i]["kernel"]);
            EXPECT_GE(d["ms"].get<double>(), 0.0);
            sum += d["ms"].get<double>();
        }
        EXPECT_NEAR(sum, p["total_ms"].get<double>(), 1e-9);
        int64_t counted = 0;
        double byOp = 0;
        for (const auto& t : p["by_op"]) {
            counted += t["dispatches"].get<int64_t>();
            byOp += t["ms"].get<double>();
        }
        EXPECT_EQ(counted, static_cast<int64_t>(schedule.size()));
        EXPECT_NEAR(byOp, sum, 1e-9);
        EXPECT_GT(sum, 0.0);
    }
    CliResult text = runCli({"bench", dir.file("m.onnx"), "--iters", "2", "--profile", "--top", "1"});
    ASSERT_EQ(text.exitCode, 0) << text.describe();
    EXPECT_TRUE(contains(text.out, "slowest 1 dispatches"));
}

// The kernels of a plan printed with --json, in schedule order.
std::vector<std::string> planKernelsOf(const CliResult& r) {
    std::vector<std::string> kernels;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    if (j.is_discarded() || !j.contains("schedule")) {
        ADD_FAILURE() << "not a plan: " << r.describe();
        return kernels;
    }
    for (const auto& d : j["schedule"]) kernels.push_back(d["kernel"]);
    return kernels;
}

bool hasKernel(const std::vector<std::string>& kernels, const std::string& name) {
    return std::find(kernels.begin(), kernels.end(), name) != kernels.end();
}

// plan takes the VKINFER_* kernel variables as run, check and bench do, and with --device
// plans for that device (the session's plan).
TEST(CliPlan, KernelVariablesAndADevice) {
    TempDir dir;
    OnnxBuilder b(13);
    b.input("x", {1, 4, 6, 8}).output("y");
    b.initializer("pads", int64Tensor({8}, {0, 0, 1, 1, 0, 0, 1, 1}));
    b.node("Pad", {"x", "pads"}, {"p"}, "pad");
    attr(b.node("DepthToSpace", {"p"}, {"y"}, "d2s"), "blocksize", int64_t{2});
    writeFile(dir.file("m.onnx"), b.serialize());
    const std::vector<std::string> args{"plan", dir.file("m.onnx"), "--precision", "fp16", "--json"};

    CliResult folded = runCli(args);
    ASSERT_EQ(folded.exitCode, 0) << folded.describe();
    EXPECT_EQ(planKernelsOf(folded), (std::vector<std::string>{"pad_f32_f16", "copy_strided_f16_f32"}));
    CliResult unfolded = runCli(args, {"VKINFER_FOLD_CASTS=off"});
    ASSERT_EQ(unfolded.exitCode, 0) << unfolded.describe();
    auto kernels = planKernelsOf(unfolded);
    EXPECT_TRUE(hasKernel(kernels, "cast_f32_f16") && hasKernel(kernels, "cast_f16_f32"))
        << ::testing::PrintToString(kernels);
    CliResult bad = runCli(args, {"VKINFER_FOLD_CASTS=maybe"});
    EXPECT_EQ(bad.exitCode, 1) << bad.describe();
    EXPECT_TRUE(contains(bad.err, "VKINFER_FOLD_CASTS must be on or off (got 'maybe')")) << bad.describe();

    if (!gpuAvailable()) GTEST_SKIP() << "no Vulkan device for plan --device";
    std::vector<std::string> onDevice{"--device", "0"};
    onDevice.insert(onDevice.end(), args.begin(), args.end());
    CliResult device = runCli(onDevice);
    ASSERT_EQ(device.exitCode, 0) << device.describe();
    kernels = planKernelsOf(device);
    EXPECT_EQ(kernels.size(), 2u) << ::testing::PrintToString(kernels);
    CliResult deviceUnfolded = runCli(onDevice, {"VKINFER_FOLD_CASTS=off"});
    ASSERT_EQ(deviceUnfolded.exitCode, 0) << deviceUnfolded.describe();
    EXPECT_EQ(planKernelsOf(deviceUnfolded).size(), 4u) << deviceUnfolded.out.substr(0, 2000);
    CliResult text = runCli({"--device", "0", "plan", dir.file("m.onnx")});
    ASSERT_EQ(text.exitCode, 0) << text.describe();
    EXPECT_TRUE(contains(text.out, "dispatches")) << text.describe();
}

}  // namespace
}  // namespace vkinfer::testing
