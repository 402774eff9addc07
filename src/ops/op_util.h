// Helpers shared by the op implementations: shape checks, broadcasting, strides, grids.
#pragma once

#include <string>
#include <vector>

#include "core/error.h"
#include "graph/graph.h"
#include "ops/dispatch.h"
#include "ops/lower_context.h"

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
std::vector<int64_t> tensorInts(const Tensor& t);

void requireRank(const Node& n, const Shape& s, size_t rank, const char* what);
void requireFloat(const Graph& g, const Node& n, size_t i);
int64_t normalizeAxis(const Node& n, int64_t axis, int64_t rank);

// NumPy-style broadcast of two shapes; throws ShapeError naming the node.
Shape broadcastShapes(const Node& n, const Shape& a, const Shape& b);
// Row-major strides (in elements) of `s`.
std::vector<int64_t> contiguousStrides(const Shape& s);
// Strides of an operand of shape `in` read at every index of `out` (0 on broadcast dims),
// right-aligned to out's rank.
std::vector<int64_t> broadcastStrides(const Shape& in, const Shape& out);

// Workgroup grid for `count` invocations of size `local` along x (spilling into y beyond
// the 65535-group limit every device guarantees). Kernels fold y back with
// gl_NumWorkGroups.x * gl_WorkGroupSize.x.
std::array<uint32_t, 3> grid1d(int64_t count, uint32_t local);

// The variant of a typed kernel for `type` ("binary" + Float32 -> "binary_f32"); throws
// Unsupported naming the node, kernel and type when the build has no such variant.
std::string typedKernel(const Node& n, const std::string& base, DataType type);
// The suffix typed kernels use for `type` ("f32", "i64", "u8" for bool and uint8, ...).
const char* typeSuffix(DataType type);

// Narrowing for push constants (sizes were checked by requireIndexable).
inline uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

// Throws Unsupported if a tensor is too large for 32-bit indexing in the kernels.
void requireIndexable(const Node& n, int64_t elements);

// Drops unit dimensions and merges adjacent ones that are contiguous in every stride set,
// so that an index walk of any rank fits the kernels' 6 dimensions where possible.
// Returns false if more than 6 remain.
bool collapseDims(Shape& dims, std::vector<std::vector<int64_t>*> strides);

// Strided copy on the GPU: walks the index space `dims` of the output, reading `src`
// through `inStride` and writing `dst` through `outStride` (strides and offsets in elements
// of `elemSize` bytes: 1, 2, 4 or a multiple of 4). Emits nothing for an empty space.
void emitStridedCopy(LowerContext& ctx, const Node& n, int src, int dst, Shape dims, std::vector<int64_t> inStride,
                     std::vector<int64_t> outStride, int64_t inOffset, int64_t outOffset, size_t elemSize);
// The same walk on the CPU (the reference), for any element size.
void stridedCopyCpu(const Tensor& src, Tensor& dst, const Shape& dims, const std::vector<int64_t>& inStride,
                    const std::vector<int64_t>& outStride, int64_t inOffset, int64_t outOffset);

// The dtype-agnostic CPU copy used by views and layout ops.
Tensor reshapeCopy(const Tensor& t, const Shape& shape);

}  // namespace vkinfer::ops
