#include "ops/conv/depthwise.h"

#include "kernels/families/conv2d_depthwise.h"
#include "ops/conv/layout.h"
#include "ops/emit.h"

namespace vkinfer::ops {

bool depthwiseRowsOfFour(const ConvGeom& g) {
    return g.SW == 1 && g.DW == 1 && g.KW <= kDepthwiseRowMaxKw && g.OW >= 4 &&
           g.N * g.M * g.OH * g.OW >= kDepthwiseRowsFrom;
}

void lowerDepthwiseConv(LowerContext& ctx, const Node& n, const ConvGeom& g, int bias, int residual, DataType type) {
    namespace k = kernels::conv2d_depthwise;
    const k::Epilogue epilogue = residual >= 0 ? k::Epilogue::res : k::Epilogue::none;
    const bool rows = depthwiseRowsOfFour(g);
    Dispatch& d = ctx.emit(
        typedKernel(n, k::variant(rows ? k::Width::x4 : k::Width::none, epilogue, type), "conv2d_depthwise", type));
    setLaunch1d(d, g.N * g.M * g.OH * (rows ? divUp(g.OW, 4) : g.OW), 64);
    setActivation(d, n.activation);
    k::Push p{};
    setConvGeometry(p, g);
    p.outNhwc = storesChannelsLast(ctx, n) ? 1u : 0u;
    d.setPush(p);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1]), readOf(bias)};
    if (residual >= 0) d.bindings.push_back(readOf(residual));
}

}  // namespace vkinfer::ops
