// Shape (opset 15 start/end), Size, ConstantOfShape and Range. None of them runs on the
// GPU: Shape and Size are known once input shapes are, so infer() sets their outputs as
// constants (specialize() then drops the node and folds what consumes them: Shape ->
// Gather -> Concat -> Reshape chains); ConstantOfShape and Range need constant inputs to
// have a shape at all, so specialize() always evaluates them on the CPU.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "ops/cpu_copy.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

// ---- Shape, Size ----

Tensor shapeTensor(const Node& n, const Shape& in) {
    const int64_t r = static_cast<int64_t>(in.size());
    int64_t start = n.attrInt("start", 0), end = n.attrInt("end", r);
    if (start < 0) start += r;
    if (end < 0) end += r;
    start = std::clamp<int64_t>(start, 0, r);
    end = std::clamp<int64_t>(end, 0, r);
    std::vector<int64_t> dims(in.begin() + start, in.begin() + std::max(start, end));
    return Tensor::fromVector(DataType::Int64, {static_cast<int64_t>(dims.size())}, dims);
}

void inferShape(Graph& g, const Node& n) {
    Tensor t = shapeTensor(n, inputShape(g, n, 0));
    setOutput(g, n, 0, DataType::Int64, t.shape());
    g.values[n.outputs[0]].constant = std::move(t);
}

void evalShape(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    out[0] = shapeTensor(n, in[0]->shape());
}

void inferSize(Graph& g, const Node& n) {
    setOutput(g, n, 0, DataType::Int64, {});
    g.values[n.outputs[0]].constant =
        Tensor::fromVector(DataType::Int64, {}, std::vector<int64_t>{elementCount(inputShape(g, n, 0))});
}

void evalSize(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    (void)n;
    out[0] = Tensor::fromVector(DataType::Int64, {}, std::vector<int64_t>{in[0]->elementCount()});
}

// ---- ConstantOfShape ----

Tensor fillValue(const Node& n) {
    if (const Tensor* v = n.attrTensor("value")) {
        if (v->elementCount() != 1) shapeError(n, "value must hold one element, has {}", v->elementCount());
        return *v;
    }
    return Tensor(DataType::Float32, {1});  // default: float32 zero
}

Shape targetShape(const Node& n, const Tensor& t) {
    if (t.shape().size() > 1) shapeError(n, "the shape input must be 1-D");
    Shape s = tensorInts(t);
    for (int64_t d : s)
        if (d < 0) shapeError(n, "negative dimension {} in {}", d, shapeToString(s));
    return s;
}

void inferConstantOfShape(Graph& g, const Node& n) {
    setOutput(g, n, 0, fillValue(n).dtype(), targetShape(n, constantInput(g, n, 0, "the shape")));
}

void evalConstantOfShape(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    Tensor v = fillValue(n);
    Tensor t(v.dtype(), targetShape(n, *in[0]));
    // One element, then doubling copies (a per-element loop took over 25 s in the sanitized
    // fuzzer, -O0, for the tens of millions of elements the fold budget allows).
    if (t.byteSize() > 0) {
        std::memcpy(t.data(), v.data(), dataTypeSize(v.dtype()));
        repeatBytes(t.data(), dataTypeSize(v.dtype()), t.byteSize());
    }
    out[0] = std::move(t);
}

// ---- Range ----

void requireScalar(const Node& n, const Tensor& t, const char* what) {
    if (t.elementCount() != 1) shapeError(n, "{} must be a scalar, got shape {}", what, shapeToString(t.shape()));
}

int64_t rangeLength(const Node& n, const Tensor& start, const Tensor& limit, const Tensor& delta) {
    requireScalar(n, start, "start");
    requireScalar(n, limit, "limit");
    requireScalar(n, delta, "delta");
    if (start.dtype() != limit.dtype() || start.dtype() != delta.dtype())
        shapeError(n, "start, limit and delta must have the same type");
    if (isFloatType(start.dtype())) {
        double s = start.getDouble(0), l = limit.getDouble(0), d = delta.getDouble(0);
        if (d == 0) shapeError(n, "delta is zero");
        // (A NaN or a length past int64 converted to an integer is undefined.)
        double len = std::ceil((l - s) / d);
        if (std::isnan(len) || len >= 0x1p62)
            shapeError(n, "start {}, limit {} and delta {} do not give a plannable length", s, l, d);
        return len > 0 ? static_cast<int64_t>(len) : 0;
    }
    int64_t s = start.getInt(0), l = limit.getInt(0), d = delta.getInt(0);
    if (d == 0) shapeError(n, "delta is zero");
    // ceil((l - s) / d) in integers. Magnitudes in uint64: l - s overflows int64 for extreme
    // bounds, and -d for delta INT64_MIN.
    if (d > 0 ? l <= s : l >= s) return 0;
    uint64_t span = d > 0 ? static_cast<uint64_t>(l) - static_cast<uint64_t>(s)
                          : static_cast<uint64_t>(s) - static_cast<uint64_t>(l);
    uint64_t step = d > 0 ? static_cast<uint64_t>(d) : 0 - static_cast<uint64_t>(d);
    uint64_t q = span / step + (span % step != 0);
    if (q >= uint64_t{1} << 62) shapeError(n, "start {}, limit {} and delta {} give too many elements", s, l, d);
    return static_cast<int64_t>(q);
}

void inferRange(Graph& g, const Node& n) {
    const Tensor& s = constantInput(g, n, 0, "start");
    const Tensor& l = constantInput(g, n, 1, "limit");
    const Tensor& d = constantInput(g, n, 2, "delta");
    setOutput(g, n, 0, s.dtype(), {rangeLength(n, s, l, d)});
}

void evalRange(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    if (in[0]->dtype() == DataType::Float16) {  // computed in float (stash_type 1, opset 27), stored as float16
        if (n.attrInt("stash_type", 1) != 1)
            unsupported(n, "Range with stash_type {}: float16 ranges are computed in float32 (stash_type 1)",
                        n.attrInt("stash_type", 1));
        const Tensor s = toFloat32(*in[0]), l = toFloat32(*in[1]), d = toFloat32(*in[2]);
        const Tensor* wide[] = {&s, &l, &d};
        std::vector<Tensor> y(1);
        evalRange(n, wide, y);
        out[0] = narrowFromFloat32(y[0], DataType::Float16);
        return;
    }
    int64_t len = rangeLength(n, *in[0], *in[1], *in[2]);
    Tensor t(in[0]->dtype(), {len});
    visitType(n, t.dtype(), [&](auto zero) {
        using T = decltype(zero);
        if constexpr (std::is_same_v<T, bool>) {
            unsupported(n, "Range over bool");
        } else {
            // output[i] = start + i * delta in the element type, as the spec writes it.
            T s, d;
            std::memcpy(&s, in[0]->data(), sizeof(T));
            std::memcpy(&d, in[2]->data(), sizeof(T));
            for (int64_t i = 0; i < len; ++i) {
                if constexpr (std::is_integral_v<T>) {
                    // Every element lies between start and limit, but i * delta alone can
                    // overflow (start -2^63, delta 2^62): modulo 2^64 it comes out right.
                    t.as<T>()[i] = static_cast<T>(static_cast<uint64_t>(s) +
                                                  static_cast<uint64_t>(i) * static_cast<uint64_t>(d));
                } else {
                    t.as<T>()[i] = static_cast<T>(s + static_cast<T>(i) * d);
                }
            }
        }
    });
    out[0] = std::move(t);
}

}  // namespace

void registerShapeOps(std::vector<OpDef>& t) {
    // Shape and Size read only their input's shape, whatever its type.
    t.push_back(withFp16({"Shape", 1, 1000, inferShape, evalShape, nullptr}));
    t.push_back(withFp16({"Size", 1, 1000, inferSize, evalSize, nullptr}));
    t.push_back({"ConstantOfShape", 9, 1000, inferConstantOfShape, evalConstantOfShape, nullptr});
    t.push_back(withFp16({"Range", 11, 1000, inferRange, evalRange, nullptr}));
}

}  // namespace vkinfer::ops
