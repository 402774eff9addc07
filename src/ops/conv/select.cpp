#include "ops/conv/select.h"

#include "ops/conv/depthwise.h"

namespace vkinfer::ops {

const char* convKernelName(ConvKernel kernel) {
    switch (kernel) {
        case ConvKernel::Portable: return "portable";
        case ConvKernel::Depthwise: return "depthwise";
        case ConvKernel::SmallGrid: return "small-grid";
        case ConvKernel::RegisterTiled: return "register-tiled";
        case ConvKernel::RegisterDirect: return "register-direct";
        case ConvKernel::Coopmat: return "coopmat";
        case ConvKernel::CoopmatDirect: return "coopmat-direct";
    }
    return "?";
}

namespace {

// The family, by rules tried in order: the first family whose rule holds takes the layer.
// Each rule reads the problem, the target and the families' own tile functions, never another
// rule's answer; the few facts two rules share are computed once, first.
ConvKernel chooseKernel(const ConvProblem& p, const KernelTarget& t, std::optional<CoopmatDirectConvTile>* cmdTile,
                        std::optional<RegisterDirectConvTile>* rtdTile) {
    const ConvGeom& g = p.g;
    const bool depthwise = depthwiseConvFits(g);

    // The tensor cores (float16), gathering or direct. The direct kernel packs reductions
    // shorter than one 32-long slice (an RGB stem's 27) into few fragments, so it also decides
    // whether such a layer goes to the tensor cores at all.
    bool coopmatDirect = false, coopmat = false;
    if (p.type == DataType::Float16 && t.cooperativeMatrix && p.constantWeights && coopmatConvFits(g, t)) {
        if (t.directConv != DirectConv::Off) *cmdTile = coopmatDirectConvTile(g, p.inNhwc, t.facts.sharedMemoryBytes);
        coopmatDirect = cmdTile->has_value() && (t.directConv == DirectConv::Always || coopmatDirectConvPays(g, **cmdTile));
        coopmat = coopmatDirect || coopmatReductionFits(g);
    }
    // The float32 direct kernel: with the GPU tiles by its rule, on CPU devices wherever it fits.
    // (Float32 tensors are never channels-last.)
    bool registerDirect = false;
    if (p.type == DataType::Float32 && t.registerDirect() && t.directConv != DirectConv::Off && p.constantWeights) {
        *rtdTile = registerDirectConvTile(g, t.facts.sharedMemoryBytes);
        registerDirect = rtdTile->has_value() && (t.directConv == DirectConv::Always || t.registerDirectWhereItFits ||
                                                  registerDirectConvPays(g, **rtdTile));
    }

    // Layers too small for tiles, ahead of everything but the depthwise kernel, except where
    // DirectConv::Always asks for the direct kernel wherever it can run (comparisons, tests).
    if (t.smallGrid && !depthwise && !(t.directConv == DirectConv::Always && registerDirect) &&
        smallGridConvPays(g, coopmat && !t.smallGridAlways, p.siblings))
        return ConvKernel::SmallGrid;
    if (coopmat) return coopmatDirect ? ConvKernel::CoopmatDirect : ConvKernel::Coopmat;
    if (registerDirect) return ConvKernel::RegisterDirect;
    if (t.registerTiles && p.constantWeights && !depthwise && registerTiledConvPays(g)) return ConvKernel::RegisterTiled;
    return depthwise ? ConvKernel::Depthwise : ConvKernel::Portable;
}

}  // namespace

ConvChoice selectConv(const ConvProblem& p, const KernelTarget& t) {
    ConvChoice c;
    std::optional<CoopmatDirectConvTile> cmdTile;
    std::optional<RegisterDirectConvTile> rtdTile;
    c.kernel = chooseKernel(p, t, &cmdTile, &rtdTile);
    c.kChunk = p.g.K();
    std::pair<int64_t, int64_t> split{1, p.g.K()};
    switch (c.kernel) {
        case ConvKernel::Portable:
            c.portable = portableConvTile(p.g);
            split = portableConvSplit(p.g, c.portable, p.siblings);
            break;
        case ConvKernel::Depthwise: break;
        case ConvKernel::SmallGrid: c.smallGrid = smallConvShape(p.g); break;
        case ConvKernel::RegisterTiled:
            c.registerTiled = registerTiledConvTile(p.g, p.siblings);
            split = registerTiledConvSplit(p.g, c.registerTiled, p.siblings, p.shuffle);
            c.vec4Store = vec4ConvStores(p.g, p.outNhwc, p.shuffle, split.first > 1);
            break;
        case ConvKernel::RegisterDirect: c.registerDirect = *rtdTile; break;
        case ConvKernel::Coopmat:
            c.coopmat = coopmatConvTile(p.g);
            split = coopmatConvSplit(p.g, c.coopmat, p.siblings, p.shuffle);
            break;
        case ConvKernel::CoopmatDirect: c.coopmatDirect = *cmdTile; break;
    }
    c.splits = split.first;
    c.kChunk = split.second;
    // The register-tiled and tensor-core kernels store a fused DepthToSpace through
    // conv_store.glsl (never channels-last: a shuffled output is stored NCHW); with a fused
    // residual (read unshuffled) only conv2d_cmd.
    const bool shuffles = c.kernel == ConvKernel::RegisterTiled || c.kernel == ConvKernel::RegisterDirect ||
                          c.kernel == ConvKernel::Coopmat || c.kernel == ConvKernel::CoopmatDirect;
    c.storesShuffled =
        p.shuffle != 0 && shuffles && !p.outNhwc && (!p.residual || c.kernel == ConvKernel::CoopmatDirect);
    // conv2d_cmd stores float32 NCHW (a float32 tensor is never channels-last).
    c.storesFloat32 = c.kernel == ConvKernel::CoopmatDirect && !p.outNhwc;
    return c;
}

bool readsChannelsLast(ConvKernel kernel) {
    return kernel == ConvKernel::Coopmat || kernel == ConvKernel::CoopmatDirect;
}

bool writesChannelsLast(ConvKernel kernel, DataType type) {
    // The tensor-core convs, and in float16 every other tiled kernel (a stem whose reduction is
    // too short for the tensor cores, a layer too small for them), can store NHWC for a
    // tensor-core reader; the depthwise kernel cannot.
    return readsChannelsLast(kernel) || (type == DataType::Float16 && kernel != ConvKernel::Depthwise);
}

}  // namespace vkinfer::ops
