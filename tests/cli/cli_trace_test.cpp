// vkinfer bench --trace: a Chrome trace of one run with one slice per dispatch; and the
// progress of long commands, on stderr, with stdout left to the results.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_models.h"
#include "cli/cli_runner.h"

namespace vkinfer::testing {
namespace {

const std::string kEspcn = std::string(VKINFER_SOURCE_DIR) + "/data/espcn_x2/model.onnx";

void expectTraceMatchesPlan(const nlohmann::json& trace, const nlohmann::json& plan) {
    size_t slices = 0, barriers = 0, processNames = 0;
    std::vector<double> ends;
    for (const auto& e : trace["traceEvents"]) {
        const std::string ph = e["ph"];
        if (ph == "X" && e["cat"] == "dispatch") {
            const size_t index = e["args"]["index"];
            ASSERT_LT(index, plan["schedule"].size());
            const auto& entry = plan["schedule"][index];
            EXPECT_EQ(e["args"]["op"], entry["op"]);
            EXPECT_EQ(e["args"]["nodes"], entry["nodes"]);
            // Named by its ONNX nodes.
            for (const auto& node : entry["nodes"])
                EXPECT_TRUE(contains(e["name"].get<std::string>(), node.get<std::string>()));
            EXPECT_GE(e["ts"].get<double>(), 0.0);
            EXPECT_GE(e["dur"].get<double>(), 0.0);
            EXPECT_GE(e["tid"].get<int>(), 1);
            ++slices;
        } else if (ph == "i" && e["cat"] == "barrier") {
            EXPECT_FALSE(plan["schedule"][e["args"]["before_dispatch"].get<size_t>()]["barrier"].is_null());
            ++barriers;
        } else if (ph == "M" && e["name"] == "process_name") {
            ++processNames;
        }
    }
    size_t planned = 0;
    for (const auto& entry : plan["schedule"]) planned += entry["barrier"].is_null() ? 0 : 1;
    EXPECT_EQ(slices, plan["dispatches"].get<size_t>());  // one slice per dispatch
    EXPECT_EQ(barriers, planned);
    EXPECT_EQ(processNames, 1u);
}

TEST(CliTrace, OneSlicePerDispatchAndABarrierInstantPerBarrier) {
    TempDir dir;
    const std::string shape = "input=1x3x12x16";
    CliResult plan = runCli({"plan", kEspcn, "--shape", shape, "--json"});
    ASSERT_EQ(plan.exitCode, 0) << plan.describe();
    for (const std::string sync : {"minimal", "conservative"}) {
        SCOPED_TRACE(sync);
        CliResult planned = runCli({"--sync", sync, "plan", kEspcn, "--shape", shape, "--json"});
        ASSERT_EQ(planned.exitCode, 0);
        const std::string path = dir.file("trace_" + sync + ".json");
        CliResult r = runCli({"--sync", sync, "bench", kEspcn, "--shape", shape, "--iters", "1", "--warmup", "0",
                              "--trace", path});
        ASSERT_EQ(r.exitCode, 0) << r.describe();
        EXPECT_EQ(r.out.rfind(kEspcn + " on ", 0), 0u) << r.out;  // the header comes first
        EXPECT_TRUE(contains(r.out, "written to " + path));
        nlohmann::json trace = nlohmann::json::parse(readFile(path));  // valid JSON, or this throws
        expectTraceMatchesPlan(trace, nlohmann::json::parse(planned.out));
    }
    // With --json, stdout is one JSON document that names the trace.
    CliResult j = runCli({"bench", kEspcn, "--shape", shape, "--iters", "1", "--json", "--trace", dir.file("t.json")});
    ASSERT_EQ(j.exitCode, 0) << j.describe();
    EXPECT_EQ(nlohmann::json::parse(j.out)["trace"], dir.file("t.json"));
    expectTraceMatchesPlan(nlohmann::json::parse(readFile(dir.file("t.json"))), nlohmann::json::parse(plan.out));
}

TEST(CliTrace, TraceFileThatCannotBeWrittenFailsFirst) {
    TempDir dir;
    CliResult folder = runCli({"bench", kEspcn, "--shape", "input=1x3x8x8", "--trace", dir.path().string()});
    EXPECT_EQ(folder.exitCode, 2) << folder.describe();
    EXPECT_TRUE(contains(folder.err, "--trace"));
    CliResult missing = runCli({"bench", kEspcn, "--shape", "input=1x3x8x8", "--trace", dir.file("no/t.json")});
    EXPECT_EQ(missing.exitCode, 1) << missing.describe();
    EXPECT_TRUE(contains(missing.err, dir.file("no/t.json")));
    EXPECT_TRUE(missing.out.empty());  // before the benchmark
}

TEST(CliProgress, CheckSaysWhichModelAndDataSetRuns) {
    TempDir dir;
    writeModelFolder(dir.path() / "small", smallConvModel(), 2);
    for (const bool isolate : {false, true}) {
        SCOPED_TRACE(isolate);
        std::vector<std::string> args{"check", (dir.path() / "small").string()};
        if (isolate) args.push_back("--isolate");
        CliResult r = runCli(args);
        ASSERT_EQ(r.exitCode, 0) << r.describe();
        // Not a terminal: plain lines on stderr; the results alone on stdout.
        EXPECT_TRUE(contains(r.err, "check [1/1] small/test_data_set_0\n"));
        EXPECT_TRUE(contains(r.err, "check [1/1] small/test_data_set_1\n"));
        EXPECT_FALSE(contains(r.out, "check ["));
        EXPECT_EQ(r.lastOutLine(), "2 passed, 0 failed, 0 unsupported");
    }
}

}  // namespace
}  // namespace vkinfer::testing
