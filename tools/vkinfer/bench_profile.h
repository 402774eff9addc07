// vkinfer bench: sample statistics, and --profile: GPU time per dispatch, joined with the
// plan's names, and totals per operator.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "common.h"

namespace vkinfer::cli {

// Summary of timed samples (not empty): median, min, p90 (nearest rank) and mean.
struct Stats {
    double median, min, p90, mean;
};
Stats statsOf(std::vector<double> v);

struct DispatchTime {
    int index = 0;
    int wave = 0;
    std::string op, kernel, node;  // node: the first ONNX node the dispatch covers
    double ms = 0;                 // median over the profiled runs
};

struct Profile {
    int runs = 0;
    double totalMs = 0;  // sum of the per-dispatch medians
    std::vector<DispatchTime> dispatches;  // recording order
};

// Runs `runs` profiled inferences (after one warm-up) in a session of its own, made with
// `options` (profile and timestamps set).
Profile profileDispatches(const Context& ctx, const Model& model, const std::vector<NamedTensor>& inputs,
                          SessionOptions options, int runs);

// "input=1x3x224x224, mask=1x224": the inputs' names and shapes.
std::string inputsText(const std::vector<NamedTensor>& inputs);

// Latency of `session` over `iters` timed runs after max(warmup, 1) untimed ones (the first
// compiles the plan): the object `vkinfer bench --json` prints, without "profile" and
// "trace" (model: `modelName`). `onRun(done, total)` is called before each run.
struct BenchSettings {
    int iters = 50;
    int warmup = 5;
};
nlohmann::json benchJson(Session& session, const Context& ctx, const std::string& modelName,
                         const std::vector<NamedTensor>& inputs, const BenchSettings& settings,
                         const std::function<void(int done, int total)>& onRun = {});

void printProfile(const Profile& p, int top, SyncMode sync);
nlohmann::json profileJson(const Profile& p);

}  // namespace vkinfer::cli
