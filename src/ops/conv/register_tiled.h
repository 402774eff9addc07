// Float convolution with 8x8 outputs per invocation (conv2d_rt.comp), for GPUs without
// cooperative matrices or for float32 (DeviceCapabilities::registerTiledConv): tile shape and
// split-K are chosen here from the geometry alone.
#pragma once

#include "ops/conv/geometry.h"
#include "ops/lower_context.h"

namespace vkinfer::ops {

struct RegisterTiledConvTile {
    int64_t bm = 128, bn = 128;  // workgroup tile (output channels x pixels); 8x8 per invocation
    int64_t warps() const;       // 32-wide warps per workgroup
};
constexpr int64_t kRegisterTiledK = 8;  // reduction rows per shared-memory round

// Whether `n` lowers to conv2d_rt on this device: a GPU (not a CPU implementation), constant
// weights, not depthwise-short (conv2d_direct.comp), a reduction of at least 32 and at least
// 32 output pixels (else conv2d.comp).
bool useRegisterTiledConv(const LowerContext& ctx, const graph::Node& n, const ConvGeom& g);
// The tile for `g`, given how many convolutions run beside it in its wave (`siblings`).
RegisterTiledConvTile registerTiledConvTile(const ConvGeom& g, int64_t siblings = 1);

// Whether conv2d_rt stores four consecutive pixels as one 16-byte word: NCHW without a fused
// DepthToSpace, and for the output every image's OH * OW a multiple of 4 (so a quad never
// straddles two images), for split-K's partial sums ([split, M, N * OH * OW]) only the
// batch's pixel count N * OH * OW.
bool vec4ConvStores(const ConvGeom& g, bool outNhwc, uint32_t shuffle, bool splitK);

// The weights [M, Cg, KH, KW] as conv2d_rt reads them: per group a zero-padded [Kpad][Mpad]
// block (transposed, so that a tile's rows are contiguous), Kpad a multiple of
// kRegisterTiledK and Mpad of bm, in the weights' own type.
Tensor packRegisterTiledWeights(const Tensor& w, const ConvGeom& g, int64_t bm);

// Emits the dispatch (and split-K reduce) for `n`: bias is a value id, residual the node's
// fourth input or -1; type is the float type of its tensors.
void lowerRegisterTiledConv(LowerContext& ctx, const graph::Node& n, const ConvGeom& g, int bias, int residual,
                            DataType type);

}  // namespace vkinfer::ops
