#include "ops/node_checks.h"

#include <algorithm>
#include <limits>

namespace vkinfer::ops {

const Tensor& constantInput(const Graph& g, const Node& n, size_t i, const char* what) {
    const auto& v = inputValue(g, n, i);
    if (!v.constant)
        unsupported(n, "{} (input {} '{}') must be a constant or computable from input shapes", what, i, v.name);
    return *v.constant;
}

const Tensor* optionalConstant(const Graph& g, const Node& n, size_t i, const char* what) {
    return n.input(i) >= 0 ? &constantInput(g, n, i, what) : nullptr;
}

std::vector<int64_t> tensorInts(const Tensor& t) {
    std::vector<int64_t> out(static_cast<size_t>(t.elementCount()));
    for (size_t i = 0; i < out.size(); ++i) out[i] = t.getInt(static_cast<int64_t>(i));
    return out;
}

void requireRank(const Node& n, const Shape& s, size_t rank, const char* what) {
    if (s.size() != rank) shapeError(n, "{} must have rank {}, got shape {}", what, rank, shapeToString(s));
}

void requireFloat(const Graph& g, const Node& n, size_t i) {
    const auto& v = inputValue(g, n, i);
    if (v.dtype != DataType::Float32)
        unsupported(n, "input '{}' is {}; this operator runs on float32 only", v.name, dataTypeName(v.dtype));
}

int64_t normalizeAxis(const Node& n, int64_t axis, int64_t rank) {
    // Callers index the shape at the axis, so a scalar has none (ONNX's range [-r, r-1] is empty).
    if (rank == 0) shapeError(n, "axis {} needs an input of rank 1 or more, got a scalar", axis);
    if (axis < -rank || axis >= rank) shapeError(n, "axis {} is out of range for rank {}", axis, rank);
    return axis < 0 ? axis + rank : axis;
}

AxisLines axisLines(const Shape& x, size_t axis) {
    AxisLines l;
    for (size_t d = 0; d < x.size(); ++d) (d < axis ? l.outer : d == axis ? l.along : l.inner) *= x[d];
    return l;
}

void requireIndexable(const Node& n, int64_t elements) {
    if (elements > std::numeric_limits<int32_t>::max())
        unsupported(n, "tensor of {} elements exceeds the kernels' 32-bit indexing", elements);
}

}  // namespace vkinfer::ops
