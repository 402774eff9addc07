// Reductions: ReduceSum/Mean/Max/Min/Prod/SumSquare/L1/L2/LogSum/LogSumExp over any set of
// axes (an attribute before opset 13 for ReduceSum and 18 for the others, an input after;
// keepdims, noop_with_empty_axes), and ArgMax/ArgMin (axis, keepdims, select_last_index).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "kernels/families/argreduce.h"
#include "kernels/families/reduce.h"
#include "ops/broadcast.h"
#include "ops/cpu_copy.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/reduce.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

// Matches OP in shaders/reduce.comp.
enum class ReduceOp : uint32_t { Sum = 0, Mean, Max, Min, Prod, SumSquare, L1, L2, LogSum, LogSumExp };

ReduceOp reduceOpOf(const Node& n) {
    static const std::pair<const char*, ReduceOp> ops[] = {
        {"ReduceSum", ReduceOp::Sum},       {"ReduceMean", ReduceOp::Mean},
        {"ReduceMax", ReduceOp::Max},       {"ReduceMin", ReduceOp::Min},
        {"ReduceProd", ReduceOp::Prod},     {"ReduceSumSquare", ReduceOp::SumSquare},
        {"ReduceL1", ReduceOp::L1},         {"ReduceL2", ReduceOp::L2},
        {"ReduceLogSum", ReduceOp::LogSum}, {"ReduceLogSumExp", ReduceOp::LogSumExp},
    };
    for (const auto& [name, op] : ops)
        if (n.opType == name) return op;
    unsupported(n, "not a reduction");
}

// Sorted, normalized reduced axes; `noop` when the axes are empty and noop_with_empty_axes
// asks for the identity. `axesInput` is input 1 (opset 13/18 on) if given.
struct ReduceAxes {
    std::vector<int64_t> axes;
    bool noop = false;
};

ReduceAxes reduceAxes(const Node& n, const Tensor* axesInput, int64_t rank) {
    std::vector<int64_t> raw = axesInput ? tensorInts(*axesInput) : n.attrInts("axes");
    ReduceAxes r;
    if (raw.empty()) {
        if (n.attrInt("noop_with_empty_axes", 0) != 0) {
            r.noop = true;
            return r;
        }
        for (int64_t d = 0; d < rank; ++d) r.axes.push_back(d);
        return r;
    }
    for (int64_t a : raw) r.axes.push_back(normalizeAxis(n, a, rank));
    std::sort(r.axes.begin(), r.axes.end());
    if (std::adjacent_find(r.axes.begin(), r.axes.end()) != r.axes.end()) shapeError(n, "axes repeat an axis");
    return r;
}

// The input walked as kept dims (in order: the output's row-major order) by reduced dims,
// each with its input strides.
struct ReduceLayout {
    Shape kept, red;
    std::vector<int64_t> keptStride, redStride;
};

ReduceLayout reduceLayout(const Shape& x, const std::vector<int64_t>& axes) {
    ReduceLayout l;
    auto st = contiguousStrides(x);
    for (size_t d = 0; d < x.size(); ++d) {
        bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
        (reduced ? l.red : l.kept).push_back(x[d]);
        (reduced ? l.redStride : l.keptStride).push_back(st[d]);
    }
    return l;
}

// The axes input's values: constant, or none when it has no elements (then its shape alone
// says so, even for a graph input). Null when the input is omitted.
std::optional<Tensor> axesInputOf(const Graph& g, const Node& n) {
    if (n.input(1) < 0) return std::nullopt;
    if (inputValue(g, n, 1).elementCount() == 0) return Tensor(DataType::Int64, {0});
    return constantInput(g, n, 1, "axes");
}

bool integerOnlyOk(ReduceOp op) { return op != ReduceOp::L2 && op != ReduceOp::LogSum && op != ReduceOp::LogSumExp; }

// One output element of the reference from its reduced values (double for floats and for
// L2/LogSum/LogSumExp, exact int64 otherwise).
double reduceValues(ReduceOp op, const std::vector<double>& v) {
    double acc = op == ReduceOp::Prod ? 1.0 : 0.0;
    if (op == ReduceOp::Max) acc = -std::numeric_limits<double>::infinity();
    if (op == ReduceOp::Min) acc = std::numeric_limits<double>::infinity();
    double m = 0;
    if (op == ReduceOp::LogSumExp) {
        m = -std::numeric_limits<double>::infinity();
        for (double e : v) m = std::max(m, e);
        if (std::isinf(m)) m = 0;
    }
    for (double e : v) {
        switch (op) {
            // NaN propagates (NumPy's maximum.reduce): std::max(-inf, NaN) returned -inf.
            case ReduceOp::Max: acc = std::isnan(acc) || !(std::isnan(e) || e > acc) ? acc : e; break;
            case ReduceOp::Min: acc = std::isnan(acc) || !(std::isnan(e) || e < acc) ? acc : e; break;
            case ReduceOp::Prod: acc *= e; break;
            case ReduceOp::SumSquare:
            case ReduceOp::L2: acc += e * e; break;
            case ReduceOp::L1: acc += std::abs(e); break;
            case ReduceOp::LogSumExp: acc += std::exp(e - m); break;
            default: acc += e; break;
        }
    }
    switch (op) {
        case ReduceOp::Mean: return acc / static_cast<double>(v.size());
        case ReduceOp::L2: return std::sqrt(acc);
        case ReduceOp::LogSum: return std::log(acc);
        case ReduceOp::LogSumExp: return m + std::log(acc);
        default: return acc;
    }
}

template <class T>
T reduceInts(ReduceOp op, const std::vector<T>& v) {
    // Wraps like the kernel: sums and products in uint64_t (narrower unsigned types would
    // promote to int and overflow there), whose low bits are T's.
    uint64_t acc = op == ReduceOp::Prod ? 1 : 0;
    if ((op == ReduceOp::Max || op == ReduceOp::Min) && !v.empty()) acc = static_cast<uint64_t>(v[0]);
    // An empty set's maximum is the type's lowest value and its minimum the highest (ONNX).
    if (op == ReduceOp::Max && v.empty()) return std::numeric_limits<T>::lowest();
    if (op == ReduceOp::Min && v.empty()) return std::numeric_limits<T>::max();
    for (T e : v) {
        const uint64_t u = static_cast<uint64_t>(e);
        switch (op) {
            case ReduceOp::Max: acc = static_cast<uint64_t>(std::max(static_cast<T>(acc), e)); break;
            case ReduceOp::Min: acc = static_cast<uint64_t>(std::min(static_cast<T>(acc), e)); break;
            case ReduceOp::Prod: acc *= u; break;
            case ReduceOp::SumSquare: acc += u * u; break;
            case ReduceOp::L1: acc += e < T(0) ? uint64_t{0} - u : u; break;  // |MIN| wraps to MIN
            default: acc += u; break;
        }
    }
    T r = static_cast<T>(acc);
    if (op == ReduceOp::Mean && !v.empty()) {  // the wrapped sum divided by the count, toward zero
        if constexpr (std::is_signed_v<T>)
            r = static_cast<T>(static_cast<int64_t>(r) / static_cast<int64_t>(v.size()));
        else
            r = static_cast<T>(static_cast<uint64_t>(r) / static_cast<uint64_t>(v.size()));
    } else if (op == ReduceOp::Mean) {
        r = T(0);
    }
    return r;
}

void evalReduce(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    // Bool (ReduceMax: any, ReduceMin: all) as uint8, whose empty max is 0 (false) and min 255 (true).
    const bool isBool = in[0]->dtype() == DataType::Bool;
    Tensor x = isBool ? castTensor(n, *in[0], DataType::UInt8) : toFloat32(*in[0]);
    ReduceAxes a = reduceAxes(n, in.size() > 1 ? in[1] : nullptr, static_cast<int64_t>(x.shape().size()));
    if (a.noop) {
        out[0] = *in[0];
        return;
    }
    ReduceOp op = reduceOpOf(n);
    ReduceLayout l = reduceLayout(x.shape(), a.axes);
    Tensor y(x.dtype(), out[0].shape());
    int64_t redCount = elementCount(l.red);
    visitType(n, x.dtype(), [&]<class T>(T) {
        const T* px = x.as<T>();
        T* py = y.as<T>();
        broadcastWalk<0>(l.kept, {}, [&](int64_t o, const std::array<int64_t, 0>&) {
            int64_t base = 0, rem = o;
            for (size_t d = l.kept.size(); d-- > 0;) {
                base += (rem % l.kept[d]) * l.keptStride[d];
                rem /= l.kept[d];
            }
            std::vector<T> vals;
            vals.reserve(static_cast<size_t>(redCount));
            broadcastWalk<0>(l.red, {}, [&](int64_t r, const std::array<int64_t, 0>&) {
                int64_t off = 0;
                for (size_t d = l.red.size(); d-- > 0;) {
                    off += (r % l.red[d]) * l.redStride[d];
                    r /= l.red[d];
                }
                vals.push_back(px[base + off]);
            });
            if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
                if (integerOnlyOk(op)) {
                    py[o] = reduceInts(op, vals);
                    return;
                }
            }
            std::vector<double> d(vals.begin(), vals.end());
            if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
                py[o] = integerFromDouble<T>(reduceValues(op, d));  // a log-sum of zeros is -inf
            else
                py[o] = static_cast<T>(reduceValues(op, d));
        });
    });
    out[0] = isBool ? castTensor(n, y, DataType::Bool) : narrowFromFloat32(y, in[0]->dtype());
}

void inferReduce(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    auto axesInput = axesInputOf(g, n);
    ReduceAxes a = reduceAxes(n, axesInput ? &*axesInput : nullptr, static_cast<int64_t>(x.shape.size()));
    // Bool is defined for ReduceMax and ReduceMin (opset 20: any and all).
    const bool boolOk = n.opType == "ReduceMax" || n.opType == "ReduceMin";
    if ((x.dtype == DataType::Bool && !boolOk) || dataTypeSize(x.dtype) == 0)
        unsupported(n, "{} is not supported for {} input '{}'", n.opType, dataTypeName(x.dtype), x.name);
    if (a.noop) return setOutput(g, n, 0, x.dtype, x.shape);
    bool keep = n.attrInt("keepdims", 1) != 0;
    Shape out;
    for (size_t d = 0; d < x.shape.size(); ++d) {
        bool reduced = std::find(a.axes.begin(), a.axes.end(), static_cast<int64_t>(d)) != a.axes.end();
        if (!reduced) out.push_back(x.shape[d]);
        else if (keep) out.push_back(1);
    }
    setOutput(g, n, 0, x.dtype, out);
    // A reduction over an empty axis reads nothing: its output is the operation's value for
    // an empty set (0 for sums, -inf for max, 1 for products, NaN for a mean), a constant that
    // specialize() folds, so no kernel binds the empty input.
    if (x.elementCount() == 0 && elementCount(out) > 0) {
        const Tensor empty(x.dtype, x.shape);
        const Tensor* in[] = {&empty, axesInput ? &*axesInput : nullptr};
        std::vector<Tensor> y(1, Tensor(x.dtype, out));
        evalReduce(n, std::span<const Tensor* const>(in, axesInput ? 2 : 1), y);
        g.values[n.outputs[0]].constant = std::move(y[0]);
    }
}

// One reduce.comp dispatch: `dst` (contiguous, in the order of l.kept) from `src` walked
// through l's strides.
void emitReduce(LowerContext& ctx, const Node& n, ReduceOp op, int src, int dst, ReduceLayout l) {
    const DataType type = ctx.value(src).dtype;
    int64_t outCount = elementCount(l.kept), redCount = elementCount(l.red);
    requireIndexable(n, ctx.value(src).elementCount());
    if (redCount == 0) unsupported(n, "reduction over an empty axis is not supported on the GPU");
    auto outStride = contiguousStrides(l.kept);
    if (!collapseDims(l.kept, {&l.keptStride, &outStride}) || !collapseDims(l.red, {&l.redStride}))
        unsupported(n, "reduction over more than 6 non-mergeable dimensions");
    kernels::reduce::Push p{};
    p.outCount = u32(outCount);
    p.redCount = u32(redCount);
    p.keptRank = u32(static_cast<int64_t>(l.kept.size()));
    p.redRank = u32(static_cast<int64_t>(l.red.size()));
    for (size_t i = 0; i < l.kept.size(); ++i) {
        p.keptDims[i] = u32(l.kept[i]);
        p.keptStride[i] = u32(l.keptStride[i]);
    }
    for (size_t i = 0; i < l.red.size(); ++i) {
        p.redDims[i] = u32(l.red[i]);
        p.redStride[i] = u32(l.redStride[i]);
    }
    bool perThread = rowPerThread(outCount, redCount);
    Dispatch& d = ctx.emit(typedKernel(n, kernels::reduce::variant(type), "reduce", type));
    setActivation(d, graph::Activation{});
    d.setSpec(kernels::reduce::kOp, static_cast<uint32_t>(op));
    d.setSpec(kernels::reduce::kPerThread, perThread ? 1 : 0);
    d.setPush(p);
    setRowLaunch(d, outCount, redCount, perThread);
    d.bindings = {writeOf(dst), readOf(src)};
}

void lowerReduce(LowerContext& ctx, const Node& n) {
    const auto& xv = ctx.value(n.inputs[0]);
    auto axesInput = axesInputOf(ctx.graph(), n);
    ReduceAxes a = reduceAxes(n, axesInput ? &*axesInput : nullptr, static_cast<int64_t>(xv.shape.size()));
    if (a.noop) {
        auto st = contiguousStrides(xv.shape);
        emitStridedCopy(ctx, n, n.inputs[0], n.outputs[0], xv.shape, st, st, 0, 0, dataTypeSize(xv.dtype));
        return;
    }
    ReduceOp op = reduceOpOf(n);
    if (xv.dtype == DataType::Float64)
        unsupported(n, "{} of float64 tensors runs on the CPU reference only (the engine does not enable shaderFloat64)",
                    n.opType);
    if (!isFloatType(xv.dtype) && !integerOnlyOk(op))
        unsupported(n, "{} of {} tensors runs on the CPU reference only", n.opType, dataTypeName(xv.dtype));
    ReduceLayout layout = reduceLayout(xv.shape, a.axes);
    if (xv.dtype == DataType::Bool) {  // any / all, as int32 (the kernel has no byte type)
        const Shape in = xv.shape, out = ctx.value(n.outputs[0]).shape;  // copies: addScratch grows the table
        const int wide = ctx.addScratch(n.name + "_int32", DataType::Int32, in);
        const int reduced = ctx.addScratch(n.name + "_reduced", DataType::Int32, out);
        emitCast(ctx, n, n.inputs[0], wide, DataType::Bool, DataType::Int32);
        emitReduce(ctx, n, op, wide, reduced, std::move(layout));
        emitCast(ctx, n, reduced, n.outputs[0], DataType::Int32, DataType::Bool);
        return;
    }
    emitReduce(ctx, n, op, n.inputs[0], n.outputs[0], std::move(layout));
}

// ArgMax / ArgMin.
AxisLines argLayout(const Node& n, const Shape& x) {
    return axisLines(x, static_cast<size_t>(normalizeAxis(n, n.attrInt("axis", 0), static_cast<int64_t>(x.size()))));
}

void inferArg(Graph& g, const Node& n) {
    const auto& x = inputValue(g, n, 0);
    if (dataTypeSize(x.dtype) == 0) unsupported(n, "{} is not supported for {} input", n.opType, dataTypeName(x.dtype));
    int64_t axis = normalizeAxis(n, n.attrInt("axis", 0), static_cast<int64_t>(x.shape.size()));
    if (x.shape.empty()) shapeError(n, "input must have rank >= 1");
    if (x.shape[axis] == 0) shapeError(n, "the reduced axis is empty");
    Shape out;
    for (int64_t d = 0; d < static_cast<int64_t>(x.shape.size()); ++d) {
        if (d != axis) out.push_back(x.shape[d]);
        else if (n.attrInt("keepdims", 1) != 0) out.push_back(1);
    }
    setOutput(g, n, 0, DataType::Int64, out);
}

void evalArg(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    Tensor x = toFloat32(*in[0]);
    const AxisLines l = argLayout(n, x.shape());
    bool isMin = n.opType == "ArgMin", last = n.attrInt("select_last_index", 0) != 0;
    int64_t* py = out[0].as<int64_t>();
    visitType(n, x.dtype(), [&]<class T>(T) {
        const T* px = x.as<T>();
        for (int64_t o = 0; o < l.outer * l.inner; ++o) {
            int64_t base = (o / l.inner) * l.along * l.inner + o % l.inner, best = 0;
            for (int64_t k = 1; k < l.along; ++k) {
                T v = px[base + k * l.inner], b = px[base + best * l.inner];
                bool better = isMin ? (last ? v <= b : v < b) : (last ? v >= b : v > b);
                if (better) best = k;
            }
            py[o] = best;
        }
    });
}

void lowerArg(LowerContext& ctx, const Node& n) {
    const auto& xv = ctx.value(n.inputs[0]);
    const AxisLines l = argLayout(n, xv.shape);
    int64_t count = l.outer * l.inner;
    requireIndexable(n, xv.elementCount());
    Dispatch& d = ctx.emit(typedKernel(n, kernels::argreduce::variant(xv.dtype), "argreduce", xv.dtype));
    setActivation(d, graph::Activation{});
    d.setSpec(kernels::argreduce::kIsMin, n.opType == "ArgMin" ? 1 : 0);
    d.setSpec(kernels::argreduce::kLastIndex, n.attrInt("select_last_index", 0) != 0 ? 1 : 0);
    kernels::argreduce::Push p{};
    p.count = u32(count);
    p.axis = u32(l.along);
    p.inner = u32(l.inner);
    d.setPush(p);
    setLaunch1d(d, count, 64);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0])};
}

}  // namespace

void emitStridedSum(LowerContext& ctx, const Node& n, int src, int dst, Shape kept, std::vector<int64_t> keptStride,
                    Shape red, std::vector<int64_t> redStride) {
    emitReduce(ctx, n, ReduceOp::Sum, src, dst, {std::move(kept), std::move(red), std::move(keptStride), std::move(redStride)});
}

void registerReduceOps(std::vector<OpDef>& t) {
    for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceSumSquare", "ReduceL1",
                           "ReduceL2", "ReduceLogSum", "ReduceLogSumExp"})
        t.push_back(withFp16({op, 1, 1000, inferReduce, evalReduce, lowerReduce}));
    for (const char* op : {"ArgMax", "ArgMin"}) t.push_back(withFp16({op, 1, 1000, inferArg, evalArg, lowerArg}));
}

}  // namespace vkinfer::ops
