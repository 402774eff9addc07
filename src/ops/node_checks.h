// What a node may be, checked where it is inferred and lowered: its inputs, attributes and
// shapes, with errors that name the node (ShapeError, Unsupported).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/error.h"
#include "graph/graph.h"

namespace vkinfer::ops {

using graph::Graph;
using graph::Node;
using graph::Shape;

template <class... Args>
[[noreturn]] void shapeError(const Node& n, fmt::format_string<Args...> format, Args&&... args) {
    throw Error(Status(ErrorCode::ShapeError, n.describe() + ": " + fmt::format(format, std::forward<Args>(args)...)));
}
template <class... Args>
[[noreturn]] void unsupported(const Node& n, fmt::format_string<Args...> format, Args&&... args) {
    throw Error(Status(ErrorCode::Unsupported, n.describe() + ": " + fmt::format(format, std::forward<Args>(args)...)));
}

// Attributes and constant inputs are data: a pad, stride, dilation, kernel extent, repeat or
// split size read from a model can be anything. Every tensor's shape is bounded (at most
// 2^40 bytes, passes/specialize.cpp), so refusing geometry values beyond 2^20 (no real
// model comes near) keeps convolution and pooling arithmetic inside int64; sums and
// products of values that are not bounded go through addChecked/mulChecked. Either way a
// hostile value is a shape error naming the node, never a signed overflow.
constexpr int64_t kMaxGeometryValue = int64_t{1} << 20;
inline void checkGeometry(const Node& n, const char* what, const std::vector<int64_t>& values, int64_t min) {
    for (int64_t v : values)
        if (v < min || v > kMaxGeometryValue)
            shapeError(n, "{} value {} is outside [{}, {}]", what, v, min, kMaxGeometryValue);
}
inline int64_t addChecked(const Node& n, int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) shapeError(n, "{} + {} overflows int64", a, b);
    return r;
}
inline int64_t mulChecked(const Node& n, int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r)) shapeError(n, "{} x {} overflows int64", a, b);
    return r;
}

// a x b for non-negative counts, INT64_MAX where that overflows (a work estimate, not a size).
inline int64_t mulSaturated(int64_t a, int64_t b) {
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? INT64_MAX : r;
}

inline const graph::Value& inputValue(const Graph& g, const Node& n, size_t i) {
    if (n.input(i) < 0) shapeError(n, "input {} is missing", i);
    return g.values[n.inputs[i]];
}
inline const Shape& inputShape(const Graph& g, const Node& n, size_t i) { return inputValue(g, n, i).shape; }

inline void setOutput(Graph& g, const Node& n, size_t i, DataType type, Shape shape) {
    if (i >= n.outputs.size() || n.outputs[i] < 0) return;
    auto& v = g.values[n.outputs[i]];
    v.dtype = type;
    v.shape = std::move(shape);
    v.hasShape = true;
}

// The constant tensor behind input i; throws Unsupported naming `what` if it is not constant.
const Tensor& constantInput(const Graph& g, const Node& n, size_t i, const char* what);
// Input i's constant value, or null when the input is omitted; throws Unsupported naming
// `what` if it is given but not constant. (Shape-determining operands: Slice starts, Pad
// pads, Tile repeats, ...)
const Tensor* optionalConstant(const Graph& g, const Node& n, size_t i, const char* what);
// The same in evaluate(): input i's tensor or null.
inline const Tensor* optionalInput(std::span<const Tensor* const> in, size_t i) {
    return i < in.size() ? in[i] : nullptr;
}
std::vector<int64_t> tensorInts(const Tensor& t);

void requireRank(const Node& n, const Shape& s, size_t rank, const char* what);
void requireFloat(const Graph& g, const Node& n, size_t i);
int64_t normalizeAxis(const Node& n, int64_t axis, int64_t rank);
// A tensor as [outer, along, inner] around dimension `axis` (the product of the dims before
// it, its own extent, the product of those after it): how the ops that walk lines along one
// axis (ArgMax/ArgMin, CumSum, TopK) address their elements.
struct AxisLines {
    int64_t outer = 1, along = 1, inner = 1;
};
AxisLines axisLines(const Shape& x, size_t axis);

// Throws Unsupported if a tensor is too large for 32-bit indexing in the kernels.
void requireIndexable(const Node& n, int64_t elements);

// Narrowing for push constants (sizes were checked by requireIndexable).
inline uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

}  // namespace vkinfer::ops
