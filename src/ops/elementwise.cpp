// Element-wise ops: binary arithmetic with broadcasting (Add, Sub, Mul, Div, Pow) and the
// standalone activations (Relu, Clip, Sigmoid, Tanh, LeakyRelu).
#include <cfloat>
#include <cmath>

#include "ops/activation.h"
#include "ops/op_util.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

// Matches OP in shaders/binary.comp.
enum class BinaryOp : uint32_t { Add = 0, Sub = 1, Mul = 2, Div = 3, Max = 4, Min = 5, Pow = 6 };

template <BinaryOp Op>
void inferBinary(Graph& g, const Node& n) {
    const auto& a = inputValue(g, n, 0);
    const auto& b = inputValue(g, n, 1);
    if (a.dtype != b.dtype)
        shapeError(n, "operand types differ: {} and {}", dataTypeName(a.dtype), dataTypeName(b.dtype));
    setOutput(g, n, 0, a.dtype, broadcastShapes(n, a.shape, b.shape));
}

template <BinaryOp Op, class T>
T applyBinary(T u, T v) {
    switch (Op) {
        case BinaryOp::Add: return u + v;
        case BinaryOp::Sub: return u - v;
        case BinaryOp::Mul: return u * v;
        case BinaryOp::Div: return v == T(0) && std::is_integral_v<T> ? T(0) : u / v;
        case BinaryOp::Max: return std::max(u, v);
        case BinaryOp::Min: return std::min(u, v);
        case BinaryOp::Pow: return static_cast<T>(std::pow(u, v));
    }
    return u;
}

template <BinaryOp Op, class T>
void binaryLoop(const Node& n, const Tensor& a, const Tensor& b, Tensor& y) {
    const Shape& out = y.shape();
    auto sa = broadcastStrides(a.shape(), out), sb = broadcastStrides(b.shape(), out);
    const T* pa = a.as<T>();
    const T* pb = b.as<T>();
    T* py = y.as<T>();
    std::vector<int64_t> idx(out.size(), 0);
    for (int64_t i = 0; i < y.elementCount(); ++i) {
        int64_t ia = 0, ib = 0;
        for (size_t d = 0; d < out.size(); ++d) {
            ia += idx[d] * sa[d];
            ib += idx[d] * sb[d];
        }
        T v = applyBinary<Op, T>(pa[ia], pb[ib]);
        if constexpr (std::is_same_v<T, float>) v = applyActivation(n.activation, v);
        py[i] = v;
        for (size_t d = out.size(); d-- > 0;) {
            if (++idx[d] < out[d]) break;
            idx[d] = 0;
        }
    }
}

template <BinaryOp Op>
void evalBinary(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    switch (in[0]->dtype()) {
        case DataType::Float32: binaryLoop<Op, float>(n, *in[0], *in[1], out[0]); break;
        case DataType::Float64: binaryLoop<Op, double>(n, *in[0], *in[1], out[0]); break;
        case DataType::Int64: binaryLoop<Op, int64_t>(n, *in[0], *in[1], out[0]); break;
        case DataType::Int32: binaryLoop<Op, int32_t>(n, *in[0], *in[1], out[0]); break;
        default: unsupported(n, "{} is not supported for {}", n.opType, dataTypeName(in[0]->dtype()));
    }
}

struct BinaryParams {
    uint32_t count, rank;
    uint32_t dims[6];
    uint32_t strideA[6];
    uint32_t strideB[6];
};

template <BinaryOp Op>
void lowerBinary(LowerContext& ctx, const Node& n) {
    requireFloat(ctx.graph(), n, 0);
    Shape dims = ctx.value(n.outputs[0]).shape;
    int64_t count = ctx.value(n.outputs[0]).elementCount();
    requireIndexable(n, count);
    auto sa = broadcastStrides(ctx.value(n.inputs[0]).shape, dims);
    auto sb = broadcastStrides(ctx.value(n.inputs[1]).shape, dims);
    auto so = contiguousStrides(dims);
    if (!collapseDims(dims, {&so, &sa, &sb}))
        unsupported(n, "broadcast over more than 6 non-mergeable dimensions");
    BinaryParams p{};
    p.count = static_cast<uint32_t>(count);
    p.rank = static_cast<uint32_t>(dims.size());
    for (size_t i = 0; i < dims.size(); ++i) {
        p.dims[i] = static_cast<uint32_t>(dims[i]);
        p.strideA[i] = static_cast<uint32_t>(sa[i]);
        p.strideB[i] = static_cast<uint32_t>(sb[i]);
    }
    Dispatch& d = ctx.emit("binary");
    setActivation(d, n.activation);
    d.spec.push_back(static_cast<uint32_t>(Op));
    d.setPush(p);
    d.localSize = {256, 1, 1};
    d.groups = grid1d(count, 256);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1])};
}

// The activation a standalone activation node computes.
graph::Activation activationOfNode(const Node& n, std::span<const Tensor* const> clipBounds) {
    graph::Activation a;
    if (n.opType == "Relu") a.kind = graph::ActKind::Relu;
    if (n.opType == "Sigmoid") a.kind = graph::ActKind::Sigmoid;
    if (n.opType == "Tanh") a.kind = graph::ActKind::Tanh;
    if (n.opType == "LeakyRelu") {
        a.kind = graph::ActKind::LeakyRelu;
        a.alpha = n.attrFloat("alpha", 0.01f);
    }
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
    requireFloat(g, n, 0);
    setOutput(g, n, 0, DataType::Float32, inputShape(g, n, 0));
}

void evalUnary(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    graph::Activation a = activationOfNode(n, in.size() > 1 ? in.subspan(1) : std::span<const Tensor* const>{});
    const float* x = in[0]->as<float>();
    float* y = out[0].as<float>();
    for (int64_t i = 0; i < in[0]->elementCount(); ++i) y[i] = applyActivation(a, x[i]);
}

void lowerUnary(LowerContext& ctx, const Node& n) {
    std::vector<const Tensor*> bounds;
    for (size_t i = 1; i < n.inputs.size(); ++i)
        bounds.push_back(n.inputs[i] >= 0 ? &constantInput(ctx.graph(), n, i, "the Clip bound") : nullptr);
    graph::Activation a = activationOfNode(n, bounds);
    int64_t count = ctx.value(n.outputs[0]).elementCount();
    requireIndexable(n, count);
    Dispatch& d = ctx.emit("unary");
    setActivation(d, a);
    struct {
        uint32_t count;
    } p{static_cast<uint32_t>(count)};
    d.setPush(p);
    d.localSize = {256, 1, 1};
    d.groups = grid1d(count, 256);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0])};
}

}  // namespace

void registerElementwiseOps(std::vector<OpDef>& t) {
    t.push_back({"Add", 7, 1000, inferBinary<BinaryOp::Add>, evalBinary<BinaryOp::Add>, lowerBinary<BinaryOp::Add>});
    t.push_back({"Sub", 7, 1000, inferBinary<BinaryOp::Sub>, evalBinary<BinaryOp::Sub>, lowerBinary<BinaryOp::Sub>});
    t.push_back({"Mul", 7, 1000, inferBinary<BinaryOp::Mul>, evalBinary<BinaryOp::Mul>, lowerBinary<BinaryOp::Mul>});
    t.push_back({"Div", 7, 1000, inferBinary<BinaryOp::Div>, evalBinary<BinaryOp::Div>, lowerBinary<BinaryOp::Div>});
    t.push_back({"Pow", 7, 1000, inferBinary<BinaryOp::Pow>, evalBinary<BinaryOp::Pow>, lowerBinary<BinaryOp::Pow>});
    for (const char* op : {"Relu", "Clip", "Sigmoid", "Tanh", "LeakyRelu"})
        t.push_back({op, 1, 1000, inferUnary, evalUnary, lowerUnary});
}

}  // namespace vkinfer::ops
