#include "ops/conv/layout.h"

#include <optional>

#include "ops/conv/geometry.h"
#include "ops/conv/select.h"
#include "ops/siblings.h"

namespace vkinfer::ops {

using graph::Node;

namespace {

// The kernel 2-D Conv node `n` lowers to (conv/select.h, for the NCHW problem: the kernel
// never depends on the layouts), or none for a node that is not a 2-D conv with tensors of
// one type (or a float16 conv with the output's Cast folded in, conv/geometry.h).
std::optional<ConvKernel> convKernelOf(const LowerContext& ctx, const Node& n, int index) {
    if (n.removed || n.opType != "Conv" || n.inputs.size() < 2 || n.inputs[0] < 0 || n.inputs[1] < 0)
        return std::nullopt;
    const auto& x = ctx.value(n.inputs[0]);
    if (x.shape.size() != 4) return std::nullopt;
    const std::optional<ConvTypes> types = convTypes(ctx.graph(), n);
    if (!types) return std::nullopt;
    ConvProblem p;
    p.g = convGeometry(n, x.shape, ctx.value(n.inputs[1]).shape);
    p.type = types->kernel;
    p.constantWeights = ctx.value(n.inputs[1]).constant.has_value();
    p.residual = n.input(3) >= 0;
    p.shuffle = depthToSpaceShuffle(n);
    p.siblings = parallelSiblings(ctx, n, n.inputs[0], index);  // as lowerConv passes them
    return selectConv(p, ctx.target()).kernel;
}

// Global pooling reduces each (n, c) plane wherever its pixels lie (global_pool.comp's NHWC
// mode), and its [N, C, 1, 1] output is the same in both layouts: the last block of a ResNet
// then stays channels-last, which otherwise the fused residual's rule below forces back to NCHW
// through the whole residual chain of its stage.
bool poolsChannelsLast(const LowerContext& ctx, const Node& n) {
    return (n.opType == "GlobalAveragePool" || n.opType == "GlobalMaxPool") && n.inputs.size() == 1 &&
           ctx.value(n.inputs[0]).shape.size() == 4;
}

}  // namespace

bool storesChannelsLast(const LowerContext& ctx, const Node& n) {
    return !n.outputPerm.empty() || ctx.channelsLast(n.outputs[0]);
}

std::vector<char> chooseChannelsLast(const LowerContext& ctx, const std::vector<int>& aliasParent) {
    const graph::Graph& g = ctx.graph();
    const size_t nv = g.values.size();
    std::vector<char> coopmat(g.nodes.size(), 0), writesNhwc(g.nodes.size(), 0);
    std::vector<std::vector<int>> consumers(nv);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node& n = g.nodes[i];
        if (n.removed) continue;
        const std::optional<ConvKernel> kernel = convKernelOf(ctx, n, static_cast<int>(i));
        coopmat[i] = kernel && readsChannelsLast(*kernel);
        // (A shuffled output is stored NCHW; one stored through a folded Transpose is [N, H, W, C],
        // already channels-last.)
        writesNhwc[i] = kernel && writesChannelsLast(*kernel, ctx.value(n.outputs[0]).dtype) && n.depthToSpace == 0 &&
                        n.outputPerm.empty() && ctx.value(n.outputs[0]).dtype == ctx.value(n.inputs[1]).dtype;
        for (int in : n.inputs)
            if (in >= 0) consumers[in].push_back(static_cast<int>(i));
    }
    std::vector<char> aliased(nv, 0);  // stored inside another value, or holding one
    for (size_t v = 0; v < aliasParent.size() && v < nv; ++v)
        if (aliasParent[v] >= 0) aliased[v] = aliased[aliasParent[v]] = 1;

    std::vector<char> cl(nv, 0);
    for (size_t v = 0; v < nv; ++v) {
        int p = g.values[v].producer;
        if (p < 0 || !writesNhwc[p] || g.nodes[p].outputs[0] != static_cast<int>(v)) continue;
        if (aliased[v] || g.isGraphOutput(static_cast<int>(v)) || consumers[v].empty()) continue;
        bool ok = true;
        for (int c : consumers[v]) {
            const Node& n = g.nodes[c];
            if (poolsChannelsLast(ctx, n)) continue;
            if (!coopmat[c]) ok = false;
            for (size_t k = 0; ok && k < n.inputs.size(); ++k) {
                if (n.inputs[k] != static_cast<int>(v)) continue;
                if (k == 0) {
                    const int64_t C = ctx.value(v).shape[1];
                    const int64_t groups = n.attrInt("group", 1);
                    ok = C % 8 == 0 && (C / groups) % 8 == 0;
                } else {
                    // The fused residual (a weight or bias is never an activation here), but not
                    // of a conv that stores a DepthToSpace: it reads the residual NCHW.
                    ok = k == 3 && n.depthToSpace == 0;
                }
            }
            if (!ok) break;
        }
        cl[v] = ok;
    }
    // A fused residual is read in its conv's output layout: both channels-last or neither.
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = 0; i < g.nodes.size(); ++i) {
            const Node& n = g.nodes[i];
            if (!writesNhwc[i] || n.input(3) < 0) continue;
            int out = n.outputs[0], res = n.input(3);
            if (cl[out] != cl[res]) {
                cl[out] = cl[res] = 0;
                changed = true;
            }
        }
    }
    return cl;
}

}  // namespace vkinfer::ops
