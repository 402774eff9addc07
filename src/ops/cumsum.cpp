// CumSum (opsets 11 and 14: 14 added float16 and bfloat16): running sums along an axis,
// inclusive or exclusive, forward or reversed. Exporters write it for position ids
// (torch.cumsum over an attention mask). The axis is a plan-time value: a graph input bound
// by value when it is one (passes::valueInputs). shaders/cumsum.comp is the kernel; the
// evaluator sums in the same order and type as the kernel (float for float32 and float16,
// wrapping integers), so the two agree exactly.
#include <type_traits>

#include "kernels/families/cumsum.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

struct ScanSpec {
    AxisLines lines;  // the input around the axis
    bool exclusive = false, reverse = false;
};

ScanSpec scanSpec(const Node& n, const Shape& x, const Tensor& axisTensor) {
    if (axisTensor.elementCount() != 1)
        shapeError(n, "axis must be a scalar, got shape {}", shapeToString(axisTensor.shape()));
    const auto rank = static_cast<int64_t>(x.size());
    const int64_t axis = normalizeAxis(n, axisTensor.getInt(0), rank);
    ScanSpec s;
    s.lines = axisLines(x, static_cast<size_t>(axis));
    s.exclusive = n.attrInt("exclusive", 0) != 0;
    s.reverse = n.attrInt("reverse", 0) != 0;
    return s;
}

void inferCumSum(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    const auto& axis = inputValue(g, n, 1);
    if (axis.dtype != DataType::Int32 && axis.dtype != DataType::Int64)
        shapeError(n, "axis must be int32 or int64, got {}", dataTypeName(axis.dtype));
    if (x.dtype == DataType::Bool || dataTypeSize(x.dtype) == 0 ||
        (!isFloatType(x.dtype) && dataTypeSize(x.dtype) < 4))
        unsupported(n, "CumSum of {} tensors is not defined by ONNX", dataTypeName(x.dtype));
    scanSpec(n, x.shape, constantInput(g, n, 1, "axis"));
    setOutput(g, n, 0, x.dtype, x.shape);
}

// Integers wrap as the kernel's do (signed overflow is undefined in C++, not in GLSL).
template <class T, class A>
A accumulate(A acc, T v) {
    if constexpr (std::is_integral_v<A>) {
        using U = std::make_unsigned_t<A>;
        return static_cast<A>(static_cast<U>(acc) + static_cast<U>(static_cast<A>(v)));
    } else {
        return acc + static_cast<A>(v);
    }
}

template <class T>
void scan(const ScanSpec& s, const T* x, T* y) {
    using A = std::conditional_t<std::is_same_v<T, float> || std::is_same_v<T, double>, T,
                                 std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
    for (int64_t o = 0; o < s.lines.outer; ++o)
        for (int64_t in = 0; in < s.lines.inner; ++in) {
            A acc{};
            for (int64_t k = 0; k < s.lines.along; ++k) {
                const int64_t i = (o * s.lines.along + (s.reverse ? s.lines.along - 1 - k : k)) * s.lines.inner + in;
                if (s.exclusive) {
                    y[i] = static_cast<T>(acc);
                    acc = accumulate(acc, x[i]);
                } else {
                    acc = accumulate(acc, x[i]);
                    y[i] = static_cast<T>(acc);
                }
            }
        }
}

void evalCumSum(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const ScanSpec s = scanSpec(n, in[0]->shape(), *in[1]);
    const Tensor x = toFloat32(*in[0]);
    Tensor y(x.dtype(), x.shape());
    visitType(n, x.dtype(), [&](auto tag) {
        using T = decltype(tag);
        if constexpr (!std::is_same_v<T, bool>) scan<T>(s, x.as<T>(), y.as<T>());
    });
    out[0] = narrowFromFloat32(y, in[0]->dtype());
}

void lowerCumSum(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[0]);
    if (x.elementCount() == 0) return;
    if (x.dtype == DataType::Float64)
        unsupported(n, "CumSum of float64 tensors runs on the CPU reference only (the engine does not enable "
                       "shaderFloat64)");
    requireIndexable(n, x.elementCount());
    const ScanSpec s = scanSpec(n, x.shape, constantInput(ctx.graph(), n, 1, "axis"));
    Dispatch& d = ctx.emit(typedKernel(n, kernels::cumsum::variant(x.dtype), "cumsum", x.dtype));
    setActivation(d, graph::Activation{});
    d.setSpec(kernels::cumsum::kExclusive, s.exclusive ? 1 : 0);
    d.setSpec(kernels::cumsum::kReverse, s.reverse ? 1 : 0);
    kernels::cumsum::Push p{};
    p.lines = u32(s.lines.outer * s.lines.inner);
    p.extent = u32(s.lines.along);
    p.inner = u32(s.lines.inner);
    d.setPush(p);
    setLaunch1d(d, s.lines.outer * s.lines.inner, 64);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0])};
}

}  // namespace

void registerCumSumOps(std::vector<OpDef>& t) {
    t.push_back(withFp16({"CumSum", 11, 1000, inferCumSum, evalCumSum, lowerCumSum}));
}

}  // namespace vkinfer::ops
