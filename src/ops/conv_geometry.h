// Convolution geometry shared by the Conv lowerings (conv.cpp: direct and tiled kernels;
// conv_coopmat.cpp: cooperative-matrix kernels): shapes, pads, strides from the node's
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

// Throws ShapeError/Unsupported naming the node for geometry it cannot have.
ConvGeom convGeometry(const graph::Node& n, const graph::Shape& x, const graph::Shape& w);

// Depthwise and small-group convolutions reduce over too few terms to fill a GEMM tile:
// conv2d_direct.comp computes them one output at a time.
inline bool usesDirectConv(const ConvGeom& g) { return g.groups > 1 && g.K() <= 64; }

// For each reduction index k = (ci, ky, kx): the input offset relative to the window origin
// and the two spatial displacements it adds (int32 [K, 4]; see conv2d.comp).
Tensor reductionTable(const ConvGeom& g);

}  // namespace vkinfer::ops
