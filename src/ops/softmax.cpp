// Softmax and LogSoftmax. Before opset 13 the input is coerced to 2-D at `axis` (default 1)
// and normalized over everything from `axis` on; from opset 13 over the single `axis`
// (default -1). Both are a walk over [outer, axis, inner] rows (inner = 1 for the 2-D form).
#include <cmath>
#include <limits>

#include "kernels/families/softmax.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

struct SoftmaxLayout {
    int64_t outer = 1, axis = 1, inner = 1;
};

SoftmaxLayout softmaxLayout(const Node& n, const Shape& x, int64_t opset) {
    int64_t rank = static_cast<int64_t>(x.size());
    bool coerce2d = opset < 13;
    int64_t axis = normalizeAxis(n, n.attrInt("axis", coerce2d ? 1 : -1), rank);
    SoftmaxLayout l;
    for (int64_t d = 0; d < rank; ++d) {
        if (d < axis) l.outer *= x[d];
        else if (d == axis || coerce2d) l.axis *= x[d];
        else l.inner *= x[d];
    }
    return l;
}

// The opset is not part of a node; the two semantics are two table entries.
template <int Opset>
void inferSoftmax(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    if (!isFloatType(x.dtype)) shapeError(n, "{} needs a floating-point input, got {}", n.opType, dataTypeName(x.dtype));
    softmaxLayout(n, x.shape, Opset);  // checks the axis
    setOutput(g, n, 0, x.dtype, x.shape);
}

template <int Opset>
void evalSoftmax(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    Tensor x = toFloat32(*in[0]);
    SoftmaxLayout l = softmaxLayout(n, x.shape(), Opset);
    bool isLog = n.opType == "LogSoftmax";
    Tensor y(x.dtype(), x.shape());
    visitType(n, x.dtype(), [&]<class T>(T) {
        if constexpr (std::is_floating_point_v<T>) {
            const T* px = x.as<T>();
            T* py = y.as<T>();
            for (int64_t row = 0; row < l.outer * l.inner; ++row) {
                int64_t base = (row / l.inner) * l.axis * l.inner + row % l.inner;
                double m = -std::numeric_limits<double>::infinity(), s = 0;
                for (int64_t k = 0; k < l.axis; ++k) m = std::max(m, static_cast<double>(px[base + k * l.inner]));
                for (int64_t k = 0; k < l.axis; ++k) s += std::exp(px[base + k * l.inner] - m);
                for (int64_t k = 0; k < l.axis; ++k) {
                    double v = px[base + k * l.inner] - m;
                    py[base + k * l.inner] = static_cast<T>(isLog ? v - std::log(s) : std::exp(v) / s);
                }
            }
        }
    });
    out[0] = narrowFromFloat32(y, in[0]->dtype());
}

template <int Opset>
void lowerSoftmax(LowerContext& ctx, const Node& n) {
    const auto& xv = ctx.value(n.inputs[0]);
    SoftmaxLayout l = softmaxLayout(n, xv.shape, Opset);
    int64_t rows = l.outer * l.inner;
    requireIndexable(n, xv.elementCount());
    bool perThread = rowPerThread(rows, l.axis);
    Dispatch& d = ctx.emit(typedKernel(n, kernels::softmax::variant(xv.dtype), "softmax", xv.dtype));
    setActivation(d, graph::Activation{});
    d.setSpec(kernels::softmax::kLog, n.opType == "LogSoftmax" ? 1 : 0);
    d.setSpec(kernels::softmax::kPerThread, perThread ? 1 : 0);
    kernels::softmax::Push p{};
    p.rows = u32(rows);
    p.axis = u32(l.axis);
    p.inner = u32(l.inner);
    d.setPush(p);
    setRowLaunch(d, rows, l.axis, perThread);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0])};
}

}  // namespace

void registerSoftmaxOps(std::vector<OpDef>& t) {
    for (const char* op : {"Softmax", "LogSoftmax"}) {
        t.push_back(withFp16({op, 1, 12, inferSoftmax<1>, evalSoftmax<1>, lowerSoftmax<1>}));
        t.push_back(withFp16({op, 13, 1000, inferSoftmax<13>, evalSoftmax<13>, lowerSoftmax<13>}));
    }
}

}  // namespace vkinfer::ops
