// What the lowerings share to emit dispatches: launch grids, the kernel variant for an element
// type, the float type a kernel runs in, and the copy, cast and shuffle dispatches other ops
// are built from.
#pragma once

#include <array>
#include <initializer_list>
#include <optional>
#include <string_view>
#include <vector>

#include "kernels/kernel_ids.h"
#include "ops/dispatch.h"
#include "ops/lower_context.h"
#include "ops/node_checks.h"

namespace vkinfer::ops {

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

// Row-reducing kernels (reduce.comp, softmax.comp, norm.comp) reduce `rows` rows of
// `length` elements either one row per invocation (short rows, or enough rows to fill the
// GPU) or one row per workgroup (a power of two from 32 to 256 invocations, sized to the
// row, for the shared-memory tree). rowPerThread picks; setRowLaunch sets the launch.
inline bool rowPerThread(int64_t rows, int64_t length) { return length <= 32 || rows >= 16384; }
void setRowLaunch(Dispatch& d, int64_t rows, int64_t length, bool perThread);

// DepthToSpace of NCHW value `src` into `dst` for node `n` (layout.cpp; a Conv that could not
// store its fused DepthToSpace shuffled).
void emitDepthToSpace(LowerContext& ctx, const Node& n, int src, int dst, int64_t blocksize, bool crd);
// What a copy from a `from` tensor into a `to` tensor converts on the way: float32 <->
// float16 where a Cast was folded into it (passes/cast_folding.h), else nothing (the bytes
// move as they are).
enum class FloatConversion { None, F32ToF16, F16ToF32 };
FloatConversion floatConversion(DataType from, DataType to);
// Copies of at least this many elements get their dims as specialization constants (one
// pipeline per shape, divisions by constants; shaders/copy_strided.comp); smaller ones share
// the pipeline that reads them from push constants, where a pipeline per shape would cost
// more to build than its divisions cost to run.
inline constexpr int64_t kSpecializedCopyElements = int64_t{1} << 20;
// Strided copy on the GPU: walks the index space `dims` of the output, reading `src`
// through `inStride` and writing `dst` through `outStride` (strides and offsets in elements
// of `elemSize` bytes: 1, 2, 4 or a multiple of 4). Emits nothing for an empty space.
// Between a float32 and a float16 tensor it converts each element (floatConversion).
void emitStridedCopy(LowerContext& ctx, const Node& n, int src, int dst, Shape dims, std::vector<int64_t> inStride,
                     std::vector<int64_t> outStride, int64_t inOffset, int64_t outOffset, size_t elemSize);
// The GPU twin: one dispatch converting all of `src` (dtype `from`) into `dst` (`to`).
void emitCast(LowerContext& ctx, const Node& n, int src, int dst, DataType from, DataType to);

}  // namespace vkinfer::ops
