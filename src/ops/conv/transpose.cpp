// ConvTranspose, 1-D to 3-D: strides, pads, auto_pad, dilations, group, output_padding,
// output_shape and bias. The CPU reference scatters every input element through the
// kernel (the textbook definition); the GPU kernel (conv_transpose.comp) gathers, up to four
// output channels of one position per invocation, so the two are independent implementations.
#include <algorithm>

#include "kernels/families/conv_transpose.h"
#include "ops/conv/transpose_geometry.h"
#include "ops/conv/transpose_tile.h"
#include "ops/activation.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

Shape outputShape(const TConvGeom& g) {
    Shape s{g.N, g.M};
    for (size_t a = 3 - g.sp; a < 3; ++a) s.push_back(g.out[a]);
    return s;
}

void inferConvTranspose(Graph& g, const Node& n) {
    requireFloat(g, n, 0);
    requireFloat(g, n, 1);
    TConvGeom geo = tconvGeometry(n, inputShape(g, n, 0), inputShape(g, n, 1));
    if (n.input(2) >= 0 && elementCount(inputShape(g, n, 2)) != geo.M)
        shapeError(n, "bias has {} elements for {} output channels", elementCount(inputShape(g, n, 2)), geo.M);
    setOutput(g, n, 0, DataType::Float32, outputShape(geo));
}

// Folding work: each input element scatters into M / group x kernel outputs.
int64_t convTransposeFoldWork(const Graph& g, const Node& n) {
    const Shape& w = inputShape(g, n, 1);
    return mulSaturated(inputValue(g, n, 0).elementCount(), w.at(0) > 0 ? elementCount(w) / w[0] : 0);
}

void evalConvTranspose(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    TConvGeom g = tconvGeometry(n, in[0]->shape(), in[1]->shape());
    const float* x = in[0]->as<float>();
    const float* w = in[1]->as<float>();
    const Tensor* b = optionalInput(in, 2);
    const int64_t cg = g.C / g.groups, mg = g.M / g.groups;
    const int64_t outVol = g.out[0] * g.out[1] * g.out[2];
    const int64_t kVol = g.k[0] * g.k[1] * g.k[2];
    std::vector<double> acc(static_cast<size_t>(g.N * g.M * outVol), 0.0);
    for (int64_t nn = 0; nn < g.N; ++nn)
        for (int64_t c = 0; c < g.C; ++c) {
            int64_t grp = c / cg;
            for (int64_t iz = 0; iz < g.in[0]; ++iz)
                for (int64_t iy = 0; iy < g.in[1]; ++iy)
                    for (int64_t ix = 0; ix < g.in[2]; ++ix) {
                        double xv = x[((nn * g.C + c) * g.in[0] + iz) * g.in[1] * g.in[2] + iy * g.in[2] + ix];
                        for (int64_t ml = 0; ml < mg; ++ml)
                            for (int64_t kz = 0; kz < g.k[0]; ++kz)
                                for (int64_t ky = 0; ky < g.k[1]; ++ky)
                                    for (int64_t kx = 0; kx < g.k[2]; ++kx) {
                                        int64_t oz = iz * g.s[0] - g.padBegin[0] + kz * g.d[0];
                                        int64_t oy = iy * g.s[1] - g.padBegin[1] + ky * g.d[1];
                                        int64_t ox = ix * g.s[2] - g.padBegin[2] + kx * g.d[2];
                                        if (oz < 0 || oz >= g.out[0] || oy < 0 || oy >= g.out[1] || ox < 0 ||
                                            ox >= g.out[2])
                                            continue;
                                        int64_t m = grp * mg + ml;
                                        double wv = w[(c * mg + ml) * kVol + (kz * g.k[1] + ky) * g.k[2] + kx];
                                        acc[((nn * g.M + m) * g.out[0] + oz) * g.out[1] * g.out[2] + oy * g.out[2] +
                                            ox] += xv * wv;
                                    }
                    }
        }
    float* y = out[0].as<float>();
    for (int64_t i = 0; i < g.N * g.M * outVol; ++i) {
        int64_t m = (i / outVol) % g.M;
        double v = acc[i] + (b ? b->as<float>()[m] : 0.0f);
        y[i] = applyActivation(n.activation, static_cast<float>(v));
    }
}

void lowerConvTranspose(LowerContext& ctx, const Node& n) {
    TConvGeom g = tconvGeometry(n, ctx.value(n.inputs[0]).shape, ctx.value(n.inputs[1]).shape);
    const int64_t outCount = ctx.value(n.outputs[0]).elementCount();
    if (outCount == 0) return;
    // Invocations in stride-phase order (conv_transpose.comp): SH x SW phases of
    // ceil(OH / SH) x ceil(OW / SW) positions, each computing mb output channels of a group.
    const int64_t mg = g.M / g.groups;
    const int64_t mb = convTransposeChannelsPerInvocation(outCount, mg);
    const int64_t mBlocks = g.groups * ((mg + mb - 1) / mb);
    const int64_t qh = (g.out[1] + g.s[1] - 1) / g.s[1], qw = (g.out[2] + g.s[2] - 1) / g.s[2];
    const int64_t count = mulChecked(n, mulChecked(n, g.N * mBlocks * g.out[0], g.s[1] * g.s[2]), qh * qw);
    requireIndexable(n, std::max({count, outCount, ctx.value(n.inputs[0]).elementCount(),
                                  ctx.value(n.inputs[1]).elementCount()}));
    const DataType type = floatKernelType(ctx, n, n.inputs[0], {n.inputs[1], n.input(2), n.outputs[0]});
    int bias = n.input(2);
    if (bias < 0) bias = ctx.addConstant(n.name + "_zero_bias", Tensor(type, {g.M}));
    Dispatch& d = ctx.emit(typedKernel(n, kernels::conv_transpose::variant(type), "conv_transpose", type));
    setActivation(d, n.activation);
    d.setSpec(kernels::conv_transpose::kMb, u32(mb));
    kernels::conv_transpose::Push p{};
    p.count = u32(count);
    p.C = u32(g.C);
    p.M = u32(g.M);
    p.groups = u32(g.groups);
    p.D = u32(g.in[0]);
    p.H = u32(g.in[1]);
    p.W = u32(g.in[2]);
    p.OD = u32(g.out[0]);
    p.OH = u32(g.out[1]);
    p.OW = u32(g.out[2]);
    p.KD = u32(g.k[0]);
    p.KH = u32(g.k[1]);
    p.KW = u32(g.k[2]);
    p.SD = u32(g.s[0]);
    p.SH = u32(g.s[1]);
    p.SW = u32(g.s[2]);
    p.DD = u32(g.d[0]);
    p.DH = u32(g.d[1]);
    p.DW = u32(g.d[2]);
    p.padD = u32(g.padBegin[0]);
    p.padH = u32(g.padBegin[1]);
    p.padW = u32(g.padBegin[2]);
    p.QH = u32(qh);
    p.QW = u32(qw);
    p.mBlocks = u32(mBlocks);
    d.setPush(p);
    setLaunch1d(d, count, 64);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1]), readOf(bias)};
}

}  // namespace

void registerConvTransposeOps(std::vector<OpDef>& t) {
    t.push_back(withFoldWork(withFp16({"ConvTranspose", 1, 1000, inferConvTranspose, evalConvTranspose, lowerConvTranspose}),
                              convTransposeFoldWork));
}

}  // namespace vkinfer::ops
