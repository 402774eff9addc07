// The one place that decides how a Conv node runs: which kernel family, its tile, how its
// reduction is split and whether it stores a fused DepthToSpace itself. A pure function of
// the problem (geometry, element type, layouts, fusions) and the target (device facts with
// the kernel policy resolved, ops/kernel_target.h). lowerConv (conv.cpp), the channels-last
// planner (layout.cpp) and the tests call it; each family's file holds its tile arithmetic,
// its measured rule and its lowering, and none of them asks another.
//
// Adding a kernel family: declare its variants and interface in shaders/kernels/ (once, for
// both GLSL and C++), add a ConvKernel value with one rule in selectConv, and a lowering
// in its own file.
#pragma once

#include "ops/conv/coopmat.h"
#include "ops/conv/coopmat_direct.h"
#include "ops/conv/geometry.h"
#include "ops/conv/portable.h"
#include "ops/conv/register_direct.h"
#include "ops/conv/register_tiled.h"
#include "ops/conv/small_grid.h"
#include "ops/kernel_target.h"

namespace vkinfer::ops {

// The kernel families, by shader: one name each.
enum class ConvKernel : uint8_t {
    Portable,        // conv2d.comp: implicit GEMM in 4x4 (or 2x4) tiles, any device
    Depthwise,       // conv2d_depthwise.comp: depthwise and small-group, one output per invocation
    SmallGrid,       // conv2d_small.comp: layers too small for tiles, reduction split in a workgroup
    RegisterTiled,   // conv2d_rt.comp: implicit GEMM in 8x8 tiles per invocation (GPUs)
    RegisterDirect,  // conv2d_rtd.comp: stride 1 float32, input window in shared memory (GPUs)
    Coopmat,         // conv2d_cm.comp: implicit GEMM on cooperative matrices (float16)
    CoopmatDirect,   // conv2d_cmd.comp: stride 1 on cooperative matrices, input window in shared memory
};
const char* convKernelName(ConvKernel kernel);

// What selection knows of one Conv node.
struct ConvProblem {
    ConvGeom g{};
    DataType type = DataType::Float32;  // of all its tensors: float32, or float16 throughout
    bool constantWeights = true;        // the weights are a constant (packed at plan time)
    bool residual = false;              // a fused residual Add
    uint32_t shuffle = 0;               // a fused DepthToSpace (depthToSpaceShuffle), 0: none
    // Convolutions sharing its wave, and so the GPU (ops::parallelSiblings): split-K aims at
    // a share of the GPU, and a narrow few-tiles layer stays on the tensor cores
    // (smallGridConvPays).
    int64_t siblings = 1;
    // Planned layouts (conv/layout.h). Never change the kernel, only its variant: the layout
    // planner chooses them from the kernels of the NCHW problem.
    bool inNhwc = false, outNhwc = false;
};

struct ConvChoice {
    ConvKernel kernel = ConvKernel::Portable;
    // The kernel stores a fused DepthToSpace where it goes (shaders/conv_store.glsl); else
    // the conv writes a scratch tensor that a copy shuffles.
    bool storesShuffled = false;
    // The kernel widens its output to float32 as it stores it (a float16 kernel with the
    // output's Cast folded in, conv/geometry.h ConvTypes); else the lowering runs the Cast.
    bool storesFloat32 = false;
    // Split-K: the reduction in `splits` slices of `kChunk` indices, summed in order by a
    // second dispatch (deterministic). splits 1: whole.
    int64_t splits = 1, kChunk = 0;
    // The tile of the chosen family (the others' stay default).
    PortableConvTile portable;
    SmallConvShape smallGrid;
    RegisterTiledConvTile registerTiled;
    RegisterDirectConvTile registerDirect;
    CoopmatConvTile coopmat;
    CoopmatDirectConvTile coopmatDirect;
    bool vec4Store = false;  // conv2d_rt stores quads of pixels as 16-byte words
};

ConvChoice selectConv(const ConvProblem& p, const KernelTarget& t);

// What the layout planner needs of a choice: the kernel reads a channels-last input
// (the tensor-core convs), or can write a channels-last output for such a reader.
bool readsChannelsLast(ConvKernel kernel);
bool writesChannelsLast(ConvKernel kernel, DataType type);

}  // namespace vkinfer::ops
