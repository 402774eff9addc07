// Element-wise math functions: Exp, Log, Sqrt, Erf, Elu, Selu, Softplus, Mish, trigonometry, ...
// (Relu, Sigmoid, Tanh, LeakyRelu and Clip are activations: elementwise.cpp.) One kernel,
// shaders/unary_math.comp, with the op and its attributes as specialization constants.
#include <algorithm>
#include <bit>
#include <cmath>

#include "kernels/families/unary_math.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

// Matches OP in shaders/unary_math.comp.
enum class UnaryOp : uint32_t {
    Neg = 0, Abs, Sign, Exp, Log, Sqrt, Reciprocal, Floor, Ceil, Round, Erf, Elu, Selu, Celu, Softplus, Softsign,
    HardSigmoid, HardSwish, ThresholdedRelu, Shrink, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh, Atanh,
    Mish,
};

struct UnaryInfo {
    const char* type;
    UnaryOp op;
    bool integers;  // also defined on signed integers
    int minOpset = 1;
};

// Minimum opsets from ONNX's operator changelog (an older model naming the op is refused).
constexpr UnaryInfo kUnary[] = {
    {"Neg", UnaryOp::Neg, true},          {"Abs", UnaryOp::Abs, true},
    {"Sign", UnaryOp::Sign, true, 9},     {"Exp", UnaryOp::Exp, false},
    {"Log", UnaryOp::Log, false},         {"Sqrt", UnaryOp::Sqrt, false},
    {"Reciprocal", UnaryOp::Reciprocal, false}, {"Floor", UnaryOp::Floor, false},
    {"Ceil", UnaryOp::Ceil, false},       {"Round", UnaryOp::Round, false, 11},
    {"Erf", UnaryOp::Erf, false, 9},      {"Elu", UnaryOp::Elu, false},
    {"Selu", UnaryOp::Selu, false},       {"Celu", UnaryOp::Celu, false, 12},
    {"Softplus", UnaryOp::Softplus, false}, {"Softsign", UnaryOp::Softsign, false},
    {"HardSigmoid", UnaryOp::HardSigmoid, false}, {"HardSwish", UnaryOp::HardSwish, false, 14},
    {"ThresholdedRelu", UnaryOp::ThresholdedRelu, false, 10}, {"Shrink", UnaryOp::Shrink, false, 9},
    {"Sin", UnaryOp::Sin, false, 7},      {"Cos", UnaryOp::Cos, false, 7},
    {"Tan", UnaryOp::Tan, false, 7},      {"Asin", UnaryOp::Asin, false, 7},
    {"Acos", UnaryOp::Acos, false, 7},    {"Atan", UnaryOp::Atan, false, 7},
    {"Sinh", UnaryOp::Sinh, false, 9},    {"Cosh", UnaryOp::Cosh, false, 9},
    {"Asinh", UnaryOp::Asinh, false, 9},  {"Acosh", UnaryOp::Acosh, false, 9},
    {"Atanh", UnaryOp::Atanh, false, 9},  {"Mish", UnaryOp::Mish, false, 18},
};

const UnaryInfo& infoOf(const Node& n) {
    for (const auto& u : kUnary)
        if (n.opType == u.type) return u;
    unsupported(n, "not a unary math op");
}

// The op's attributes with ONNX defaults: (alpha, beta, gamma) as the kernel reads them.
struct UnaryAttrs {
    float alpha = 0, beta = 0, gamma = 0;
};

UnaryAttrs attrsOf(const Node& n, UnaryOp op) {
    UnaryAttrs a;
    switch (op) {
        case UnaryOp::Elu:
        case UnaryOp::Celu:
        case UnaryOp::ThresholdedRelu: a.alpha = n.attrFloat("alpha", 1.0f); break;
        case UnaryOp::Selu:
            a.alpha = n.attrFloat("alpha", 1.67326319217681884765625f);
            a.gamma = n.attrFloat("gamma", 1.05070102214813232421875f);
            break;
        case UnaryOp::HardSigmoid:
            a.alpha = n.attrFloat("alpha", 0.2f);
            a.beta = n.attrFloat("beta", 0.5f);
            break;
        case UnaryOp::Shrink:
            a.alpha = n.attrFloat("lambd", 0.5f);
            a.beta = n.attrFloat("bias", 0.0f);
            break;
        default: break;
    }
    return a;
}

bool isSignedInt(DataType t) {
    return t == DataType::Int8 || t == DataType::Int16 || t == DataType::Int32 || t == DataType::Int64;
}

void inferUnaryMath(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    const UnaryInfo& info = infoOf(n);
    if (!isFloatType(x.dtype) && !(info.integers && isSignedInt(x.dtype)))
        unsupported(n, "{} is not supported for {} input '{}'", n.opType, dataTypeName(x.dtype), x.name);
    setOutput(g, n, 0, x.dtype, x.shape);
}

// The reference, in double: every float kernel is checked against it.
double applyDouble(UnaryOp op, const UnaryAttrs& a, double v) {
    switch (op) {
        case UnaryOp::Neg: return -v;
        case UnaryOp::Abs: return std::abs(v);
        case UnaryOp::Sign: return std::isnan(v) ? v : v > 0 ? 1.0 : (v < 0 ? -1.0 : 0.0);  // np.sign(NaN) = NaN
        case UnaryOp::Exp: return std::exp(v);
        case UnaryOp::Log: return std::log(v);
        case UnaryOp::Sqrt: return std::sqrt(v);
        case UnaryOp::Reciprocal: return 1.0 / v;
        case UnaryOp::Floor: return std::floor(v);
        case UnaryOp::Ceil: return std::ceil(v);
        case UnaryOp::Round: return std::nearbyint(v);  // default rounding mode: half to even
        case UnaryOp::Erf: return std::erf(v);
        case UnaryOp::Elu: return v >= 0 ? v : a.alpha * std::expm1(v);
        case UnaryOp::Selu: return a.gamma * (v > 0 ? v : a.alpha * std::expm1(v));
        case UnaryOp::Celu: return std::max(v, 0.0) + std::min(0.0, a.alpha * std::expm1(v / a.alpha));
        case UnaryOp::Softplus: return std::max(v, 0.0) + std::log1p(std::exp(-std::abs(v)));
        case UnaryOp::Softsign: return v / (1.0 + std::abs(v));
        case UnaryOp::HardSigmoid: return std::clamp(a.alpha * v + a.beta, 0.0, 1.0);
        case UnaryOp::HardSwish: return v * std::clamp(v / 6.0 + 0.5, 0.0, 1.0);
        case UnaryOp::ThresholdedRelu: return v > a.alpha ? v : 0.0;
        case UnaryOp::Shrink: return v < -a.alpha ? v + a.beta : (v > a.alpha ? v - a.beta : 0.0);
        case UnaryOp::Sin: return std::sin(v);
        case UnaryOp::Cos: return std::cos(v);
        case UnaryOp::Tan: return std::tan(v);
        case UnaryOp::Asin: return std::asin(v);
        case UnaryOp::Acos: return std::acos(v);
        case UnaryOp::Atan: return std::atan(v);
        case UnaryOp::Sinh: return std::sinh(v);
        case UnaryOp::Cosh: return std::cosh(v);
        case UnaryOp::Asinh: return std::asinh(v);
        case UnaryOp::Acosh: return std::acosh(v);
        case UnaryOp::Atanh: return std::atanh(v);
        case UnaryOp::Mish: return v * std::tanh(std::max(v, 0.0) + std::log1p(std::exp(-std::abs(v))));
    }
    return v;
}

// -MIN wraps to MIN, as on the GPU (negation in uint64_t: -v of INT64_MIN is undefined in C++).
template <class T>
T applyInt(UnaryOp op, T v) {
    const T negated = static_cast<T>(uint64_t{0} - static_cast<uint64_t>(v));
    switch (op) {
        case UnaryOp::Neg: return negated;
        case UnaryOp::Abs: return v < 0 ? negated : v;
        case UnaryOp::Sign: return static_cast<T>(v > 0 ? 1 : (v < 0 ? -1 : 0));
        default: return v;
    }
}

void evalUnaryMath(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const UnaryInfo& info = infoOf(n);
    UnaryAttrs a = attrsOf(n, info.op);
    Tensor x = toFloat32(*in[0]);
    Tensor y(x.dtype(), x.shape());
    visitType(n, x.dtype(), [&]<class T>(T) {
        const T* px = x.as<T>();
        T* py = y.as<T>();
        for (int64_t i = 0, count = x.elementCount(); i < count; ++i) {
            if constexpr (std::is_floating_point_v<T>)
                py[i] = static_cast<T>(applyDouble(info.op, a, static_cast<double>(px[i])));
            else if constexpr (std::is_signed_v<T>)
                py[i] = applyInt(info.op, px[i]);
            else
                unsupported(n, "{} is not supported for unsigned or bool tensors", n.opType);
        }
    });
    out[0] = narrowFromFloat32(y, in[0]->dtype());
}

void lowerUnaryMath(LowerContext& ctx, const Node& n) {
    const UnaryInfo& info = infoOf(n);
    UnaryAttrs a = attrsOf(n, info.op);
    const auto& x = ctx.value(n.inputs[0]);
    int64_t count = x.elementCount();
    requireIndexable(n, count);
    Dispatch& d = ctx.emit(typedKernel(n, kernels::unary_math::variant(x.dtype), "unary_math", x.dtype));
    setActivation(d, graph::Activation{});
    d.setSpec(kernels::unary_math::kOp, static_cast<uint32_t>(info.op));
    d.setSpec(kernels::unary_math::kAlpha, std::bit_cast<uint32_t>(a.alpha));
    d.setSpec(kernels::unary_math::kBeta, std::bit_cast<uint32_t>(a.beta));
    d.setSpec(kernels::unary_math::kGamma, std::bit_cast<uint32_t>(a.gamma));
    kernels::unary_math::Push p{};
    p.count = u32(count);
    d.setPush(p);
    setLaunch1d(d, count);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0])};
}

}  // namespace

void registerUnaryOps(std::vector<OpDef>& t) {
    for (const auto& u : kUnary)
        t.push_back(withFp16({u.type, u.minOpset, 1000, inferUnaryMath, evalUnaryMath, lowerUnaryMath}));
}

}  // namespace vkinfer::ops
