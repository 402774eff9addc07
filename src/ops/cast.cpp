// Cast and CastLike between float32/float16/float64 and every integer type and bool (ONNX
// rules: float -> integer truncates toward zero, -> bool is x != 0; no saturation). The GPU
// runs one shaders/cast.comp variant per type pair, or two through an intermediate type.
#include <cmath>

#include "core/kernel_table.h"
#include "kernels/families/cast.h"
#include "ops/broadcast.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

bool castable(DataType t) { return t == DataType::Float16 || t == DataType::Bool || dataTypeSize(t) > 0; }

DataType targetType(const Graph& g, const Node& n) {
    if (n.opType == "CastLike") {
        const auto& like = inputValue(g, n, 1);
        if (like.dtype == DataType::String || !castable(like.dtype))
            unsupported(n, "casting to the type of '{}' ({}) is not supported", like.name, dataTypeName(like.dtype));
        return like.dtype;
    }
    int64_t to = n.attrInt("to", 0);
    DataType t = static_cast<DataType>(to);
    if (to <= 0 || to > static_cast<int64_t>(DataType::UInt64) || t == DataType::String || !castable(t))
        unsupported(n, "casting to ONNX type {} is not supported (bfloat16, string and complex types are not)", to);
    return t;
}

void inferCast(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    if (x.dtype == DataType::String || !castable(x.dtype))
        unsupported(n, "casting from {} is not supported", dataTypeName(x.dtype));
    setOutput(g, n, 0, targetType(g, n), x.shape);
}

// One element: S -> D by the ONNX rules (through double for float sources).
template <class D, class S>
D convert(S v) {
    if constexpr (std::is_same_v<D, bool>) {
        return v != S(0);
    } else if constexpr (std::is_floating_point_v<S> && std::is_integral_v<D>) {
        if (!std::isfinite(v)) return D(0);  // undefined in ONNX; kept deterministic
        double t = std::trunc(static_cast<double>(v));
        if constexpr (std::is_same_v<D, uint64_t>)
            if (t >= 9223372036854775808.0) return t >= 18446744073709551616.0 ? ~uint64_t{0} : static_cast<D>(t);
        // narrow targets keep the low bits, as the kernel does; past int64 saturates (undefined in C++)
        return static_cast<D>(integerFromDouble<int64_t>(t));
    } else {
        return static_cast<D>(v);
    }
}

void evalCast(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    out[0] = castTensor(n, *in[0], out[0].dtype());
}

// The cast variant for (from, to), if the build has one; bool reads as u8 but is written by
// its own variants (x != 0).
std::optional<kernels::KernelId> castKernel(DataType from, DataType to) {
    using kernels::cast::Dst;
    using kernels::cast::Src;
    auto src = [](DataType t) -> std::optional<Src> {
        switch (t) {
            case DataType::Float32: return Src::f32;
            case DataType::Float16: return Src::f16;
            case DataType::Float64: return Src::f64;
            case DataType::Int8: return Src::i8;
            case DataType::UInt8:
            case DataType::Bool: return Src::u8;
            case DataType::Int16: return Src::i16;
            case DataType::UInt16: return Src::u16;
            case DataType::Int32: return Src::i32;
            case DataType::UInt32: return Src::u32;
            case DataType::Int64: return Src::i64;
            case DataType::UInt64: return Src::u64;
            default: return std::nullopt;
        }
    }(from);
    auto dst = [](DataType t) -> std::optional<Dst> {
        switch (t) {
            case DataType::Float32: return Dst::f32;
            case DataType::Float16: return Dst::f16;
            case DataType::Float64: return Dst::f64;
            case DataType::Int8: return Dst::i8;
            case DataType::UInt8: return Dst::u8;
            case DataType::Bool: return Dst::b;
            case DataType::Int16: return Dst::i16;
            case DataType::UInt16: return Dst::u16;
            case DataType::Int32: return Dst::i32;
            case DataType::UInt32: return Dst::u32;
            case DataType::Int64: return Dst::i64;
            case DataType::UInt64: return Dst::u64;
            default: return std::nullopt;
        }
    }(to);
    if (!src || !dst) return std::nullopt;
    return kernels::cast::variant(*src, *dst);
}

bool hasCastKernel(DataType from, DataType to) { return castKernel(from, to).has_value(); }

void emitCastDispatch(LowerContext& ctx, const Node& n, int src, int dst, DataType from, DataType to) {
    int64_t count = ctx.value(src).elementCount();
    requireIndexable(n, count);
    const auto kernel = castKernel(from, to);
    if (!kernel) unsupported(n, "no GPU kernel casts {} to {}", dataTypeName(from), dataTypeName(to));
    Dispatch& d = ctx.emit(*kernel);
    setActivation(d, graph::Activation{});
    kernels::cast::Push p{};
    p.count = u32(count);
    d.setPush(p);
    setLaunch1d(d, count);
    d.bindings = {writeOf(dst), readOf(src)};
}

void lowerCast(LowerContext& ctx, const Node& n) {
    DataType from = ctx.value(n.inputs[0]).dtype, to = ctx.value(n.outputs[0]).dtype;
    emitCast(ctx, n, n.inputs[0], n.outputs[0], from, to);
}

}  // namespace

Tensor castTensor(const Node& n, const Tensor& t, DataType to) {
    if (t.dtype() == to) return t;
    Tensor src = toFloat32(t);
    DataType dst = to == DataType::Float16 ? DataType::Float32 : to;
    Tensor y(dst, src.shape());
    visitType(n, src.dtype(), [&]<class S>(S) {
        visitType(n, dst, [&]<class D>(D) {
            const S* ps = src.as<S>();
            D* pd = y.as<D>();
            for (int64_t i = 0, count = src.elementCount(); i < count; ++i) pd[i] = convert<D, S>(ps[i]);
        });
    });
    return narrowFromFloat32(y, to);
}

void emitCast(LowerContext& ctx, const Node& n, int src, int dst, DataType from, DataType to) {
    if (from == to || (from == DataType::Bool && to == DataType::UInt8)) {  // same bytes
        const Shape& s = ctx.value(src).shape;
        auto st = contiguousStrides(s);
        emitStridedCopy(ctx, n, src, dst, s, st, st, 0, 0, dataTypeSize(to));
        return;
    }
    if (hasCastKernel(from, to)) return emitCastDispatch(ctx, n, src, dst, from, to);
    // Pairs without a variant go through a type that holds every value of the source:
    // int64 for integers, float32 for floats (float64 -> int rounds through float32).
    for (DataType mid : {DataType::Int64, DataType::Float32, DataType::Int32}) {
        if (!hasCastKernel(from, mid) || !hasCastKernel(mid, to)) continue;
        if (mid == DataType::Int32 && dataTypeSize(from) > 4) continue;
        int tmp = ctx.addScratch(n.name + "_cast_" + dataTypeName(mid), mid, ctx.value(src).shape);
        emitCastDispatch(ctx, n, src, tmp, from, mid);
        emitCastDispatch(ctx, n, tmp, dst, mid, to);
        return;
    }
    unsupported(n, "no GPU kernel casts {} to {}", dataTypeName(from), dataTypeName(to));
}

void registerCastOps(std::vector<OpDef>& t) {
    t.push_back({"Cast", 6, 1000, inferCast, evalCast, lowerCast});  // opset 1-5 named the type by string
    t.push_back({"CastLike", 15, 1000, inferCast, evalCast, lowerCast});
}

}  // namespace vkinfer::ops
