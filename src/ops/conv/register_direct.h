// Stride-1 float32 convolution without im2col on FMA units (conv2d_rtd.comp): conv2d_rt's
// 8x8 outputs per invocation, with the input window of each output tile (the halo) and the
// weights staged in shared memory once per 4 input channels instead of gathered per tap
// through the reduction table. For wide maps in float32, where conv2d_rt spends its issue
// slots on gathers: upscalers (ESPCN) and the early layers of image networks. Tile choice
// and the rule are pure functions of the geometry and the device description.
#pragma once

#include <optional>

#include "kernels/families/conv2d_rtd.h"
#include "ops/conv/geometry.h"
#include "ops/lower_context.h"

namespace vkinfer::ops {

struct RegisterDirectConvTile {
    int64_t bm = 32;       // output channels per workgroup (16, 32 or 64), 8 per invocation
    int64_t chunks = 1;    // chunks of kRegisterDirectChunk input channels
    int64_t sharedBytes = 0;
    int64_t warps() const;  // 32-wide warps per workgroup
};
// The tile's shape, as conv2d_rtd.toml declares it for the shader too.
constexpr int64_t kRegisterDirectRows = kernels::conv2d_rtd::TH;   // output rows per tile
constexpr int64_t kRegisterDirectCols = kernels::conv2d_rtd::TW;   // output pixels per tile row
constexpr int64_t kRegisterDirectChunk = kernels::conv2d_rtd::CK;  // input channels per shared-memory round

// The tile conv2d_rtd would use for `g`, or none where it cannot take it: not stride 1 and
// dilation 1, grouped, a window width other than 3 or 5 (compiled variants), or shared
// memory past `sharedMemoryBytes`.
std::optional<RegisterDirectConvTile> registerDirectConvTile(const ConvGeom& g, uint32_t sharedMemoryBytes);

// The rule (DirectConv::Auto): enough warps to fill the GPU without split-K, which conv2d_rt
// has and this kernel does not, and tile rows at least three quarters filled by the map.
bool registerDirectConvPays(const ConvGeom& g, const RegisterDirectConvTile& t);

// The weights [M, C, KH, KW] as conv2d_rtd reads them: [m-tile][chunk][CK][KH][KW][bm],
// zero past M and C.
Tensor packRegisterDirectWeights(const Tensor& w, const ConvGeom& g, const RegisterDirectConvTile& t);

// Emits the dispatch for `n` with tile `t`: bias is a value id, residual the node's fourth
// input or -1.
void lowerRegisterDirectConv(LowerContext& ctx, const graph::Node& n, const ConvGeom& g, const RegisterDirectConvTile& t,
                             int bias, int residual, DataType type);

}  // namespace vkinfer::ops
