// Convolution geometry shared by the Conv lowerings (conv/conv.cpp: direct and tiled kernels;
// conv/coopmat.cpp: cooperative-matrix kernels): shapes, pads, strides from the node's
// attributes, and the implicit-GEMM gather table.
#pragma once

#include <optional>

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

// The geometry fields that the push blocks of conv2d, conv2d_depthwise, conv2d_small,
// conv2d_rt and conv2d_cm begin with (their Push structs in kernels/families/*.h, generated
// from shaders/kernels/*.toml); sizes were checked by requireIndexable.
template <class Push>
void setConvGeometry(Push& p, const ConvGeom& g) {
    auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
    p.N = u(g.N), p.C = u(g.C), p.H = u(g.H), p.W = u(g.W);
    p.M = u(g.M), p.OH = u(g.OH), p.OW = u(g.OW), p.groups = u(g.groups);
    p.KH = u(g.KH), p.KW = u(g.KW), p.SH = u(g.SH), p.SW = u(g.SW);
    p.padH = u(g.padT), p.padW = u(g.padL), p.DH = u(g.DH), p.DW = u(g.DW);
}

// The element types of a Conv's tensors. The kernel's is its weights': float32, or float16
// throughout, except at a float16 plan's output, where a Cast folded into the conv
// (passes/cast_folding.h) leaves its output float32 (widened as it is stored). None where the
// types fit neither (the lowering then fails naming the tensors).
struct ConvTypes {
    DataType kernel = DataType::Float32;
    bool storesFloat32 = false;  // float16 kernel, float32 output
};
std::optional<ConvTypes> convTypes(const graph::Graph& g, const graph::Node& n);

// A DepthToSpace fused into Conv node `n` as shaders/conv_store.glsl reads it (specialization
// constant SHUFFLE of conv2d_rt, conv2d_rtd, conv2d_cm and conv2d_cmd): the blocksize, bit 8
// for CRD mode; 0 for none.
inline uint32_t depthToSpaceShuffle(const graph::Node& n) {
    return n.depthToSpace == 0 ? 0u : static_cast<uint32_t>(n.depthToSpace) | (n.depthToSpaceCrd ? 0x100u : 0u);
}

}  // namespace vkinfer::ops
