// TopK (opsets 10 and 11: k as an input; 11 adds largest and sorted): the k largest (or
// smallest) elements along an axis with their int64 indices, always sorted, ties by the lower
// index, NaN above every number (as PyTorch orders it). k is a plan-time value: a graph input
// bound by value when it is one (passes::valueInputs). shaders/topk.comp ranks each element
// against its line; the evaluator sorts stably with the same order.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "kernels/families/topk.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

struct TopKSpec {
    AxisLines lines;  // the input around the axis
    int64_t k = 0;
    size_t axis = 0;
    bool largest = true;
};

TopKSpec topKSpec(const Node& n, const Shape& x, const Tensor& kTensor) {
    if (kTensor.elementCount() != 1) shapeError(n, "K must hold one value, got shape {}", shapeToString(kTensor.shape()));
    const auto rank = static_cast<int64_t>(x.size());
    TopKSpec s;
    s.axis = static_cast<size_t>(normalizeAxis(n, n.attrInt("axis", -1), rank));
    s.lines = axisLines(x, s.axis);
    s.k = kTensor.getInt(0);
    if (s.k < 0 || s.k > x[s.axis])
        shapeError(n, "K = {} is outside [0, {}] (the length of axis {})", s.k, x[s.axis], s.axis);
    s.largest = n.attrInt("largest", 1) != 0;
    return s;
}

void inferTopK(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    if (x.dtype == DataType::Bool || dataTypeSize(x.dtype) == 0)
        unsupported(n, "TopK of {} tensors is not supported", dataTypeName(x.dtype));
    if (inputValue(g, n, 1).dtype != DataType::Int64) shapeError(n, "K must be int64");
    const TopKSpec s = topKSpec(n, x.shape, constantInput(g, n, 1, "K"));
    Shape out = x.shape;
    out[s.axis] = s.k;
    setOutput(g, n, 0, x.dtype, out);
    setOutput(g, n, 1, DataType::Int64, out);
}

// a comes before b: larger (or smaller) first, NaN above every number, ties by index.
template <class T>
bool before(const TopKSpec& s, T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        const bool an = std::isnan(a), bn = std::isnan(b);
        if (an || bn) return s.largest ? an && !bn : bn && !an;
    }
    return s.largest ? a > b : a < b;
}

void evalTopK(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const TopKSpec s = topKSpec(n, in[0]->shape(), *in[1]);
    const Tensor x = toFloat32(*in[0]);
    Tensor values(x.dtype(), out[0].shape());
    int64_t* indices = out.size() > 1 && out[1].elementCount() ? out[1].as<int64_t>() : nullptr;
    visitType(n, x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!std::is_same_v<T, bool>) {
            const T* px = x.as<T>();
            T* py = values.as<T>();
            std::vector<int64_t> order(static_cast<size_t>(s.lines.along));
            for (int64_t o = 0; o < s.lines.outer; ++o)
                for (int64_t i = 0; i < s.lines.inner; ++i) {
                    auto at = [&](int64_t a) { return px[(o * s.lines.along + a) * s.lines.inner + i]; };
                    std::iota(order.begin(), order.end(), 0);
                    std::stable_sort(order.begin(), order.end(),
                                     [&](int64_t a, int64_t b) { return before(s, at(a), at(b)); });
                    for (int64_t r = 0; r < s.k; ++r) {
                        const int64_t dst = (o * s.k + r) * s.lines.inner + i;
                        py[dst] = at(order[static_cast<size_t>(r)]);
                        if (indices) indices[dst] = order[static_cast<size_t>(r)];
                    }
                }
        }
    });
    out[0] = narrowFromFloat32(values, in[0]->dtype());
}

void lowerTopK(LowerContext& ctx, const Node& n) {
    const auto x = ctx.value(n.inputs[0]);  // a copy: addScratch below grows the value table
    const TopKSpec s = topKSpec(n, x.shape, constantInput(ctx.graph(), n, 1, "K"));
    if (s.k == 0 || x.elementCount() == 0) return;
    requireIndexable(n, x.elementCount());
    Shape outShape = x.shape;
    outShape[s.axis] = s.k;
    // The kernel writes both: a scratch tensor for an output the model leaves out.
    const int values = n.outputs[0] >= 0 ? n.outputs[0] : ctx.addScratch(n.name + "_values", x.dtype, outShape);
    const int indices = n.outputs.size() > 1 && n.outputs[1] >= 0
                            ? n.outputs[1]
                            : ctx.addScratch(n.name + "_indices", DataType::Int64, outShape);
    Dispatch& d = ctx.emit(typedKernel(n, kernels::topk::variant(x.dtype), "topk", x.dtype));
    setActivation(d, graph::Activation{});
    d.setSpec(kernels::topk::kLargest, s.largest ? 1 : 0);
    kernels::topk::Push p{};
    p.count = u32(x.elementCount());
    p.extent = u32(s.lines.along);
    p.inner = u32(s.lines.inner);
    p.k = u32(s.k);
    d.setPush(p);
    setLaunch1d(d, x.elementCount(), 64);
    d.bindings = {writeOf(values), writeOf(indices), readOf(n.inputs[0])};
}

}  // namespace

void registerTopKOps(std::vector<OpDef>& t) {
    // TopK-1 takes k as an attribute: not registered, so such a model is refused by opset.
    t.push_back(withFp16({"TopK", 10, 1000, inferTopK, evalTopK, lowerTopK}));
}

}  // namespace vkinfer::ops
