#include "ops/conv/transpose_geometry.h"

#include "ops/node_checks.h"

namespace vkinfer::ops {

namespace {

int64_t floorDiv2(int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); }

}  // namespace

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

}  // namespace vkinfer::ops
