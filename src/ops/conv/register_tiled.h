// Float convolution with 8x8 outputs per invocation (conv2d_rt.comp), for GPUs without
// cooperative matrices or for float32 (DeviceCapabilities::registerTiledConv): tile shape and
// split-K are chosen here from the geometry alone.
#pragma once

#include <utility>

#include "kernels/families/conv2d_rt.h"
#include "ops/conv/geometry.h"
#include "ops/lower_context.h"

namespace vkinfer::ops {

struct RegisterTiledConvTile {
    int64_t bm = 128, bn = 128;  // workgroup tile (output channels x pixels); 8x8 per invocation
    kernels::conv2d_rt::Tile variant() const;  // the declared tile of this shape
    int64_t warps() const;       // 32-wide warps per workgroup
};
constexpr int64_t kRegisterTiledK = kernels::conv2d_rt::BK;  // reduction rows per shared-memory round

// Where conv2d_rt pays (with the GPU tiles on and constant weights: conv/select.cpp): a
// reduction of at least 32 and at least 32 output pixels. Below either, conv2d.comp's 256
// invocations per tile and its coalesced stores win (a tile there is mostly loads and stores).
bool registerTiledConvPays(const ConvGeom& g);
// The tile for `g`, given how many convolutions run beside it in its wave (`siblings`): one of
// the tiles conv2d_rt.toml declares.
RegisterTiledConvTile registerTiledConvTile(const ConvGeom& g, int64_t siblings = 1);
// Split-K for that tile: {splits, reduction indices per split}, aimed at as many warps as the
// tile choice; whole where a slice would exceed the grid or a fused DepthToSpace (`shuffle`)
// needs the store of a whole reduction.
std::pair<int64_t, int64_t> registerTiledConvSplit(const ConvGeom& g, const RegisterTiledConvTile& t, int64_t siblings,
                                                   uint32_t shuffle);

// Whether conv2d_rt stores four consecutive pixels as one 16-byte word: NCHW without a fused
// DepthToSpace, and for the output every image's OH * OW a multiple of 4 (so a quad never
// straddles two images), for split-K's partial sums ([split, M, N * OH * OW]) only the
// batch's pixel count N * OH * OW.
bool vec4ConvStores(const ConvGeom& g, bool outNhwc, uint32_t shuffle, bool splitK);

// The weights [M, Cg, KH, KW] as conv2d_rt reads them: per group a zero-padded [Kpad][Mpad]
// block (transposed, so that a tile's rows are contiguous), Kpad a multiple of
// kRegisterTiledK and Mpad of bm, in the weights' own type.
Tensor packRegisterTiledWeights(const Tensor& w, const ConvGeom& g, int64_t bm);

// Emits the dispatch (and split-K reduce) for `n` with `tile` and split {splits, kChunk}
// (conv/select.h): bias is a value id, residual the node's fourth input or -1; type is the
// float type of its tensors.
void lowerRegisterTiledConv(LowerContext& ctx, const graph::Node& n, const ConvGeom& g, const RegisterTiledConvTile& tile,
                            int64_t splits, int64_t kChunk, bool vec4Store, int bias, int residual, DataType type);

}  // namespace vkinfer::ops
