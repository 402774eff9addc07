#include "fuzz/plan_model_bytes.h"

#include <cstdlib>
#include <string>

#include "io/onnx_import.h"
#include "ops/registry.h"
#include "plan/compile.h"

namespace vkinfer::fuzz {

namespace {

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

void planModelBytes(const uint8_t* data, size_t size) {
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
}

}  // namespace vkinfer::fuzz
