// Element types and bytes on the CPU: the typed visit of the references, float16 widening,
// casts, and the copies that views, layout ops and constant folding make.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "ops/node_checks.h"

namespace vkinfer::ops {

// The same walk on the CPU (the reference), for any element size.
void stridedCopyCpu(const Tensor& src, Tensor& dst, const Shape& dims, const std::vector<int64_t>& inStride,
                    const std::vector<int64_t>& outStride, int64_t inOffset, int64_t outOffset);
// Repeats the first `filled` bytes at p until `total` bytes hold copies of them, doubling the
// copied span each time: a few dozen memcpy calls for the broadcasts constant folding makes.
void repeatBytes(std::byte* p, size_t filled, size_t total);
// The dtype-agnostic CPU copy used by views and layout ops.
Tensor reshapeCopy(const Tensor& t, const Shape& shape);

// ---- Typed element-wise helpers (unary, elementwise, compare, cast, reduce) ----

// Calls f(T{}) with the C++ type that stores elements of `type` (bool for Bool, one byte);
// Float16 is not visited: convert it with toFloat32 first. Throws Unsupported naming the
// node for any other type.
template <class F>
decltype(auto) visitType(const Node& n, DataType type, F&& f) {
    switch (type) {
        case DataType::Float32: return f(float{});
        case DataType::Float64: return f(double{});
        case DataType::Int8: return f(int8_t{});
        case DataType::UInt8: return f(uint8_t{});
        case DataType::Int16: return f(int16_t{});
        case DataType::UInt16: return f(uint16_t{});
        case DataType::Int32: return f(int32_t{});
        case DataType::UInt32: return f(uint32_t{});
        case DataType::Int64: return f(int64_t{});
        case DataType::UInt64: return f(uint64_t{});
        case DataType::Bool: return f(bool{});
        default: unsupported(n, "{} is not supported for {} tensors", n.opType, dataTypeName(type));
    }
}

inline bool isFloatType(DataType t) {
    return t == DataType::Float32 || t == DataType::Float16 || t == DataType::Float64;
}
// A Float16 tensor widened to Float32 (other tensors are returned unchanged), and back.
Tensor toFloat32(const Tensor& t);
Tensor narrowFromFloat32(const Tensor& t, DataType type);

// A double computed from integer operands (a mean, a log-sum) stored as integer T: toward
// zero, NaN as 0, values past T's range saturated (C++ leaves those conversions undefined;
// ONNX does not say).
template <class T>
T integerFromDouble(double v) {
    static_assert(std::is_integral_v<T>);
    if (std::isnan(v)) return T(0);
    if (v <= static_cast<double>(std::numeric_limits<T>::min())) return std::numeric_limits<T>::min();
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
}

// Element-type conversion (ONNX Cast rules: float -> int truncates toward zero, -> bool is
// x != 0). Defined in cast.cpp; used by ops that convert an operand on the fly (Pow with a
// mixed exponent type).
Tensor castTensor(const Node& n, const Tensor& t, DataType to);

}  // namespace vkinfer::ops
