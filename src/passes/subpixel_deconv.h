// ConvTranspose as ordinary convolution (the sub-pixel decomposition). A 2-D transposed
// convolution of stride s writes each output phase (Y mod s, X mod s) from its own subset of
// the kernel taps, reading the input at stride 1: s*s ordinary convolutions, interleaved. One
// Conv with M*s*s output channels (every phase's taps placed in one window, zero where a
// phase has no tap) followed by DepthToSpace(s, CRD) computes exactly that, and the conv
// kernels then run it (the tensor cores in float16, the register tiles in float32), storing
// the shuffle themselves (fuseDepthToSpace). conv_transpose.comp gathers with scalar loads
// instead: FSRCNN x2's deconvolution at 960x540 ran at 5.9 TFLOP/s there on the H200
// (docs/BENCHMARKS.md, run 46).
#pragma once

#include <cstdint>
#include <optional>

#include "graph/graph.h"
#include "ops/conv/transpose_geometry.h"

namespace vkinfer::passes {

// How a 2-D ConvTranspose becomes a stride-1 Conv (+ DepthToSpace when the stride is not 1,
// + a crop when the phases' rows overshoot the output). Index 0 is the height axis, 1 the
// width axis.
struct SubPixelPlan {
    int64_t stride = 1;        // both axes (DepthToSpace takes one blocksize)
    int64_t window[2]{};       // the Conv's kernel size: every phase's taps, as input offsets
    int64_t lowest[2]{};       // input offset of the window's first tap
    int64_t padBegin[2]{}, padEnd[2]{};
    int64_t convOut[2]{};      // the Conv's output size; stride * convOut covers the output
    // Where the output starts in the shuffled Conv output: a window starting at a positive
    // offset needs a negative pad, which a Conv cannot take, so the Conv computes that many
    // rows of phases before the output's first.
    int64_t cropStart[2]{};
    bool crop = false;         // the shuffled Conv output is not exactly the output: a Slice cuts it
    double workRatio = 1;      // the Conv's multiply-adds over the transposed conv's
};

// Rewrites pay where the window stays tight: FSRCNN's 9x9 stride-2 kernel becomes 5x5
// (1.23x the multiply-adds), RIFE's 4x4 stride 2 3x3 (2.25x). Beyond this the wasted taps
// outweigh what the faster kernels gain.
inline constexpr double kMaxSubPixelWorkRatio = 4.0;

// The plan for a transposed convolution of geometry `g`, or none where it does not apply:
// not 2-D, unequal strides, or more than kMaxSubPixelWorkRatio times the work.
std::optional<SubPixelPlan> subPixelPlan(const ops::TConvGeom& g);

// Rewrites every 2-D float32 ConvTranspose with constant weights (and bias) that has a plan.
// Runs before the other fusions, so the Conv takes the DepthToSpace, the activation after
// it and anything else a Conv can fuse.
void rewriteConvTransposeAsConv(graph::Graph& g);

}  // namespace vkinfer::passes
