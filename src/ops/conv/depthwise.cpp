#include "ops/conv/depthwise.h"

#include "ops/op_util.h"

namespace vkinfer::ops {

void lowerDepthwiseConv(LowerContext& ctx, const Node& n, const ConvGeom& g, int bias, int residual, DataType type) {
    Dispatch& d = ctx.emit(typedKernel(n, std::string("conv2d_direct") + (residual >= 0 ? "_res" : ""), type));
    setLaunch1d(d, g.N * g.M * g.OH * g.OW, 64);
    setActivation(d, n.activation);
    // (Never channels-last: only the tiled and tensor-core kernels write that layout.)
    d.setPush(convParams(g, g.K(), false));
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1]), readOf(bias)};
    if (residual >= 0) d.bindings.push_back(readOf(residual));
}

}  // namespace vkinfer::ops
