#include "ops/conv/geometry.h"

#include <algorithm>

#include "ops/node_checks.h"

namespace vkinfer::ops {

namespace {

// Pads for one spatial axis per auto_pad; returns {begin, end}.
std::pair<int64_t, int64_t> axisPads(const std::string& autoPad, int64_t in, int64_t k, int64_t s, int64_t d,
                                     int64_t padBegin, int64_t padEnd) {
    if (autoPad == "VALID") return {0, 0};
    if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
        int64_t out = (in + s - 1) / s;
        int64_t total = std::max<int64_t>(0, (out - 1) * s + (k - 1) * d + 1 - in);
        int64_t small = total / 2;
        return autoPad == "SAME_UPPER" ? std::pair{small, total - small} : std::pair{total - small, small};
    }
    return {padBegin, padEnd};
}

}  // namespace

ConvGeom convGeometry(const Node& n, const Shape& x, const Shape& w) {
    if (x.size() != 3 && x.size() != 4)
        unsupported(n, "only 1-D and 2-D convolutions are supported (input shape {})", shapeToString(x));
    if (w.size() != x.size()) shapeError(n, "weight rank {} does not match input rank {}", w.size(), x.size());
    const bool oneD = x.size() == 3;
    ConvGeom g{};
    g.N = x[0];
    g.C = x[1];
    g.H = oneD ? 1 : x[2];
    g.W = x.back();
    g.M = w[0];
    g.KH = oneD ? 1 : w[2];
    g.KW = w.back();
    g.groups = n.attrInt("group", 1);
    // An empty kernel or no input channels leaves no reduction (the split-K and tile
    // arithmetic divide by its length).
    checkGeometry(n, "kernel size (weight dims)", {g.KH, g.KW}, 1);
    checkGeometry(n, "group", {g.groups}, 1);
    if (g.C == 0) shapeError(n, "the input {} has no channels", shapeToString(x));
    if (g.C % g.groups || g.M % g.groups)
        shapeError(n, "group {} does not divide input channels {} and output channels {}", g.groups, g.C, g.M);
    if (w[1] * g.groups != g.C)
        shapeError(n, "weight shape {} expects {} input channels, input has {}", shapeToString(w), w[1] * g.groups, g.C);
    auto ks = n.attrInts("kernel_shape");
    if (!ks.empty() && (ks.back() != g.KW || (!oneD && ks[0] != g.KH)))
        shapeError(n, "kernel_shape does not match the weight shape {}", shapeToString(w));
    size_t sp = oneD ? 1 : 2;
    auto strides = n.attrInts("strides", std::vector<int64_t>(sp, 1));
    auto dil = n.attrInts("dilations", std::vector<int64_t>(sp, 1));
    auto pads = n.attrInts("pads", std::vector<int64_t>(2 * sp, 0));
    if (strides.size() != sp || dil.size() != sp || pads.size() != 2 * sp)
        shapeError(n, "strides/dilations/pads have the wrong length for a {}-D convolution", sp);
    checkGeometry(n, "strides", strides, 1);
    checkGeometry(n, "dilations", dil, 1);
    checkGeometry(n, "pads", pads, 0);
    g.SH = oneD ? 1 : strides[0];
    g.SW = strides.back();
    g.DH = oneD ? 1 : dil[0];
    g.DW = dil.back();
    std::string autoPad = n.attrString("auto_pad", "NOTSET");
    if (oneD) {
        g.padT = g.padB = 0;
        std::tie(g.padL, g.padR) = axisPads(autoPad, g.W, g.KW, g.SW, g.DW, pads[0], pads[1]);
    } else {
        std::tie(g.padT, g.padB) = axisPads(autoPad, g.H, g.KH, g.SH, g.DH, pads[0], pads[2]);
        std::tie(g.padL, g.padR) = axisPads(autoPad, g.W, g.KW, g.SW, g.DW, pads[1], pads[3]);
    }
    if (g.SH <= 0 || g.SW <= 0 || g.DH <= 0 || g.DW <= 0) shapeError(n, "strides and dilations must be positive");
    g.OH = (g.H + g.padT + g.padB - ((g.KH - 1) * g.DH + 1)) / g.SH + 1;
    g.OW = (g.W + g.padL + g.padR - ((g.KW - 1) * g.DW + 1)) / g.SW + 1;
    if (g.OH <= 0 || g.OW <= 0) shapeError(n, "the kernel does not fit the padded input {}", shapeToString(x));
    return g;
}

Tensor reductionTable(const ConvGeom& g, int64_t rows) {
    const int64_t Cg = g.C / g.groups, K = Cg * g.KH * g.KW;
    Tensor t(DataType::Int32, {std::max(rows, K), 4});
    int32_t* e = t.as<int32_t>();
    for (int64_t ci = 0; ci < Cg; ++ci)
        for (int64_t ky = 0; ky < g.KH; ++ky)
            for (int64_t kx = 0; kx < g.KW; ++kx, e += 4) {
                int64_t dy = ky * g.DH, dx = kx * g.DW;
                e[0] = static_cast<int32_t>(ci * g.H * g.W + dy * g.W + dx);
                e[1] = static_cast<int32_t>(dy);
                e[2] = static_cast<int32_t>(dx);
                e[3] = 0;
            }
    for (int64_t k = K; k < rows; ++k, e += 4) e[1] = e[2] = 1 << 29;
    return t;
}

std::optional<ConvTypes> convTypes(const graph::Graph& g, const graph::Node& n) {
    ConvTypes t;
    t.kernel = g.values[n.inputs[1]].dtype;
    for (int v : {n.inputs[0], n.input(2), n.input(3)})
        if (v >= 0 && g.values[v].dtype != t.kernel) return std::nullopt;
    // The output: the kernel's type, or float32 out of a float16 kernel.
    const DataType out = g.values[n.outputs[0]].dtype;
    t.storesFloat32 = out == DataType::Float32 && t.kernel == DataType::Float16;
    if (out != t.kernel && !t.storesFloat32) return std::nullopt;
    return t;
}

}  // namespace vkinfer::ops
