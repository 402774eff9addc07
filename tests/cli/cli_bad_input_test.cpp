// vkinfer on bad input: every case ends in "vkinfer: error: <message naming the thing>" and
// exit 1 (failure) or 2 (usage error), never a signal or an abort (exit >= 128).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_models.h"
#include "cli/cli_runner.h"

namespace vkinfer::testing {
namespace {

namespace fs = std::filesystem;

std::string commandLine(const std::vector<std::string>& args) {
    std::string s = "vkinfer";
    for (const auto& a : args) s += " " + a;
    return s;
}

// Exit `code`, the error prefix on stderr, each mention in the message.
void expectCleanError(const std::vector<std::string>& args, int code, const std::vector<std::string>& mentions) {
    SCOPED_TRACE(commandLine(args));
    CliResult r = runCli(args);
    EXPECT_LT(r.exitCode, 128) << r.describe();
    EXPECT_EQ(r.exitCode, code) << r.describe();
    EXPECT_TRUE(contains(r.err, "vkinfer: error: ")) << r.describe();
    for (const auto& m : mentions) EXPECT_TRUE(contains(r.err, m)) << r.describe();
}

// x[1,3,H,W] (H, W dynamic) -> Relu -> y
OnnxBuilder dynamicReluModel() {
    OnnxBuilder b;
    b.input("x", {1, 3, -1, -1});
    b.node("Relu", {"x"}, {"y"});
    b.output("y");
    return b;
}

// y = a - b (order matters, so a swap shows), both [2, 3].
OnnxBuilder twoInputModel() {
    OnnxBuilder b;
    b.input("a", {2, 3});
    b.input("b", {2, 3});
    b.node("Sub", {"a", "b"}, {"y"});
    b.output("y");
    return b;
}

Tensor filled(float v) {
    Tensor t(DataType::Float32, {2, 3});
    for (int i = 0; i < 6; ++i) t.as<float>()[i] = v + static_cast<float>(i);
    return t;
}

// A .npy file with this header dict and payload (format 1.0, header padded as NumPy does).
std::string npyBytes(const std::string& dict, const std::string& payload) {
    std::string header = dict;
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string out = std::string("\x93NUMPY\x01\x00", 8);
    out += static_cast<char>(header.size() & 0xff);
    out += static_cast<char>(header.size() >> 8);
    return out + header + payload;
}

class CliBadInput : public ::testing::Test {
protected:
    void SetUp() override {
        writeModelFolder(dir_.path() / "small", smallConvModel(), 1);
        model_ = (dir_.path() / "small" / "model.onnx").string();
        input_ = (dir_.path() / "small" / "test_data_set_0" / "input_0.pb").string();
        writeFile(file("dyn.onnx"), dynamicReluModel().serialize());
        writeFile(file("two.onnx"), twoInputModel().serialize());
        ASSERT_TRUE(saveTensorProto(file("a.pb"), filled(10), "a").ok());
        ASSERT_TRUE(saveTensorProto(file("b.pb"), filled(1), "b").ok());
    }
    std::string file(const std::string& name) const { return dir_.file(name); }

    TempDir dir_;
    std::string model_, input_;
};

// --- the cases ---------------------------------------------------------------------

TEST_F(CliBadInput, HugeRandomInputNamesTheTensorAndItsBytes) {
    // 1x3x100000x100000 float32: 1.2e11 bytes, more than the machines running this have.
    const std::string espcn = std::string(VKINFER_SOURCE_DIR) + "/data/espcn_x2/model.onnx";
    for (const auto& [model, name] : std::vector<std::pair<std::string, std::string>>{{espcn, "input"},
                                                                                      {file("dyn.onnx"), "x"}})
        expectCleanError({"run", model, "--random", "--shape", name + "=1x3x100000x100000"}, 1,
                         {"input '" + name + "'", "120000000000 bytes", "host memory"});
    // A byte size past 63 bits is refused as a usage error before anything is allocated.
    expectCleanError({"run", file("dyn.onnx"), "--random", "--shape", "x=1x3x4611686018427387904x4"}, 2,
                     {"--shape", "x=1x3x4611686018427387904x4", "2^63"});
    expectCleanError({"plan", file("dyn.onnx"), "--shape", "x=1x3x9223372036854775807x2"}, 2, {"--shape", "2^63"});
}

TEST_F(CliBadInput, NumericOptionsAreValidated) {
    const std::string m = model_, d = (dir_.path() / "small").string();
    struct Case {
        std::vector<std::string> args;
        std::string option;
    };
    const std::vector<Case> cases = {
        {{"bench", m, "--profile", "--top", "-1"}, "--top"},
        {{"bench", m, "--profile", "--top", "many"}, "--top"},
        {{"bench", m, "--iters", "0"}, "--iters"},
        {{"bench", m, "--iters", "-5"}, "--iters"},
        {{"bench", m, "--iters", "99999999999"}, "--iters"},
        {{"bench", m, "--iters", "1e3"}, "--iters"},
        {{"bench", m, "--iters", "ten"}, "--iters"},
        {{"bench", m, "--warmup", "-1"}, "--warmup"},
        {{"bench", m, "--warmup", "99999999999"}, "--warmup"},
        {{"check", d, "--rtol", "-1"}, "--rtol"},
        {{"check", d, "--rtol", "nan"}, "--rtol"},
        {{"check", d, "--rtol", "inf"}, "--rtol"},
        {{"check", d, "--rtol", "abc"}, "--rtol"},
        {{"check", d, "--atol", "-1e-3"}, "--atol"},
        {{"check", d, "--atol", "NaN"}, "--atol"},
        {{"check", d, "--isolate", "--timeout", "0"}, "--timeout"},
        {{"check", d, "--isolate", "--timeout", "-3"}, "--timeout"},
        {{"check", d, "--isolate", "--timeout", "inf"}, "--timeout"},
        {{"check", d, "--isolate", "--timeout", "soon"}, "--timeout"},
        {{"plan", m, "--alignment", "48"}, "--alignment"},
        {{"plan", m, "--alignment", "0"}, "--alignment"},
        {{"plan", m, "--alignment", "8"}, "--alignment"},
        {{"plan", m, "--alignment", "131072"}, "--alignment"},
        {{"plan", m, "--alignment", "-64"}, "--alignment"},
        {{"--device", "-1", "devices"}, "--device"},
        {{"run", m, "--random", "--device", "-2"}, "--device"},
        {{"--device", "99999999999", "devices"}, "--device"},
        {{"--device", "1.5", "devices"}, "--device"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(commandLine(c.args));
        CliResult r = runCli(c.args);
        EXPECT_EQ(r.exitCode, 2) << r.describe();
        EXPECT_TRUE(contains(r.err, "vkinfer: error: " + c.option)) << r.describe();
        EXPECT_EQ(r.out, "");
    }
    // Options that only mean something with another one say so instead of being ignored.
    expectCleanError({"bench", m, "--top", "3"}, 2, {"--top", "--profile"});
    expectCleanError({"check", d, "--timeout", "5"}, 2, {"--timeout", "--isolate"});
    expectCleanError({"check", d, "--scope", file("scope.txt")}, 2, {"--scope", "--markdown"});
    // info opens no device: an index there was accepted and ignored (run fails on it).
    expectCleanError({"--device", "0", "info", m}, 2, {"--device", "info opens no device"});
    // plan with a device plans for it: the tensor alignment is then the session's.
    expectCleanError({"--device", "0", "plan", m, "--alignment", "128"}, 2, {"--alignment", "--device"});
}

TEST_F(CliBadInput, NumericOptionsAtTheirBoundsWork) {
    CliResult r = runCli({"bench", model_, "--iters", "1", "--warmup", "0", "--profile", "--top", "0"});
    EXPECT_EQ(r.exitCode, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, "slowest 0 dispatches"));
    CliResult p = runCli({"plan", model_, "--alignment", "16", "--json"});
    EXPECT_EQ(p.exitCode, 0) << p.describe();
    CliResult c = runCli({"check", (dir_.path() / "small").string(), "--rtol", "0", "--atol", "1e-3"});
    EXPECT_EQ(c.exitCode, 0) << c.describe();
}

TEST_F(CliBadInput, PbInputsAreMatchedByTheirOwnNames) {
    // FILE alone, for a model with two inputs: each .pb feeds the input it names, in any order.
    CliResult byName = runCli({"run", file("two.onnx"), "-i", file("b.pb"), "-i", file("a.pb"), "-o", file("o1")});
    ASSERT_EQ(byName.exitCode, 0) << byName.describe();
    EXPECT_FALSE(contains(byName.err, "warning"));
    auto y = loadNpy(file("o1/y.npy"));
    ASSERT_TRUE(y.ok()) << y.status().toString();
    EXPECT_EQ(y->as<float>()[0], 9.0f);  // a - b = 10 - 1

    // NAME=FILE wins over the file's own name, with a warning naming both.
    CliResult swapped = runCli({"run", file("two.onnx"), "-i", "a=" + file("b.pb"), "-i", "b=" + file("a.pb"), "-o",
                                file("o2")});
    ASSERT_EQ(swapped.exitCode, 0) << swapped.describe();
    EXPECT_TRUE(contains(swapped.err, "vkinfer: warning: -i 'a=" + file("b.pb") + "'")) << swapped.err;
    EXPECT_TRUE(contains(swapped.err, "named 'b'")) << swapped.err;
    EXPECT_TRUE(contains(swapped.err, "vkinfer: warning: -i 'b=" + file("a.pb") + "'")) << swapped.err;
    auto z = loadNpy(file("o2/y.npy"));
    ASSERT_TRUE(z.ok()) << z.status().toString();
    EXPECT_EQ(z->as<float>()[0], -9.0f);

    // A .pb with no name, or with a name that is no input, cannot be placed.
    ASSERT_TRUE(saveTensorProto(file("anon.pb"), filled(0), "").ok());
    ASSERT_TRUE(saveTensorProto(file("c.pb"), filled(0), "c").ok());
    ASSERT_TRUE(saveNpy(file("a.npy"), filled(0)).ok());
    expectCleanError({"run", file("two.onnx"), "-i", file("anon.pb"), "-i", file("b.pb")}, 2,
                     {file("anon.pb"), "names no tensor", "'a', 'b'"});
    expectCleanError({"run", file("two.onnx"), "-i", file("c.pb"), "-i", file("b.pb")}, 2,
                     {file("c.pb"), "'c'", "not an input"});
    expectCleanError({"run", file("two.onnx"), "-i", file("a.npy"), "-i", file("b.pb")}, 2,
                     {file("a.npy"), ".npy files have no names"});

    // A single-input model takes any file, with a warning when its name differs.
    ASSERT_TRUE(saveTensorProto(file("img.pb"), Tensor(DataType::Float32, {1, 3, 8, 8}), "image").ok());
    CliResult single = runCli({"run", model_, "-i", file("img.pb")});
    EXPECT_EQ(single.exitCode, 0) << single.describe();
    EXPECT_TRUE(contains(single.err, "vkinfer: warning: ")) << single.err;
    EXPECT_TRUE(contains(single.err, "'image'")) << single.err;
}

TEST_F(CliBadInput, MissingUnknownAndRepeatedInputsAreUsageErrors) {
    expectCleanError({"run", file("two.onnx"), "-i", "a=" + file("a.pb")}, 2, {"input:", "b float32 2x3", "-i NAME=FILE"});
    expectCleanError({"run", file("two.onnx"), "-i", "a=" + file("a.pb"), "-i", "c=" + file("b.pb")}, 2,
                     {"no input 'c'", "'a', 'b'"});
    expectCleanError({"run", file("two.onnx"), "-i", "a=" + file("a.pb"), "-i", "a=" + file("b.pb"), "-i",
                      "b=" + file("b.pb")},
                     2, {"input 'a' is given twice"});
    expectCleanError({"run", file("two.onnx"), "-i", file("a.pb"), "-i", "a=" + file("a.pb"), "-i", file("b.pb")}, 2,
                     {"input 'a' is given twice"});
    expectCleanError({"run", model_, "-i", "=" + input_}, 2, {"no input name"});
    expectCleanError({"run", model_, "-i", "x="}, 2, {"no file"});
    expectCleanError({"run", model_, "--random", "-i", input_}, 2, {"--random", "-i"});
    expectCleanError({"run", model_, "-i", input_, "--shape", "x=1x3x8x8"}, 2, {"--shape", "--random"});
    expectCleanError({"bench", model_, "-i", input_, "--shape", "x=1x3x8x8"}, 2, {"--shape"});
    // Names are checked before any file is read: the missing file is not what is reported.
    expectCleanError({"run", model_, "-i", "image=" + file("absent.npy")}, 2, {"'image'", "'x'"});
}

TEST_F(CliBadInput, OutputFolderIsCheckedBeforeTheModelIsLoaded) {
    writeFile(file("plain"), "a file");
    // The model does not exist: the -o problem must be the one reported.
    const std::string absent = file("absent.onnx");
    expectCleanError({"run", absent, "--random", "-o", file("plain")}, 2, {"-o", file("plain"), "not a folder"});
    expectCleanError({"run", absent, "--random", "-o", file("plain/sub")}, 1, {"-o", file("plain/sub")});
    CliResult r = runCli({"run", model_, "--random", "-o", file("plain")});
    EXPECT_EQ(r.out, "") << "nothing must run before -o is checked";
    // A new folder, nested, is created.
    CliResult ok = runCli({"run", model_, "--random", "-o", file("new/nested")});
    EXPECT_EQ(ok.exitCode, 0) << ok.describe();
    EXPECT_TRUE(fs::exists(file("new/nested/y.npy")));
}

TEST_F(CliBadInput, CheckReportHasNullForWhatWasNotMeasured) {
    fs::path suite = dir_.path() / "suite";
    writeModelFolder(suite / "good", smallConvModel(), 1);
    writeFile((suite / "broken" / "model.onnx").string(), "this is not a protobuf");
    fs::create_directories(suite / "broken" / "test_data_set_0");
    writeModelFolder(suite / "wrongshape", smallConvModel(), 1);
    ASSERT_TRUE(
        saveTensorProto((suite / "wrongshape" / "test_data_set_0" / "output_0.pb").string(), filled(0), "y").ok());
    for (bool isolate : {false, true}) {
        SCOPED_TRACE(isolate ? "isolated" : "in process");
        const std::string report = file(isolate ? "iso.json" : "inproc.json");
        std::vector<std::string> args{"check", suite.string(), "--report", report};
        if (isolate) args.push_back("--isolate");
        CliResult r = runCli(args);
        EXPECT_EQ(r.exitCode, 1) << r.describe();
        auto j = nlohmann::json::parse(readFile(report), nullptr, false);
        ASSERT_TRUE(j.is_array()) << readFile(report);
        ASSERT_EQ(j.size(), 3u) << j.dump(1);
        std::map<std::string, nlohmann::json> byModel;
        for (const auto& e : j) byModel[e["model"].get<std::string>()] = e;
        const auto& broken = byModel["suite/broken"];
        EXPECT_EQ(broken["result"], "fail") << broken.dump();
        EXPECT_TRUE(broken["max_error"].is_null()) << broken.dump();
        EXPECT_TRUE(broken["max_ref"].is_null()) << broken.dump();
        EXPECT_TRUE(broken["ops"].is_null()) << broken.dump();
        const auto& wrong = byModel["suite/wrongshape"];
        EXPECT_EQ(wrong["result"], "fail") << wrong.dump();
        EXPECT_TRUE(wrong["max_error"].is_null()) << wrong.dump();  // shapes differ: nothing compared
        EXPECT_EQ(wrong["ops"], nlohmann::json({"Conv", "Relu", "MaxPool"})) << wrong.dump();
        const auto& good = byModel["suite/good"];
        EXPECT_EQ(good["result"], "pass") << good.dump();
        EXPECT_TRUE(good["max_error"].is_number()) << good.dump();
        EXPECT_GT(good["max_ref"].get<double>(), 0.0) << good.dump();
        // The text output prints no made-up "max error 0" for them either.
        for (const auto& l : r.outLines()) {
            if (l.find("suite/broken") != std::string::npos || l.find("suite/wrongshape") != std::string::npos) {
                EXPECT_FALSE(contains(l, "max error")) << l;
            }
        }
    }
    // Report files are checked before the run.
    expectCleanError({"check", suite.string(), "--report", dir_.path().string()}, 2, {"--report", "folder"});
    expectCleanError({"check", suite.string(), "--markdown", file("nope/r.md")}, 1, {"--markdown", file("nope/r.md")});
}

TEST_F(CliBadInput, BadModelPaths) {
    writeFile(file("empty.onnx"), "");
    writeFile(file("garbage.onnx"), std::string(300, '\xff'));
    for (const char* cmd : {"run", "plan", "bench"}) {
        SCOPED_TRACE(cmd);
        std::vector<std::string> extra = std::string(cmd) == "run" ? std::vector<std::string>{"--random"}
                                                                    : std::vector<std::string>{};
        auto with = [&](const std::string& m) {
            std::vector<std::string> a{cmd, m};
            a.insert(a.end(), extra.begin(), extra.end());
            return a;
        };
        expectCleanError(with(file("nope.onnx")), 1, {file("nope.onnx")});
        expectCleanError(with(file("empty.onnx")), 1, {file("empty.onnx")});
        expectCleanError(with(file("garbage.onnx")), 1, {file("garbage.onnx")});
        expectCleanError(with(dir_.path().string()), 1, {dir_.path().string(), "folder"});
    }
    // A second model path is not taken silently.
    expectCleanError({"run", model_, model_, "--random"}, 2, {model_});
    expectCleanError({"plan", model_, file("two.onnx")}, 2, {file("two.onnx")});
}

TEST_F(CliBadInput, BadInputFiles) {
    const std::string x = "x=";
    writeFile(file("empty.npy"), "");
    writeFile(file("empty.pb"), "");
    writeFile(file("cut.pb"), readFile(input_).substr(0, readFile(input_).size() / 2));
    ASSERT_TRUE(saveNpy(file("full.npy"), Tensor(DataType::Float32, {1, 3, 8, 8})).ok());
    writeFile(file("cut.npy"), readFile(file("full.npy")).substr(0, 200));
    ASSERT_TRUE(saveNpy(file("rank2.npy"), Tensor(DataType::Float32, {24, 8})).ok());
    ASSERT_TRUE(saveNpy(file("wide.npy"), Tensor(DataType::Float32, {1, 3, 8, 9})).ok());
    ASSERT_TRUE(saveNpy(file("f64.npy"), Tensor(DataType::Float64, {1, 3, 8, 8})).ok());
    const std::string payload(192 * 4, '\0');
    writeFile(file("fortran.npy"), npyBytes("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 3, 8, 8), }", payload));
    writeFile(file("big.npy"), npyBytes("{'descr': '>f4', 'fortran_order': False, 'shape': (1, 3, 8, 8), }", payload));
    writeFile(file("object.npy"), npyBytes("{'descr': '|O', 'fortran_order': False, 'shape': (1, 3, 8, 8), }", payload));
    writeFile(file("complex.npy"), npyBytes("{'descr': '<c8', 'fortran_order': False, 'shape': (1, 3, 8, 8), }", payload));
    writeFile(file("noshape.npy"), npyBytes("{'descr': '<f4', 'fortran_order': False, }", payload));
    writeFile(file("negative.npy"), npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 3), }", payload));
    writeFile(file("huge.npy"),
              npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (100000, 100000, 100000), }", payload));
    std::string v9 = readFile(file("full.npy"));
    v9[6] = 9;
    writeFile(file("v9.npy"), v9);
    fs::create_directories(file("folder.npy"));

    struct Case {
        std::string file;
        std::vector<std::string> mentions;
    };
    const std::vector<Case> cases = {
        {"absent.npy", {}},
        {"empty.npy", {}},
        {"empty.pb", {}},
        {"cut.pb", {}},
        {"cut.npy", {"truncated"}},
        {"rank2.npy", {"'x'", "rank"}},
        {"wide.npy", {"'x'", "1x3x8x9"}},
        {"f64.npy", {"'x'", "float64"}},
        {"fortran.npy", {"Fortran"}},
        {"big.npy", {"big-endian"}},
        {"object.npy", {"|O"}},
        {"complex.npy", {"<c8"}},
        {"noshape.npy", {"shape"}},
        {"negative.npy", {"shape"}},
        {"huge.npy", {}},
        {"v9.npy", {"version 9"}},
        {"folder.npy", {"folder"}},
        {"input.txt", {"unknown tensor file type"}},
    };
    for (const auto& c : cases) {
        std::vector<std::string> mentions = c.mentions;
        mentions.push_back(c.file);  // (each message names the file, or the input for a shape or type)
        if (c.file == "rank2.npy" || c.file == "wide.npy" || c.file == "f64.npy") mentions.pop_back();
        expectCleanError({"run", model_, "-i", x + file(c.file)}, 1, mentions);
    }
}

TEST_F(CliBadInput, BadShapes) {
    const std::string d = file("dyn.onnx");
    for (const auto& [spec, mention] : std::vector<std::pair<std::string, std::string>>{
             {"x=1x3x-4x4", "'-4'"},
             {"x=1x3xfourx4", "'four'"},
             {"x=1x3x4.5x4", "'4.5'"},
             {"x=1x3x x4", "' '"},
             {"x=1x3x4x", "empty dimension"},
             {"x=1x3xx4", "empty dimension"},
             {"x=", "no dimensions"},
             {"x=1x3x99999999999999999999x4", "too large"},
             {"y=1x3x4x4", "no input 'y'"},
             {"=1x3x4x4", "no input name"},
         }) {
        expectCleanError({"run", d, "--random", "--shape", spec}, 2, {"--shape", mention});
        expectCleanError({"plan", d, "--shape", spec}, 2, {"--shape", mention});
    }
    expectCleanError({"plan", d, "--shape", "x=1x3x4x4", "--shape", "x=1x3x5x5"}, 2, {"input 'x' has two shapes"});
    expectCleanError({"plan", d, "--shape", "x=1x3x4"}, 1, {"'x'", "rank"});
    expectCleanError({"plan", d, "--shape", "x=2x3x4x4"}, 1, {"'x'"});
    // Shapes the kernels cannot index are refused by the planner, not by a crash.
    expectCleanError({"plan", d, "--shape", "x=1x3x100000x100000"}, 1, {"32-bit"});
    // An empty batch runs (nothing to compute) instead of dividing by zero.
    CliResult empty = runCli({"run", d, "--random", "--shape", "x=1x3x0x4"});
    EXPECT_EQ(empty.exitCode, 0) << empty.describe();
    EXPECT_TRUE(contains(empty.out, "output  y: float32 1x3x0x4 (empty)")) << empty.out;
}

TEST_F(CliBadInput, EmptyPathsAndListsThatAreFolders) {
    const std::string d = (dir_.path() / "small").string();
    expectCleanError({"run", model_, "--random", "-o", ""}, 2, {"--output-dir", "empty"});
    expectCleanError({"run", ""}, 2, {"model", "empty"});
    expectCleanError({"check", d, "--report", ""}, 2, {"--report", "empty"});
    expectCleanError({"check", d, "--expect", dir_.path().string()}, 2, {dir_.path().string(), "folder"});
    expectCleanError({"check", d, "--markdown", file("r.md"), "--scope", dir_.path().string()}, 2,
                     {dir_.path().string(), "folder"});
}

TEST_F(CliBadInput, ModelWithoutInputsRunsWithoutAny) {
    OnnxBuilder b;
    b.initializer("c", floatTensor({2}, {-1.0f, 2.0f}));
    b.node("Relu", {"c"}, {"y"});
    b.output("y");
    writeFile(file("noin.onnx"), b.serialize());
    CliResult r = runCli({"run", file("noin.onnx")});
    EXPECT_EQ(r.exitCode, 0) << r.describe();
    EXPECT_TRUE(contains(r.out, "output  y: float32 2")) << r.out;
    expectCleanError({"run", file("noin.onnx"), "-i", "x=" + file("a.pb")}, 2, {"no input 'x'", "none"});
}

// Indices out of range in an input file: the GPU's index check fails the run (exit 1),
// naming the node, the index and the extent, and no output is written.
TEST_F(CliBadInput, OutOfRangeIndicesFailTheRunAndWriteNothing) {
    OnnxBuilder b;
    b.input("x", {3, 2}).input("ids", {3}, DataType::Int64);
    b.node("Gather", {"x", "ids"}, {"y"}, "lookup");
    b.output("y");
    writeFile(file("gather.onnx"), b.serialize());
    ASSERT_TRUE(saveNpy(file("x.npy"), floatTensor({3, 2}, {1, 2, 3, 4, 5, 6})).ok());
    ASSERT_TRUE(saveNpy(file("bad.npy"), int64Tensor({3}, {0, 3, 1})).ok());
    expectCleanError({"run", file("gather.onnx"), "-i", "x=" + file("x.npy"), "-i", "ids=" + file("bad.npy"), "-o",
                      file("out")},
                     1, {"node 'lookup' (Gather)", "index 3 in 'ids'", "extent 3"});
    EXPECT_FALSE(fs::exists(file("out/y.npy")));
    ASSERT_TRUE(saveNpy(file("good.npy"), int64Tensor({3}, {0, -3, 2})).ok());
    CliResult r = runCli({"run", file("gather.onnx"), "-i", "x=" + file("x.npy"), "-i", "ids=" + file("good.npy"), "-o",
                          file("out")});
    EXPECT_EQ(r.exitCode, 0) << r.describe();
    auto y = loadNpy(file("out/y.npy"));
    ASSERT_TRUE(y.ok()) << y.status().toString();
    EXPECT_EQ(std::vector<float>(y->as<float>(), y->as<float>() + 6), (std::vector<float>{1, 2, 1, 2, 5, 6}));
}

TEST_F(CliBadInput, CheckOnNothing) {
    TempDir empty;
    expectCleanError({"check", empty.path().string()}, 2, {"no model.onnx", empty.path().string()});
    expectCleanError({"check", file("nope")}, 2, {file("nope"), "not a folder"});
    expectCleanError({"check", model_}, 2, {model_, "not a folder"});
    expectCleanError({"check", (dir_.path() / "small").string(), "--filter", "zzz"}, 2, {"no model.onnx"});
    expectCleanError({"check", (dir_.path() / "small").string(), "--expect", file("nope.txt")}, 1, {file("nope.txt")});
}

}  // namespace
}  // namespace vkinfer::testing
