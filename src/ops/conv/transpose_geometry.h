// The geometry of a ConvTranspose node, as ONNX defines it (strides, pads, auto_pad,
// dilations, group, output_padding, output_shape): shared by its lowering (conv/transpose.cpp)
// and by the pass that rewrites 2-D ones as ordinary convolutions (passes/subpixel_deconv.cpp).
#pragma once

#include <cstdint>

#include "graph/graph.h"

namespace vkinfer::ops {

// Geometry with the spatial axes padded to three (leading unit axes for 1-D and 2-D).
struct TConvGeom {
    int64_t N, C, M, groups;
    int64_t in[3], out[3], k[3], s[3], d[3], padBegin[3];
    size_t sp;  // spatial rank of the node
};

// Throws ShapeError/Unsupported naming the node for geometry ONNX does not allow.
TConvGeom tconvGeometry(const graph::Node& n, const graph::Shape& x, const graph::Shape& w);

}  // namespace vkinfer::ops
