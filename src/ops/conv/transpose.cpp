// ConvTranspose, 1-D to 3-D: strides, pads, auto_pad, dilations, group, output_padding,
// output_shape and bias. The CPU reference scatters every input element through the
// kernel (the textbook definition); the GPU kernel (conv_transpose.comp) gathers, up to four
// output channels of one position per invocation, so the two are independent implementations.
#include <algorithm>

#include "kernels/families/conv_transpose.h"
#include "ops/conv/transpose_tile.h"
#include "ops/activation.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

// Geometry with the spatial axes padded to three (leading unit axes for 1-D and 2-D).
struct TConvGeom {
    int64_t N, C, M, groups;
    int64_t in[3], out[3], k[3], s[3], d[3], padBegin[3];
    size_t sp;  // spatial rank of the node
};

int64_t floorDiv2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

TConvGeom tconvGeometry(const Node& n, const Shape& x, const Shape& w) {
    if (x.size() < 3 || x.size() > 5)
        unsupported(n, "only 1-D, 2-D and 3-D transposed convolutions are supported (input shape {})",
                    shapeToString(x));
    if (w.size() != x.size()) shapeError(n, "weight rank {} does not match input rank {}", w.size(), x.size());
    const size_t sp = x.size() - 2;
    TConvGeom g{};
    g.sp = sp;
    g.N = x[0];
    g.C = x[1];
    g.groups = n.attrInt("group", 1);
    if (g.groups <= 0 || g.C % g.groups) shapeError(n, "group {} does not divide the {} input channels", g.groups, g.C);
    if (w[0] != g.C)
        shapeError(n, "weight shape {} expects {} input channels, input has {}", shapeToString(w), w[0], g.C);
    g.M = w[1] * g.groups;
    auto ks = n.attrInts("kernel_shape");
    auto strides = n.attrInts("strides", std::vector<int64_t>(sp, 1));
    auto dil = n.attrInts("dilations", std::vector<int64_t>(sp, 1));
    auto pads = n.attrInts("pads", std::vector<int64_t>(2 * sp, 0));
    auto outPad = n.attrInts("output_padding", std::vector<int64_t>(sp, 0));
    auto outShape = n.attrInts("output_shape");
    if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp || outPad.size() != sp ||
        (!ks.empty() && ks.size() != sp))
        shapeError(n, "strides/dilations/pads/output_padding/kernel_shape have the wrong length for {}-D", sp);
    if (!outShape.empty() && outShape.size() != sp && outShape.size() != sp + 2)
        shapeError(n, "output_shape has {} entries for {} spatial axes", outShape.size(), sp);
    checkGeometry(n, "strides", strides, 1);
    checkGeometry(n, "dilations", dil, 1);
    checkGeometry(n, "pads", pads, 0);
    checkGeometry(n, "output_padding", outPad, 0);
    checkGeometry(n, "output_shape", outShape, 0);
    std::string autoPad = n.attrString("auto_pad", "NOTSET");
    const size_t lead = 3 - sp;
    for (size_t i = 0; i < 3; ++i) {
        g.in[i] = g.out[i] = g.k[i] = g.s[i] = g.d[i] = 1;
        g.padBegin[i] = 0;
    }
    for (size_t i = 0; i < sp; ++i) {
        const size_t a = lead + i;
        int64_t in = x[2 + i], k = w[2 + i], s = strides[i], d = dil[i], op = outPad[i];
        if (!ks.empty() && ks[i] != k)
            shapeError(n, "kernel_shape does not match the weight shape {}", shapeToString(w));
        if (s <= 0 || d <= 0) shapeError(n, "strides and dilations must be positive");
        int64_t full = s * (in - 1) + op + (k - 1) * d + 1;  // the output before any padding
        int64_t out, begin;
        if (!outShape.empty() || autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
            // The spec: total padding from the requested output size, split by auto_pad
            // (SAME_UPPER puts the smaller half first).
            out = !outShape.empty() ? outShape[outShape.size() - sp + i] : in * s;
            int64_t total = full - out;
            begin = autoPad == "SAME_UPPER" ? floorDiv2(total) : total - floorDiv2(total);
        } else {
            int64_t b = autoPad == "VALID" ? 0 : pads[i], e = autoPad == "VALID" ? 0 : pads[i + sp];
            out = full - b - e;
            begin = b;
        }
        if (out <= 0) shapeError(n, "the output would be empty along spatial axis {}", i);
        g.in[a] = in;
        g.out[a] = out;
        g.k[a] = k;
        g.s[a] = s;
        g.d[a] = d;
        g.padBegin[a] = begin;
    }
    return g;
}

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
    t.push_back(withFp16({"ConvTranspose", 1, 1000, inferConvTranspose, evalConvTranspose, lowerConvTranspose}));
}

}  // namespace vkinfer::ops
