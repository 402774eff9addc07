// Helpers shared by the op implementations: shape checks, broadcasting, strides, grids.
#pragma once

#include <array>
#include <optional>
#include <string_view>
#include <initializer_list>
#include <span>
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
// A one-dimensional launch: workgroups of `local` invocations along x, grid1d's grid.
void setLaunch1d(Dispatch& d, int64_t count, uint32_t local = 256);

// The variant a family's variant(..., type) found (kernels/families/<family>.h); throws
// Unsupported naming the node, the family and the type when the build has none.
kernels::KernelId typedKernel(const Node& n, std::optional<kernels::KernelId> variant, std::string_view family,
                              DataType type);
// The suffix typed kernels use for `type` ("f32", "i64", "u8" for bool and uint8, ...).
const char* typeSuffix(DataType type);

// The element type a float kernel with float32 and float16 variants runs in for this node:
// the type of `value` (float32, or float16 under PlanOptions::precision = Float16); every
// value in `same` (-1 for an omitted operand is skipped) must have that type too (weights,
// bias, residual, ...). Throws Unsupported naming the node and tensor otherwise.
DataType floatKernelType(const LowerContext& ctx, const Node& n, int value, std::initializer_list<int> same = {});

// Narrowing for push constants (sizes were checked by requireIndexable).
inline uint32_t u32(int64_t v) { return static_cast<uint32_t>(v); }

// Split-K (conv2d.comp and gemm.comp with SPLITK): a product with fewer output tiles than
// half of targetGroups leaves a large GPU mostly idle (a 7x7 map with 256 channels is
// 4 tiles of 64x64 for 132 multiprocessors), so its reduction is split across workgroups
// when long enough. Returns the reduction indices per split (a multiple of kTileK, the
// kernel's BK: 16 for the tiled kernels, 32 for the cooperative-matrix ones), or K for no split.
// targetGroups: the workgroups a split aims at (a product with half as many tiles or more
// is left whole).
int64_t splitKChunk(int64_t tiles, int64_t K, int64_t kTileK = 16, int64_t targetGroups = 128);
// Parallel siblings: nodes that share a wave, and so the GPU, with node `n`: `input` fans out
// to 3 or more readers other than Concats (Inception's branch starts, attention's Q/K/V
// projections), or `n` writes a slice of an in-place Concat that another independent node
// also writes (SqueezeNet's expands, Inception's branch ends). A ResNet block input (2
// readers) does not count, nor do DenseNet's layers: the other slices of their Concat are
// their ancestors or descendants. parallelSiblings returns how many share the wave (1:
// none), the larger of the two counts; convolutions aim their split-K at
// kSplitTargetGroups / siblings (GoogLeNet's 7x7 branches are a few workgroups each
// otherwise; docs/BENCHMARKS.md). hasParallelSiblings: a GEMM with siblings is not split.
bool hasParallelSiblings(const LowerContext& ctx, const Node& n, int input);
int64_t parallelSiblings(const LowerContext& ctx, const Node& n, int input);

// Throws Unsupported if a tensor is too large for 32-bit indexing in the kernels.
void requireIndexable(const Node& n, int64_t elements);

// Drops unit dimensions and merges adjacent ones that are contiguous in every stride set,
// so that an index walk of any rank fits the kernels' 6 dimensions where possible.
// Returns false if more than 6 remain.
bool collapseDims(Shape& dims, std::vector<std::vector<int64_t>*> strides);

// DepthToSpace of NCHW value `src` into `dst` for node `n` (layout.cpp; a Conv that could not
// store its fused DepthToSpace shuffled).
void emitDepthToSpace(LowerContext& ctx, const Node& n, int src, int dst, int64_t blocksize, bool crd);
// Strided copy on the GPU: walks the index space `dims` of the output, reading `src`
// through `inStride` and writing `dst` through `outStride` (strides and offsets in elements
// of `elemSize` bytes: 1, 2, 4 or a multiple of 4). Emits nothing for an empty space.
void emitStridedCopy(LowerContext& ctx, const Node& n, int src, int dst, Shape dims, std::vector<int64_t> inStride,
                     std::vector<int64_t> outStride, int64_t inOffset, int64_t outOffset, size_t elemSize);
// The same walk on the CPU (the reference), for any element size.
void stridedCopyCpu(const Tensor& src, Tensor& dst, const Shape& dims, const std::vector<int64_t>& inStride,
                    const std::vector<int64_t>& outStride, int64_t inOffset, int64_t outOffset);
// Repeats the first `filled` bytes at p until `total` bytes hold copies of them, doubling the
// copied span each time: a few dozen memcpy calls for the broadcasts constant folding makes.
void repeatBytes(std::byte* p, size_t filled, size_t total);

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

// Visits every element of `out` in row-major order: f(outIndex, offsets) where offsets[k]
// is the element offset of operand k (of shape ins[k], broadcast NumPy-style to `out`).
template <size_t N, class F>
void broadcastWalk(const Shape& out, const std::array<Shape, N>& ins, F&& f) {
    const int64_t count = elementCount(out);
    if (count == 0) return;
    // Merged dims and the innermost one as a run without the carry: constant folding walks
    // up to tens of millions of elements, and in the sanitized fuzzer (-O0) the carry per
    // element made an Add of 8M floats take 30 s.
    Shape dims = out;
    std::array<std::vector<int64_t>, N> st;
    std::vector<std::vector<int64_t>*> ptrs;
    for (size_t k = 0; k < N; ++k) {
        st[k] = broadcastStrides(ins[k], out);
        ptrs.push_back(&st[k]);
    }
    collapseDims(dims, ptrs);  // (its limit of 6 dims is the kernels'; this walk has none)
    const size_t rank = dims.size();
    const int64_t inner = dims[rank - 1];
    std::array<int64_t, N> innerStride{};
    for (size_t k = 0; k < N; ++k) innerStride[k] = st[k][rank - 1];
    std::vector<int64_t> idx(rank, 0);
    std::array<int64_t, N> off{};
    for (int64_t i = 0; i < count; i += inner) {
        std::array<int64_t, N> o = off;
        for (int64_t j = 0; j < inner; ++j) {
            f(i + j, o);
            for (size_t k = 0; k < N; ++k) o[k] += innerStride[k];
        }
        for (size_t d = rank - 1; d-- > 0;) {
            for (size_t k = 0; k < N; ++k) off[k] += st[k][d];
            if (++idx[d] < dims[d]) break;
            for (size_t k = 0; k < N; ++k) off[k] -= st[k][d] * dims[d];
            idx[d] = 0;
        }
    }
}

// Push constants of the broadcasting kernels (binary.comp, eltwise.comp, compare.comp:
// N = 2; where.comp: N = 3): the output index space collapsed to at most 6 dims, and each
// operand's stride per dim (0 where it broadcasts).
template <size_t N>
struct BroadcastParams {
    uint32_t count, rank;
    uint32_t dims[6];
    uint32_t stride[N][6];
};

// Fills BroadcastParams for operands of shapes `ins` read at every index of `out`; throws
// Unsupported naming the node beyond 6 non-mergeable dims or 32-bit indexing.
template <size_t N>
BroadcastParams<N> broadcastParams(const Node& n, Shape out, const std::array<Shape, N>& ins) {
    int64_t count = elementCount(out);
    requireIndexable(n, count);
    std::array<std::vector<int64_t>, N + 1> st;
    st[0] = contiguousStrides(out);
    for (size_t k = 0; k < N; ++k) st[k + 1] = broadcastStrides(ins[k], out);
    std::vector<std::vector<int64_t>*> ptrs;
    for (auto& s : st) ptrs.push_back(&s);
    if (!collapseDims(out, ptrs)) unsupported(n, "broadcast over more than 6 non-mergeable dimensions");
    BroadcastParams<N> p{};
    p.count = u32(count);
    p.rank = u32(static_cast<int64_t>(out.size()));
    for (size_t i = 0; i < out.size(); ++i) {
        p.dims[i] = u32(out[i]);
        for (size_t k = 0; k < N; ++k) p.stride[k][i] = u32(st[k + 1][i]);
    }
    return p;
}

// Row-reducing kernels (reduce.comp, softmax.comp, norm.comp) reduce `rows` rows of
// `length` elements either one row per invocation (short rows, or enough rows to fill the
// GPU) or one row per workgroup (a power of two from 32 to 256 invocations, sized to the
// row, for the shared-memory tree). rowPerThread picks; setRowLaunch sets the launch.
inline bool rowPerThread(int64_t rows, int64_t length) { return length <= 32 || rows >= 16384; }
void setRowLaunch(Dispatch& d, int64_t rows, int64_t length, bool perThread);

// Element-type conversion (ONNX Cast rules: float -> int truncates toward zero, -> bool is
// x != 0). Defined in cast.cpp; used by ops that convert an operand on the fly (Pow with a
// mixed exponent type).
Tensor castTensor(const Node& n, const Tensor& t, DataType to);
// The GPU twin: one dispatch converting all of `src` (dtype `from`) into `dst` (`to`).
void emitCast(LowerContext& ctx, const Node& n, int src, int dst, DataType from, DataType to);

// The dtype-agnostic CPU copy used by views and layout ops.
Tensor reshapeCopy(const Tensor& t, const Shape& shape);

}  // namespace vkinfer::ops
