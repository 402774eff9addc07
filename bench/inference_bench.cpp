// Inference latency per model on the default device (separate-context pattern: staging
// copies, submit, wait). Reports GPU time from timestamps as a counter.
#include <benchmark/benchmark.h>
#include <vkinfer/vkinfer.h>

#include <cstdlib>
#include <memory>

#include "bench_models.h"

namespace {

// Created on first use and destroyed from an atexit handler registered after the driver
// loaded (a static destroyed during static destruction crashes NVIDIA's driver 580, see
// docs/INTEGRATION.md).
vkinfer::Context* context() {
    static std::unique_ptr<vkinfer::Context> ctx;
    static bool tried = false;
    if (!tried) {
        tried = true;
        auto r = vkinfer::Context::create();
        if (r) {
            ctx = std::make_unique<vkinfer::Context>(std::move(r).value());
            std::atexit([] { ctx.reset(); });
        }
    }
    return ctx.get();
}

void inferModel(benchmark::State& state, const std::string& path) {
    auto* ctx = context();
    auto model = vkinfer::Model::load(path);
    if (!ctx || !model) {
        state.SkipWithError(!ctx ? "no Vulkan device" : model.status().toString().c_str());
        return;
    }
    std::vector<vkinfer::NamedTensor> inputs;
    for (const auto& in : model->inputs()) {
        vkinfer::Tensor t(vkinfer::DataType::Float32, vkinfer::bench::concreteShape(in.shape));
        for (int64_t i = 0; i < t.elementCount(); ++i) t.as<float>()[i] = static_cast<float>(i % 255) / 255.0f;
        inputs.push_back({in.name, std::move(t)});
    }
    auto session = vkinfer::Session::create(*ctx, *model);
    if (!session || !session->run(inputs)) {
        state.SkipWithError("warm-up run failed");
        return;
    }
    double gpu = 0;
    for (auto _ : state) {
        vkinfer::RunStats stats;
        auto out = session->run(inputs, &stats);
        if (!out) state.SkipWithError(out.status().toString().c_str());
        gpu += stats.gpuMs;
    }
    state.counters["gpu_ms"] = benchmark::Counter(gpu, benchmark::Counter::kAvgIterations);
}

const int registered = [] {
    for (const auto& m : vkinfer::bench::benchModels())
        benchmark::RegisterBenchmark(("infer/" + m.name).c_str(), inferModel, m.path)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    return 0;
}();

}  // namespace
