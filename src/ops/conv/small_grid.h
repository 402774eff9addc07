// Convolutions too small to fill a GPU with output tiles (conv2d_small.comp): ShuffleNet's and
// MobileNet's 1x1 convs on 14x14 and 7x7 maps, squeeze-excitation convs on a pooled 1x1 map.
// The tiled kernels give such a layer a few workgroups that each walk the whole reduction, a
// chain of dependent loads; conv2d_small splits the reduction across the invocations of a
// workgroup instead. Pure functions of the geometry and the device description.
#pragma once

#include "kernels/families/conv2d_small.h"
#include "ops/conv/geometry.h"
#include "ops/lower_context.h"

namespace vkinfer::ops {

// How conv2d_small covers a layer: pixels per workgroup (a power of two, at most 32) and the
// ways its reduction is split (256 / pixels).
struct SmallConvShape {
    int64_t pixels = 32, slices = 8;
};
constexpr int64_t kSmallConvChannels = kernels::conv2d_small::RM;  // output channels per workgroup

// The 64x64 output tiles a layer has: the measure of whether a GPU's multiprocessors get work.
int64_t outputTiles64(const ConvGeom& g);
// The rule (conv/select.cpp applies it where the GPU tiles are on): no more multiply-adds than
// conv2d_small's reuse can carry, and fewer 64x64 output tiles than a GPU has multiprocessors.
// Where the tensor cores could take the layer (`onTensorCores`), also narrow (at most 64
// output channels per group), not a 1x1 of 2 M multiply-adds or more, and with no parallel
// `siblings` in its wave (ops::parallelSiblings) -- or with fewer pixels than one 16-wide
// fragment (a squeeze-excitation's pooled map), whatever else. Measured on the H200:
// docs/BENCHMARKS.md, runs 52 to 54. The layout planner and the lowering pass the same
// siblings, so they agree on the kernel.
bool smallGridConvPays(const ConvGeom& g, bool onTensorCores, int64_t siblings = 1);
// The workgroup shape for `g`: as many pixels as it has up to 32, fewer while an invocation's
// share of the reduction would be longer than 32.
SmallConvShape smallConvShape(const ConvGeom& g);

// Emits the dispatch for `n` in shape `s`: bias is a value id, residual the node's fourth
// input or -1; type is the float type of its tensors.
void lowerSmallGridConv(LowerContext& ctx, const graph::Node& n, const ConvGeom& g, const SmallConvShape& s, int bias,
                        int residual, DataType type);

}  // namespace vkinfer::ops
