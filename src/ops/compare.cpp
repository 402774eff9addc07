// Comparisons (Equal, Less, Greater, LessOrEqual, GreaterOrEqual) on any numeric type, the
// logical ops (And, Or, Xor, Not) on bool, and Where; all broadcast NumPy-style and write
// bool as one byte (0 or 1).
#include <cstring>

#include "kernels/families/compare.h"
#include "kernels/families/where.h"
#include "ops/broadcast.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

// Matches OP in shaders/compare.comp.
enum class CompareOp : uint32_t { Equal = 0, Less, Greater, LessOrEqual, GreaterOrEqual, And, Or, Xor };

CompareOp compareOpOf(const Node& n) {
    if (n.opType == "Equal") return CompareOp::Equal;
    if (n.opType == "Less") return CompareOp::Less;
    if (n.opType == "Greater") return CompareOp::Greater;
    if (n.opType == "LessOrEqual") return CompareOp::LessOrEqual;
    if (n.opType == "GreaterOrEqual") return CompareOp::GreaterOrEqual;
    if (n.opType == "And") return CompareOp::And;
    if (n.opType == "Or") return CompareOp::Or;
    if (n.opType == "Xor" || n.opType == "Not") return CompareOp::Xor;  // Not(x) = Xor(x, true)
    unsupported(n, "not a comparison");
}

bool isLogical(CompareOp op) { return op == CompareOp::And || op == CompareOp::Or || op == CompareOp::Xor; }

template <class T>
bool applyCompare(CompareOp op, T u, T v) {
    switch (op) {
        case CompareOp::Equal: return u == v;
        case CompareOp::Less: return u < v;
        case CompareOp::Greater: return u > v;
        case CompareOp::LessOrEqual: return u <= v;
        case CompareOp::GreaterOrEqual: return u >= v;
        case CompareOp::And: return u != T(0) && v != T(0);
        case CompareOp::Or: return u != T(0) || v != T(0);
        case CompareOp::Xor: return (u != T(0)) != (v != T(0));
    }
    return false;
}

void inferCompare(Graph& g, const Node& n) {
    const auto& a = inputValue(g, n, 0);
    const auto& b = inputValue(g, n, 1);
    if (a.dtype != b.dtype)
        shapeError(n, "operand types differ: {} and {}", dataTypeName(a.dtype), dataTypeName(b.dtype));
    if (isLogical(compareOpOf(n)) && a.dtype != DataType::Bool)
        shapeError(n, "{} needs bool operands, got {}", n.opType, dataTypeName(a.dtype));
    if (a.dtype == DataType::String) unsupported(n, "string comparison is not supported");
    setOutput(g, n, 0, DataType::Bool, broadcastShapes(n, a.shape, b.shape));
}

void compareCpu(const Node& n, CompareOp op, const Tensor& a16, const Tensor& b16, Tensor& y) {
    Tensor a = toFloat32(a16), b = toFloat32(b16);
    visitType(n, a.dtype(), [&]<class T>(T) {
        const T* pa = a.as<T>();
        const T* pb = b.as<T>();
        bool* py = y.as<bool>();
        broadcastWalk<2>(y.shape(), {a.shape(), b.shape()}, [&](int64_t i, const std::array<int64_t, 2>& off) {
            py[i] = applyCompare<T>(op, pa[off[0]], pb[off[1]]);
        });
    });
}

void evalCompare(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    compareCpu(n, compareOpOf(n), *in[0], *in[1], out[0]);
}

void emitCompare(LowerContext& ctx, const Node& n, CompareOp op, int a, int b) {
    const auto p =
        broadcastPush<kernels::compare::Push>(n, ctx.value(n.outputs[0]).shape, {ctx.value(a).shape, ctx.value(b).shape});
    Dispatch& d = ctx.emit(typedKernel(n, kernels::compare::variant(ctx.value(a).dtype), "compare", ctx.value(a).dtype));
    setActivation(d, graph::Activation{});
    d.setSpec(kernels::compare::kOp, static_cast<uint32_t>(op));
    d.setPush(p);
    setLaunch1d(d, p.count);
    d.bindings = {writeOf(n.outputs[0]), readOf(a), readOf(b)};
}

void lowerCompare(LowerContext& ctx, const Node& n) { emitCompare(ctx, n, compareOpOf(n), n.inputs[0], n.inputs[1]); }

Tensor trueScalar() { return Tensor::fromVector<uint8_t>(DataType::Bool, {}, {1}); }

void inferNot(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    if (x.dtype != DataType::Bool) shapeError(n, "Not needs a bool input, got {}", dataTypeName(x.dtype));
    setOutput(g, n, 0, DataType::Bool, x.shape);
}

void evalNot(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    compareCpu(n, CompareOp::Xor, *in[0], trueScalar(), out[0]);
}

void lowerNot(LowerContext& ctx, const Node& n) {
    emitCompare(ctx, n, CompareOp::Xor, n.inputs[0], ctx.addConstant(n.name + "_true", trueScalar()));
}

// Where(condition, X, Y).
void inferWhere(Graph& g, const Node& n) {
    const auto& c = inputValue(g, n, 0);
    const auto& x = inputValue(g, n, 1);
    const auto& y = inputValue(g, n, 2);
    if (c.dtype != DataType::Bool) shapeError(n, "condition must be bool, got {}", dataTypeName(c.dtype));
    if (x.dtype != y.dtype) shapeError(n, "X and Y types differ: {} and {}", dataTypeName(x.dtype), dataTypeName(y.dtype));
    if (dataTypeSize(x.dtype) == 0) unsupported(n, "Where on {} tensors is not supported", dataTypeName(x.dtype));
    setOutput(g, n, 0, x.dtype, broadcastShapes(n, broadcastShapes(n, c.shape, x.shape), y.shape));
}

void evalWhere(const Node&, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Tensor &c = *in[0], &x = *in[1], &y = *in[2];
    size_t es = dataTypeSize(x.dtype());
    broadcastWalk<3>(out[0].shape(), {c.shape(), x.shape(), y.shape()}, [&](int64_t i, const std::array<int64_t, 3>& off) {
        bool cond = c.as<uint8_t>()[off[0]] != 0;
        const std::byte* src = cond ? x.data() + off[1] * es : y.data() + off[2] * es;
        std::memcpy(out[0].data() + i * es, src, es);
    });
}

void lowerWhere(LowerContext& ctx, const Node& n) {
    const auto& x = ctx.value(n.inputs[1]);
    size_t es = dataTypeSize(x.dtype);
    using kernels::where::Elem;
    if (es != 1 && es != 2 && es != 4 && es != 8) unsupported(n, "Where on {}-byte elements is not supported", es);
    const kernels::KernelId kernel =
        kernels::where::variant(es == 1 ? Elem::b8 : es == 2 ? Elem::b16 : es == 4 ? Elem::b32 : Elem::b64);
    const auto p = broadcastPush<kernels::where::Push>(n, ctx.value(n.outputs[0]).shape,
                                                       {ctx.value(n.inputs[0]).shape, x.shape, ctx.value(n.inputs[2]).shape});
    Dispatch& d = ctx.emit(kernel);
    setActivation(d, graph::Activation{});
    d.setPush(p);
    setLaunch1d(d, p.count);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1]), readOf(n.inputs[2])};
}

}  // namespace

void registerCompareOps(std::vector<OpDef>& t) {
    // Opset 7 replaced the broadcast/axis attributes with NumPy broadcasting.
    for (const char* op : {"Equal", "Less", "Greater", "And", "Or", "Xor"})
        t.push_back(withFp16({op, 7, 1000, inferCompare, evalCompare, lowerCompare}));
    for (const char* op : {"LessOrEqual", "GreaterOrEqual"})
        t.push_back(withFp16({op, 12, 1000, inferCompare, evalCompare, lowerCompare}));
    t.push_back(withFp16({"Not", 1, 1000, inferNot, evalNot, lowerNot}));
    t.push_back(withFp16({"Where", 9, 1000, inferWhere, evalWhere, lowerWhere}));
}

}  // namespace vkinfer::ops
