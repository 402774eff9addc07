// How long planning takes (specialize, fuse, lower, schedule, memory, barriers): it runs on
// every new input shape, so it must stay far below an inference.
#include <benchmark/benchmark.h>
#include <vkinfer/vkinfer.h>

#include "bench_models.h"

namespace {

void planModel(benchmark::State& state, const std::string& path) {
    auto model = vkinfer::Model::load(path);
    if (!model) {
        state.SkipWithError(model.status().toString().c_str());
        return;
    }
    vkinfer::InputShapes shapes;
    for (const auto& in : model->inputs()) {
        shapes.emplace_back(in.name, vkinfer::bench::concreteShape(in.shape));
    }
    for (auto _ : state) {
        auto summary = vkinfer::planSummary(*model, shapes);
        if (!summary) state.SkipWithError(summary.status().toString().c_str());
        benchmark::DoNotOptimize(summary);
    }
}

const int registered = [] {
    for (const auto& m : vkinfer::bench::benchModels())
        benchmark::RegisterBenchmark(("plan/" + m.name).c_str(), planModel, m.path)->Unit(benchmark::kMillisecond);
    return 0;
}();

}  // namespace
