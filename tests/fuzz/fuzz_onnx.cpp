// fuzz_onnx: the input is an ONNX model file. It is imported, checked against the operator
// table, given input shapes (the declared dims; dynamic ones bound to 1..8 by name, so that
// inputs sharing a dim name agree) and compiled to a plan, which is printed as JSON and as
// text; then compiled again with float16 precision and conservative sync. This is what
// `vkinfer plan` and Session::create do before touching a GPU, with a smaller folding budget
// (LLVMFuzzerInitialize).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_common.h"
#include "io/onnx_import.h"
#include "ops/registry.h"
#include "passes/specialize.h"
#include "plan/compile.h"

namespace {

using namespace vkinfer;

int64_t dynamicDim(const std::string& name) {
    uint32_t h = 2166136261u;  // FNV-1a
    for (unsigned char c : name) h = (h ^ c) * 16777619u;
    return 1 + static_cast<int64_t>(h % 8);
}

InputShapes shapesFor(const graph::Graph& g) {
    InputShapes shapes;
    for (const auto& in : g.inputs) {
        std::vector<int64_t> shape;
        if (!in.rankKnown) shape = {1, 3, 4, 4};  // no declared shape: an image-like one
        for (size_t i = 0; i < in.dims.size(); ++i)
            shape.push_back(in.dims[i] >= 0 ? in.dims[i] : dynamicDim(in.dimNames[i]));
        shapes.emplace_back(g.values[in.value].name, std::move(shape));
    }
    return shapes;
}

}  // namespace

// A 1 MiB folding budget instead of 64: this build (-O0, sanitizers, coverage) takes about
// 3 us per folded element in the CPU evaluators, so the default budget's 16M floats or 64M
// bytes outlast the 25 s timeout while the code's bounds are the same at any budget.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
    passes::setMinFoldBudgetForTesting(int64_t{1} << 20);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::expectOnlyCleanErrors([&] {
        graph::Graph g = io::importOnnx(data, size, "fuzz.onnx");
        ops::checkSupported(g);
        InputShapes shapes = shapesFor(g);
        plan::CompiledPlan p = plan::compilePlan(g, shapes, PlanOptions{});
        std::string json = plan::planToJson(p);
        std::string text = plan::planToText(p);
        if (json.empty() || text.empty()) std::abort();  // a compiled plan always prints something

        PlanOptions other;
        other.precision = Precision::Float16;
        other.sync = SyncMode::Conservative;
        plan::CompiledPlan p16 = plan::compilePlan(g, shapes, other);
        (void)plan::planToJson(p16);
    });
    return 0;
}
