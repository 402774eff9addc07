// Convolution geometry shared by the Conv lowerings (conv/conv.cpp: direct and tiled kernels;
// conv/coopmat.cpp: cooperative-matrix kernels): shapes, pads, strides from the node's
// attributes, and the implicit-GEMM gather table.
#pragma once

#include "graph/graph.h"
#include "vkinfer/tensor.h"

namespace vkinfer::ops {

struct ConvGeom {
    int64_t N, C, H, W, M, OH, OW, KH, KW, SH, SW, DH, DW, padT, padL, padB, padR, groups;
    int64_t Mg() const { return M / groups; }                // output channels per group
    int64_t Cg() const { return C / groups; }                // input channels per group
    int64_t K() const { return Cg() * KH * KW; }             // reduction length
    int64_t pixels() const { return N * OH * OW; }           // GEMM columns
};

// Tile arithmetic on sizes (dispatch.h's ceilDiv is for workgroup counts).
inline int64_t divUp(int64_t v, int64_t m) { return (v + m - 1) / m; }
inline int64_t roundUp(int64_t v, int64_t m) { return divUp(v, m) * m; }

// Throws ShapeError/Unsupported naming the node for geometry it cannot have.
ConvGeom convGeometry(const graph::Node& n, const graph::Shape& x, const graph::Shape& w);

// For each reduction index k = (ci, ky, kx): the input offset relative to the window origin
// and the two spatial displacements it adds (int32 [K, 4]; see conv2d.comp). With rows > K,
// the rows past K displace by 1 << 29, outside any image, so that they gather zeros (for
// kernels that read whole tiles of the reduction without bounds checks).
Tensor reductionTable(const ConvGeom& g, int64_t rows = 0);

// Push constants of the kernels that read the weights as the model has them (conv2d.comp,
// conv2d_direct.comp): the geometry, reduction indices per split, and whether output,
// residual and partial sums are channels-last (conv2d.comp only).
struct ConvParams {
    uint32_t N, C, H, W;
    uint32_t M, OH, OW, groups;
    uint32_t KH, KW, SH, SW;
    uint32_t padH, padW, DH, DW;
    uint32_t kChunk;
    uint32_t outNhwc;
};
ConvParams convParams(const ConvGeom& g, int64_t kChunk, bool outNhwc);

// Push constants of the kernels that read weights repacked at plan time (conv2d_cm.comp,
// conv2d_rt.comp): the geometry, reduction indices per split, the packed weights' padded
// reduction length and rows per group, and whether output and partial sums are channels-last.
struct PackedConvParams {
    uint32_t N, C, H, W;
    uint32_t M, OH, OW, groups;
    uint32_t KH, KW, SH, SW;
    uint32_t padH, padW, DH, DW;
    uint32_t kChunk;
    uint32_t Kpad, Mpad;
    uint32_t outNhwc;
};
PackedConvParams packedConvParams(const ConvGeom& g, int64_t kChunk, int64_t Kpad, int64_t Mpad, bool outNhwc);

// A DepthToSpace fused into Conv node `n` as shaders/conv_store.glsl reads it (specialization
// constant 6 of conv2d_rt and conv2d_cm): the blocksize, bit 8 for CRD mode; 0 for none.
inline uint32_t depthToSpaceShuffle(const graph::Node& n) {
    return n.depthToSpace == 0 ? 0u : static_cast<uint32_t>(n.depthToSpace) | (n.depthToSpaceCrd ? 0x100u : 0u);
}

}  // namespace vkinfer::ops
