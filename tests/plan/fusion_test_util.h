// Small built models planned on the CPU for the graph-pass tests (fusions, common
// subexpressions): the plan with one KernelPolicy switch on or off, the dispatch counts
// without and with it in both precisions (printed: the before/after), and a rewritten graph
// evaluated on the CPU against the model.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "passes/cpu_reference.h"
#include "plan/compile.h"
#include "runtime/model_data.h"
#include "support/onnx_builder.h"

namespace vkinfer::plan::testutil {

// The model `b` builds, planned for its declared shapes; throws naming what failed.
inline CompiledPlan compileModel(const testing::OnnxBuilder& b, const PlanOptions& options) {
    auto m = b.build();
    if (!m.ok()) throw std::runtime_error("model does not build: " + m.status().toString());
    auto shapes = m->resolveShapes({});
    if (!shapes.ok()) throw std::runtime_error(shapes.status().toString());
    return compilePlan(m->data()->graph, *shapes, options);
}

// A KernelPolicy switch (fusePointwise, fuseAttention, ...).
using PolicySwitch = bool KernelPolicy::*;

inline CompiledPlan compileWith(const testing::OnnxBuilder& b, PolicySwitch fusion, bool on,
                                Precision precision = Precision::Float32) {
    PlanOptions options;
    options.precision = precision;
    options.kernels.*fusion = on;
    return compileModel(b, options);
}

struct Counts {
    size_t unfused, fused;
};

// Dispatches without and with `fusion` (float32), printed with the float16 ones, which must
// drop by as many (the passes run before the float16 conversion; both add the Casts at the
// graph's inputs and outputs).
inline Counts counts(const testing::OnnxBuilder& b, const std::string& what, PolicySwitch fusion) {
    const Counts c{compileWith(b, fusion, false).summary.dispatches, compileWith(b, fusion, true).summary.dispatches};
    const Counts half{compileWith(b, fusion, false, Precision::Float16).summary.dispatches,
                      compileWith(b, fusion, true, Precision::Float16).summary.dispatches};
    std::printf("[ dispatches ] %-48s fp32 %3zu -> %3zu   fp16 %3zu -> %3zu\n", what.c_str(), c.unfused, c.fused,
                half.unfused, half.fused);
    EXPECT_EQ(half.unfused - half.fused, c.unfused - c.fused) << what << " (fp16)";
    return c;
}

// `rewritten` (a graph the passes made of `b`'s model) run on the CPU against the model run on
// the CPU: every float output element within atol + rtol * |reference| (a NaN fails); the
// first 5 misses of each output are reported.
inline void expectComputesTheSame(const testing::OnnxBuilder& b, const graph::Graph& rewritten,
                                  const std::vector<NamedTensor>& inputs, double atol, double rtol) {
    auto m = b.build();
    ASSERT_TRUE(m.ok()) << m.status().toString();
    const auto want = passes::runOnCpu(m->data()->graph, inputs);
    const auto got = passes::runOnCpu(rewritten, inputs);
    ASSERT_EQ(got.size(), want.size());
    for (size_t k = 0; k < got.size(); ++k) {
        ASSERT_EQ(got[k].shape(), want[k].shape()) << "output " << k;
        int misses = 0;
        for (int64_t i = 0; i < got[k].elementCount() && misses < 5; ++i) {
            const double w = want[k].as<float>()[i], g = got[k].as<float>()[i];
            if (!(std::abs(g - w) <= atol + rtol * std::abs(w))) {
                ADD_FAILURE() << "output " << k << " element " << i << ": " << g << " vs " << w;
                ++misses;
            }
        }
    }
}

}  // namespace vkinfer::plan::testutil
