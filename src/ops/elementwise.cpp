// Element-wise ops: binary arithmetic with broadcasting (Add, Sub, Mul, Div, Pow, Mod, PRelu)
// for every numeric type, the variadic Sum, Mean, Max and Min, and the standalone
// activations (Relu, Clip, Sigmoid, Tanh, LeakyRelu, Gelu).
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/wording.h"
#include "kernels/families/binary.h"
#include "kernels/families/eltwise.h"
#include "kernels/families/minmax_f64.h"
#include "kernels/families/unary.h"
#include "ops/activation.h"
#include "ops/broadcast.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/pointwise.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

// Matches OP in shaders/binary.comp (float32 and float16, with a fused activation: 0-6) and
// shaders/eltwise.comp (every type: all of them).
enum class BinaryOp : uint32_t { Add = 0, Sub = 1, Mul = 2, Div = 3, Max = 4, Min = 5, Pow = 6, Mod = 7, Fmod = 8, PRelu = 9 };

BinaryOp binaryOpOf(const Node& n) {
    if (n.opType == "Add" || n.opType == "Sum" || n.opType == "Mean") return BinaryOp::Add;
    if (n.opType == "Sub") return BinaryOp::Sub;
    if (n.opType == "Mul") return BinaryOp::Mul;
    if (n.opType == "Div") return BinaryOp::Div;
    if (n.opType == "Max") return BinaryOp::Max;
    if (n.opType == "Min") return BinaryOp::Min;
    if (n.opType == "Pow") return BinaryOp::Pow;
    if (n.opType == "Mod") return n.attrInt("fmod", 0) ? BinaryOp::Fmod : BinaryOp::Mod;
    if (n.opType == "PRelu") return BinaryOp::PRelu;
    unsupported(n, "not a binary element-wise op");
}

// a * b wrapping like the kernel, in uint64_t: narrower unsigned types would promote to
// (signed) int and overflow there.
template <class T>
T wrapMul(T a, T b) {
    return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

// Integer power by squaring, wrapping like the kernel; negative exponents give 0 except
// for bases 1 and -1 (NumPy refuses them; the kernel and this reference agree).
template <class T>
T intPow(T base, T e) {
    if constexpr (std::is_signed_v<T>)
        if (e < 0) return base == 1 ? T(1) : base == T(-1) ? T((e & 1) ? -1 : 1) : T(0);
    T r = 1, b = base;
    for (; e > 0; e >>= 1) {
        if (e & 1) r = wrapMul(r, b);
        b = wrapMul(b, b);
    }
    return r;
}

template <class T>
T applyBinary(BinaryOp op, T u, T v) {
    if constexpr (std::is_floating_point_v<T>) {
        switch (op) {
            case BinaryOp::Add: return u + v;
            case BinaryOp::Sub: return u - v;
            case BinaryOp::Mul: return u * v;
            case BinaryOp::Div: return u / v;
            // NaN from either side, as NumPy's maximum/minimum (std::max(1, NaN) returned 1).
            case BinaryOp::Max: return std::isnan(u) ? u : std::isnan(v) ? v : std::max(u, v);
            case BinaryOp::Min: return std::isnan(u) ? u : std::isnan(v) ? v : std::min(u, v);
            case BinaryOp::Pow: return static_cast<T>(std::pow(u, v));
            case BinaryOp::Mod:
            case BinaryOp::Fmod: return std::fmod(u, v);
            case BinaryOp::PRelu: return u < 0 ? u * v : u;
        }
    } else {
        // Signed overflow wraps (two's complement) as on the GPU, through uint64_t. The one
        // quotient that overflows (MIN / -1) wraps to MIN, its remainder is 0.
        const bool minByMinusOne = std::is_signed_v<T> && u == std::numeric_limits<T>::min() && v == T(-1);
        switch (op) {
            case BinaryOp::Add: return static_cast<T>(static_cast<uint64_t>(u) + static_cast<uint64_t>(v));
            case BinaryOp::Sub: return static_cast<T>(static_cast<uint64_t>(u) - static_cast<uint64_t>(v));
            case BinaryOp::Mul: return wrapMul(u, v);
            case BinaryOp::Div:  // C++ truncates toward zero
                return v == 0 ? T(0) : minByMinusOne ? u : static_cast<T>(u / v);
            case BinaryOp::Max: return std::max(u, v);
            case BinaryOp::Min: return std::min(u, v);
            case BinaryOp::Pow: return intPow(u, v);
            case BinaryOp::Mod:
            case BinaryOp::Fmod: {
                if (v == 0 || minByMinusOne) return T(0);
                T r = static_cast<T>(u % v);  // sign of the dividend
                if constexpr (std::is_signed_v<T>)
                    if (op == BinaryOp::Mod && r != 0 && ((r < 0) != (v < 0))) r = static_cast<T>(r + v);
                return r;
            }
            case BinaryOp::PRelu: return u < 0 ? wrapMul(u, v) : u;
        }
    }
    return u;
}

bool isNumeric(DataType t) { return t != DataType::Bool && dataTypeSize(t) > 0 && t != DataType::String; }

void inferBinary(Graph& g, const Node& n) {
    const auto& a = inputValue(g, n, 0);
    const auto& b = inputValue(g, n, 1);
    BinaryOp op = binaryOpOf(n);
    if (a.dtype != b.dtype && op != BinaryOp::Pow)
        shapeError(n, "operand types differ: {} and {}", dataTypeName(a.dtype), dataTypeName(b.dtype));
    if (!isNumeric(a.dtype) || !isNumeric(b.dtype))
        unsupported(n, "{} is not defined for {} operands", n.opType, dataTypeName(isNumeric(a.dtype) ? b.dtype : a.dtype));
    if (op == BinaryOp::Mod && isFloatType(a.dtype)) shapeError(n, "Mod of floating-point tensors requires fmod=1");
    Shape out = broadcastShapes(n, a.shape, b.shape);
    if (op == BinaryOp::PRelu && out != a.shape)  // unidirectional: the slope broadcasts to X
        shapeError(n, "slope of shape {} does not broadcast to X's shape {}", shapeToString(b.shape), shapeToString(a.shape));
    setOutput(g, n, 0, a.dtype, out);
}

// Y = op(A, B) over Y's shape, in A's type (float16 computes in float32).
void binaryCpu(const Node& n, BinaryOp op, const Tensor& a16, const Tensor& b16, Tensor& y, const graph::Activation& act) {
    Tensor a = toFloat32(a16), b = toFloat32(b16);
    Tensor r(a.dtype(), y.shape());
    visitType(n, a.dtype(), [&]<class T>(T) {
        if constexpr (std::is_same_v<T, bool>) {
            unsupported(n, "{} is not defined for bool operands", n.opType);
        } else {
            const T* pa = a.as<T>();
            const T* pb = b.as<T>();
            T* py = r.as<T>();
            broadcastWalk<2>(r.shape(), {a.shape(), b.shape()}, [&](int64_t i, const std::array<int64_t, 2>& off) {
                T v = applyBinary<T>(op, pa[off[0]], pb[off[1]]);
                if constexpr (std::is_same_v<T, float>) v = applyActivation(act, v);
                py[i] = v;
            });
        }
    });
    y = narrowFromFloat32(r, a16.dtype());
}

void evalBinary(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    BinaryOp op = binaryOpOf(n);
    if (in[0]->dtype() == in[1]->dtype()) return binaryCpu(n, op, *in[0], *in[1], out[0], n.activation);
    // Pow with a different exponent type: NumPy computes in double, then the result takes
    // the base's type (an integer base truncates).
    Tensor y(DataType::Float64, out[0].shape());
    broadcastWalk<2>(y.shape(), {in[0]->shape(), in[1]->shape()}, [&](int64_t i, const std::array<int64_t, 2>& off) {
        y.as<double>()[i] = std::pow(in[0]->getDouble(off[0]), in[1]->getDouble(off[1]));
    });
    out[0] = castTensor(n, y, in[0]->dtype());
}

// One broadcast dispatch out = op(a, b) in `type`: float32 arithmetic (Add to Pow) and float16
// (Add to Min) go to binary.comp, which applies a fused activation; everything else to the
// typed eltwise.comp (float16 Pow too: its pow is exact for integral exponents).
void emitBinary(LowerContext& ctx, const Node& n, BinaryOp op, DataType type, int out, int a, int b,
                const graph::Activation& act, bool typedOnly = false) {
    const BinaryOp lastOp = type == DataType::Float16 ? BinaryOp::Min : BinaryOp::Pow;
    bool f32 = !typedOnly && (type == DataType::Float32 || type == DataType::Float16) &&
               static_cast<uint32_t>(op) <= static_cast<uint32_t>(lastOp);
    if (!f32 && act.kind != graph::ActKind::None) unsupported(n, "a fused activation needs float32 arithmetic");
    // binary.comp's block, which eltwise.comp and minmax_f64.comp share (push_from).
    const auto p = broadcastPush<kernels::binary::Push>(n, ctx.value(out).shape, {ctx.value(a).shape, ctx.value(b).shape});
    // float64 has no arithmetic without shaderFloat64 (not enabled); Max and Min are exact
    // on the bit patterns.
    bool f64 = type == DataType::Float64;
    if (f64 && op != BinaryOp::Max && op != BinaryOp::Min)
        unsupported(n, "{} of float64 tensors runs on the CPU reference only (the engine does not enable shaderFloat64)",
                    n.opType);
    Dispatch& d = ctx.emit(f64   ? kernels::minmax_f64::variant()
                           : f32 ? typedKernel(n, kernels::binary::variant(type), "binary", type)
                                 : typedKernel(n, kernels::eltwise::variant(type), "eltwise", type));
    setActivation(d, act);
    if (f64) d.setSpec(kernels::minmax_f64::kIsMin, op == BinaryOp::Min ? 1u : 0u);
    else if (f32) d.setSpec(kernels::binary::kOp, static_cast<uint32_t>(op));
    else d.setSpec(kernels::eltwise::kOp, static_cast<uint32_t>(op));
    d.setPush(p);
    setLaunch1d(d, p.count);
    d.bindings = {writeOf(out), readOf(a), readOf(b)};
}

// `value` converted to `to` in a scratch tensor (or itself if it already has that type).
int castScratch(LowerContext& ctx, const Node& n, int value, DataType to) {
    const auto& v = ctx.value(value);
    if (v.dtype == to) return value;
    DataType from = v.dtype;
    int s = ctx.addScratch(n.name + "_as_" + dataTypeName(to), to, v.shape);
    emitCast(ctx, n, value, s, from, to);
    return s;
}

// Pow with a base and an exponent of different types: the exponent is cast to a float base's
// type; an integer base with a float exponent computes in float32 and truncates back.
void lowerMixedPow(LowerContext& ctx, const Node& n) {
    DataType ta = ctx.value(n.inputs[0]).dtype, tb = ctx.value(n.inputs[1]).dtype;
    int out = n.outputs[0];
    if (isFloatType(ta) || !isFloatType(tb)) {
        int e = castScratch(ctx, n, n.inputs[1], ta);
        emitBinary(ctx, n, BinaryOp::Pow, ta, out, n.inputs[0], e, n.activation);
        return;
    }
    int a = castScratch(ctx, n, n.inputs[0], DataType::Float32);
    int e = castScratch(ctx, n, n.inputs[1], DataType::Float32);
    int y = ctx.addScratch(n.name + "_float", DataType::Float32, ctx.value(out).shape);
    // eltwise's pow is exact for integral exponents, which the truncation back needs.
    emitBinary(ctx, n, BinaryOp::Pow, DataType::Float32, y, a, e, graph::Activation{}, true);
    emitCast(ctx, n, y, out, DataType::Float32, ta);
}

void lowerBinary(LowerContext& ctx, const Node& n) {
    DataType ta = ctx.value(n.inputs[0]).dtype;
    if (ta != ctx.value(n.inputs[1]).dtype) return lowerMixedPow(ctx, n);
    emitBinary(ctx, n, binaryOpOf(n), ta, n.outputs[0], n.inputs[0], n.inputs[1], n.activation);
}

// Variadic Sum, Mean, Max, Min: all inputs broadcast together.
void inferVariadic(Graph& g, const Node& n) {
    if (n.inputs.empty()) shapeError(n, "needs at least one input");
    const auto& first = inputValue(g, n, 0);
    Shape out = first.shape;
    for (size_t i = 1; i < n.inputs.size(); ++i) {
        const auto& v = inputValue(g, n, i);
        if (v.dtype != first.dtype)
            shapeError(n, "input types differ: {} and {}", dataTypeName(first.dtype), dataTypeName(v.dtype));
        out = broadcastShapes(n, out, v.shape);
    }
    if (!isNumeric(first.dtype)) unsupported(n, "{} is not defined for {} inputs", n.opType, dataTypeName(first.dtype));
    if (n.opType == "Mean" && !isFloatType(first.dtype))
        unsupported(n, "Mean is defined for floating-point inputs only, got {}", dataTypeName(first.dtype));
    setOutput(g, n, 0, first.dtype, out);
}

// 1/count in `type`, as a scalar tensor.
Tensor reciprocalScalar(const Node& n, DataType type, size_t count) {
    Tensor f = Tensor::fromVector<float>(DataType::Float32, {}, {1.0f / static_cast<float>(count)});
    return type == DataType::Float32 ? f : castTensor(n, f, type);
}

void evalVariadic(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    BinaryOp op = binaryOpOf(n);
    Tensor acc = *in[0];
    for (size_t i = 1; i < in.size(); ++i) {
        Tensor next(acc.dtype(), broadcastShapes(n, acc.shape(), in[i]->shape()));
        binaryCpu(n, op, acc, *in[i], next, graph::Activation{});
        acc = std::move(next);
    }
    if (n.opType == "Mean") {
        Tensor next(acc.dtype(), acc.shape());
        binaryCpu(n, BinaryOp::Mul, acc, reciprocalScalar(n, acc.dtype(), in.size()), next, graph::Activation{});
        acc = std::move(next);
    }
    out[0] = std::move(acc);
}

// A chain of broadcast dispatches over the output's shape: t1 = op(x0, x1), t2 = op(t1, x2),
// ..., the last writing the output (Mean scales the sum by 1/n last).
void lowerVariadic(LowerContext& ctx, const Node& n) {
    BinaryOp op = binaryOpOf(n);
    int out = n.outputs[0];
    const Shape shape = ctx.value(out).shape;  // a copy: addScratch below grows the value table
    DataType type = ctx.value(out).dtype;
    bool mean = n.opType == "Mean";
    size_t k = n.inputs.size();
    if (k == 1) {  // Sum(x) = Max(x) = x: a copy (the planner gives outputs their own bytes)
        auto st = contiguousStrides(shape);
        emitStridedCopy(ctx, n, n.inputs[0], out, shape, st, st, 0, 0, dataTypeSize(type));
        return;
    }
    int prev = n.inputs[0];
    for (size_t i = 1; i < k; ++i) {
        bool last = i == k - 1 && !mean;
        int dst = last ? out : ctx.addScratch(n.name + "_partial", type, shape);
        emitBinary(ctx, n, op, type, dst, prev, n.inputs[i], last ? n.activation : graph::Activation{});
        prev = dst;
    }
    if (mean) {
        int scale = ctx.addConstant(n.name + "_reciprocal", reciprocalScalar(n, type, k));
        emitBinary(ctx, n, BinaryOp::Mul, type, out, prev, scale, n.activation);
    }
}

// The activation a standalone activation node computes.
graph::Activation activationOfNode(const Node& n, std::span<const Tensor* const> clipBounds) {
    graph::Activation a;
    if (attributeActivation(n, &a)) return a;
    if (n.opType == "Clip") {
        a.kind = graph::ActKind::Clip;
        a.alpha = n.attrFloat("min", -FLT_MAX);
        a.beta = n.attrFloat("max", FLT_MAX);
        if (clipBounds.size() > 0 && clipBounds[0]) a.alpha = static_cast<float>(clipBounds[0]->getDouble(0));
        if (clipBounds.size() > 1 && clipBounds[1]) a.beta = static_cast<float>(clipBounds[1]->getDouble(0));
    }
    return a;
}

void inferUnary(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    if (n.opType != "Clip") {
        requireFloat(g, n, 0);
        graph::Activation a;
        attributeActivation(n, &a);  // refuses a Gelu approximation ONNX does not define
    } else {  // Clip (opset 12 on) takes any numeric type, and bounds that are scalars of that type
        if (!isNumeric(x.dtype)) unsupported(n, "Clip is not defined for {} inputs", dataTypeName(x.dtype));
        for (size_t i = 1; i < 3; ++i) {
            if (n.input(i) < 0) continue;
            const auto& b = inputValue(g, n, i);
            if (b.dtype != x.dtype || b.elementCount() != 1)
                shapeError(n, "bound '{}' must be {} scalar, got {} tensor of shape {}", b.name,
                           withArticle(dataTypeName(x.dtype)), withArticle(dataTypeName(b.dtype)), shapeToString(b.shape));
            // A one-element bound of higher rank would broadcast the output past x's shape.
            if (b.shape.size() > x.shape.size())
                shapeError(n, "bound '{}' has shape {}, more dimensions than the input ({}); it must be a scalar", b.name,
                           shapeToString(b.shape), shapeToString(x.shape));
        }
    }
    setOutput(g, n, 0, x.dtype, x.shape);
}

// Clip(x, min, max) = Min(Max(x, min), max), element-wise in x's type.
void evalClipTyped(const Node& n, std::span<const Tensor* const> in, Tensor& y) {
    Tensor cur = *in[0];
    for (size_t i = 1; i < 3 && i < in.size(); ++i) {
        if (!in[i]) continue;
        Tensor next(cur.dtype(), cur.shape());
        binaryCpu(n, i == 1 ? BinaryOp::Max : BinaryOp::Min, cur, *in[i], next, graph::Activation{});
        cur = std::move(next);
    }
    y = std::move(cur);
}

void evalUnary(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    if (in[0]->dtype() != DataType::Float32) return evalClipTyped(n, in, out[0]);
    graph::Activation a = activationOfNode(n, in.size() > 1 ? in.subspan(1) : std::span<const Tensor* const>{});
    const float* x = in[0]->as<float>();
    float* y = out[0].as<float>();
    for (int64_t i = 0; i < in[0]->elementCount(); ++i) y[i] = applyActivation(a, x[i]);
}

// Clip on non-float32 tensors or with bounds computed at run time: a Max then a Min
// dispatch with the scalar bounds broadcast (float32 with constant bounds is an activation).
void lowerClipBroadcast(LowerContext& ctx, const Node& n) {
    int out = n.outputs[0];
    const Shape shape = ctx.value(out).shape;  // a copy: addScratch grows the value table
    DataType type = ctx.value(out).dtype;
    bool hasMin = n.input(1) >= 0, hasMax = n.input(2) >= 0;
    if (!hasMin && !hasMax) {
        auto st = contiguousStrides(shape);
        emitStridedCopy(ctx, n, n.inputs[0], out, shape, st, st, 0, 0, dataTypeSize(type));
        return;
    }
    int cur = n.inputs[0];
    if (hasMin) {
        int dst = hasMax ? ctx.addScratch(n.name + "_lower", type, shape) : out;
        emitBinary(ctx, n, BinaryOp::Max, type, dst, cur, n.inputs[1], graph::Activation{});
        cur = dst;
    }
    if (hasMax) emitBinary(ctx, n, BinaryOp::Min, type, out, cur, n.inputs[2], graph::Activation{});
}

void lowerUnary(LowerContext& ctx, const Node& n) {
    if (n.opType == "Clip") {
        bool constantBounds = true;
        for (size_t i = 1; i < n.inputs.size(); ++i)
            constantBounds &= n.inputs[i] < 0 || ctx.value(n.inputs[i]).constant.has_value();
        DataType type = ctx.value(n.inputs[0]).dtype;
        bool isFloat = type == DataType::Float32 || type == DataType::Float16;
        if (!constantBounds || !isFloat) return lowerClipBroadcast(ctx, n);
    }
    std::vector<const Tensor*> bounds;
    for (size_t i = 1; i < n.inputs.size(); ++i)
        bounds.push_back(n.inputs[i] >= 0 ? &constantInput(ctx.graph(), n, i, "the Clip bound") : nullptr);
    graph::Activation a = activationOfNode(n, bounds);
    int64_t count = ctx.value(n.outputs[0]).elementCount();
    requireIndexable(n, count);
    const DataType type = floatKernelType(ctx, n, n.inputs[0], {n.outputs[0]});
    Dispatch& d = ctx.emit(typedKernel(n, kernels::unary::variant(type), "unary", type));
    setActivation(d, a);
    kernels::unary::Push p{};
    p.count = static_cast<uint32_t>(count);
    d.setPush(p);
    setLaunch1d(d, count);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0])};
}

}  // namespace

void registerElementwiseOps(std::vector<OpDef>& t) {
    // Opset 7 brought NumPy broadcasting (and PRelu's unidirectional slope broadcast).
    for (const char* op : {"Add", "Sub", "Mul", "Div", "Pow", "PRelu"})
        t.push_back(withFp16({op, 7, 1000, inferBinary, evalBinary, lowerBinary}));
    t.push_back(withFp16({"Mod", 10, 1000, inferBinary, evalBinary, lowerBinary}));
    // Before opset 8 these required equal shapes, a case of broadcasting.
    for (const char* op : {"Sum", "Mean", "Max", "Min"})
        t.push_back(withFp16({op, 1, 1000, inferVariadic, evalVariadic, lowerVariadic}));
    for (const char* op : {"Relu", "Clip", "Sigmoid", "Tanh", "LeakyRelu"})
        t.push_back(withFp16({op, 1, 1000, inferUnary, evalUnary, lowerUnary}));
    t.push_back(withFp16({"Gelu", 20, 1000, inferUnary, evalUnary, lowerUnary}));
    // The fused programs of passes/pointwise_fusion.cpp (ops/pointwise.cpp).
    registerPointwiseOps(t);
}

}  // namespace vkinfer::ops
