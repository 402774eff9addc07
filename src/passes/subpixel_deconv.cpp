#include "passes/subpixel_deconv.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/error.h"
#include "passes/graph_edit.h"

namespace vkinfer::passes {

using graph::Graph;
using graph::Node;

namespace {

int64_t floorMod(int64_t a, int64_t m) { return ((a % m) + m) % m; }

// Output phase of kernel tap `t` along an axis, and the input offset it reads at: output
// Y = s*q + r takes tap t from input q + delta where r + pad - t*d = s*delta.
struct Tap {
    int64_t phase, delta;
};
Tap tapOf(int64_t t, int64_t s, int64_t d, int64_t pad) {
    const int64_t r = floorMod(t * d - pad, s);
    return {r, (r + pad - t * d) / s};
}

}  // namespace

std::optional<SubPixelPlan> subPixelPlan(const ops::TConvGeom& g) {
    if (g.sp != 2 || g.s[1] != g.s[2]) return std::nullopt;
    SubPixelPlan p;
    p.stride = g.s[1];
    for (int a = 0; a < 2; ++a) {
        const int64_t s = g.s[1 + a], k = g.k[1 + a], d = g.d[1 + a], pad = g.padBegin[1 + a];
        const int64_t in = g.in[1 + a], out = g.out[1 + a];
        int64_t lo = 0, hi = 0;
        bool first = true;
        for (int64_t t = 0; t < k; ++t) {
            const int64_t delta = tapOf(t, s, d, pad).delta;
            lo = first ? delta : std::min(lo, delta);
            hi = first ? delta : std::max(hi, delta);
            first = false;
        }
        // Conv row r reads input rows r - padBegin ..: phase row q (input offsets lo..hi from
        // q) is Conv row q + lo + padBegin, which is q itself unless lo > 0.
        p.lowest[a] = lo;
        p.window[a] = hi - lo + 1;
        p.padBegin[a] = std::max<int64_t>(0, -lo);
        const int64_t skipped = lo + p.padBegin[a];
        const int64_t rows = (out + s - 1) / s;  // output rows of each phase, at most
        p.padEnd[a] = std::max<int64_t>(0, rows + skipped - 1 + p.window[a] - in - p.padBegin[a]);
        p.convOut[a] = in + p.padBegin[a] + p.padEnd[a] - p.window[a] + 1;
        p.cropStart[a] = s * skipped;
        p.crop = p.crop || skipped != 0 || s * p.convOut[a] != out;
    }
    p.workRatio = static_cast<double>(p.window[0] * p.window[1] * p.stride * p.stride) /
                  static_cast<double>(g.k[1] * g.k[2]);
    if (p.workRatio > kMaxSubPixelWorkRatio) return std::nullopt;
    return p;
}

namespace {

// The Conv's weights [M*s*s, C/group, window0, window1] and bias [M*s*s] (each of the M
// channels' bias repeated per phase), from ConvTranspose weights [C, M/group, k0, k1].
void subPixelWeights(const ops::TConvGeom& g, const SubPixelPlan& p, const Tensor& w, const Tensor* b, Tensor* nw,
                     Tensor* nb) {
    const int64_t s = p.stride, phases = s * s;
    const int64_t cg = g.C / g.groups, mg = g.M / g.groups;
    const int64_t k0 = g.k[1], k1 = g.k[2], w0 = p.window[0], w1 = p.window[1];
    *nw = Tensor(DataType::Float32, {g.M * phases, cg, w0, w1});
    float* out = nw->as<float>();
    std::fill(out, out + nw->elementCount(), 0.0f);
    const float* in = w.as<float>();
    for (int64_t c = 0; c < g.C; ++c)
        for (int64_t ml = 0; ml < mg; ++ml)
            for (int64_t ky = 0; ky < k0; ++ky)
                for (int64_t kx = 0; kx < k1; ++kx) {
                    const Tap ty = tapOf(ky, s, g.d[1], g.padBegin[1]), tx = tapOf(kx, s, g.d[2], g.padBegin[2]);
                    const int64_t m = (c / cg) * mg + ml;
                    const int64_t oc = m * phases + ty.phase * s + tx.phase;
                    const int64_t jy = ty.delta - p.lowest[0], jx = tx.delta - p.lowest[1];
                    out[((oc * cg + c % cg) * w0 + jy) * w1 + jx] = in[((c * mg + ml) * k0 + ky) * k1 + kx];
                }
    *nb = Tensor(DataType::Float32, {g.M * phases});
    for (int64_t m = 0; m < g.M; ++m)
        for (int64_t ph = 0; ph < phases; ++ph)
            nb->as<float>()[m * phases + ph] = b ? static_cast<float>(b->getDouble(m)) : 0.0f;
}

const Tensor* constantOf(const Graph& g, int v) {
    return v >= 0 && g.values[v].constant ? &*g.values[v].constant : nullptr;
}

int addInts(Graph& g, const std::string& hint, const std::vector<int64_t>& values) {
    Tensor t(DataType::Int64, {static_cast<int64_t>(values.size())});
    std::copy(values.begin(), values.end(), t.as<int64_t>());
    return g.addConstant(hint, std::move(t));
}

}  // namespace

void rewriteConvTransposeAsConv(Graph& g) {
    const size_t count = g.nodes.size();  // nodes appended below are not revisited
    bool changed = false;
    for (size_t i = 0; i < count; ++i) {
        if (g.nodes[i].removed || g.nodes[i].opType != "ConvTranspose") continue;
        const Node& n = g.nodes[i];
        const int x = n.input(0), y = n.outputs.empty() ? -1 : n.outputs[0];
        const Tensor* w = constantOf(g, n.input(1));
        const Tensor* b = constantOf(g, n.input(2));
        if (x < 0 || y < 0 || !w || (n.input(2) >= 0 && !b) || n.activation.kind != graph::ActKind::None) continue;
        if (g.values[x].dtype != DataType::Float32 || w->dtype() != DataType::Float32 ||
            (b && b->dtype() != DataType::Float32) || g.values[x].shape.size() != 4)
            continue;
        const ops::TConvGeom geo = ops::tconvGeometry(n, g.values[x].shape, w->shape());
        const std::optional<SubPixelPlan> plan = subPixelPlan(geo);
        if (!plan || (plan->crop && g.opset < 10)) continue;  // (Slice takes its bounds as inputs from opset 10)
        const int64_t s = plan->stride;
        Tensor nw, nb;
        subPixelWeights(geo, *plan, *w, b, &nw, &nb);
        const std::string name = n.name;
        const graph::Shape yShape = g.values[y].shape;

        Node conv;
        conv.name = name;  // messages and profiles keep naming the model's node
        conv.opType = "Conv";
        conv.inputs = {x, g.addConstant(name + "_subpixel_weight", std::move(nw)),
                       g.addConstant(name + "_subpixel_bias", std::move(nb))};
        conv.attrs["kernel_shape"] = std::vector<int64_t>{plan->window[0], plan->window[1]};
        conv.attrs["pads"] =
            std::vector<int64_t>{plan->padBegin[0], plan->padBegin[1], plan->padEnd[0], plan->padEnd[1]};
        conv.attrs["group"] = geo.groups;
        int shuffled = y;  // what DepthToSpace writes: the output, or what the crop cuts
        if (plan->crop)
            shuffled = g.addIntermediate(name + "_uncropped", DataType::Float32,
                                       {geo.N, geo.M, s * plan->convOut[0], s * plan->convOut[1]});
        conv.outputs = {s == 1 ? shuffled
                               : g.addIntermediate(name + "_phases", DataType::Float32,
                                                 {geo.N, geo.M * s * s, plan->convOut[0], plan->convOut[1]})};
        std::vector<Node> added;
        if (s != 1) {
            Node d2s;
            d2s.name = g.uniqueName(name + "_shuffle");
            d2s.opType = "DepthToSpace";
            d2s.inputs = {conv.outputs[0]};
            d2s.outputs = {shuffled};
            d2s.attrs["blocksize"] = s;
            d2s.attrs["mode"] = std::string("CRD");
            added.push_back(std::move(d2s));
        }
        if (plan->crop) {
            Node slice;
            slice.name = g.uniqueName(name + "_crop");
            slice.opType = "Slice";
            slice.inputs = {shuffled, addInts(g, name + "_crop_starts", {plan->cropStart[0], plan->cropStart[1]}),
                            addInts(g, name + "_crop_ends",
                                    {plan->cropStart[0] + yShape[2], plan->cropStart[1] + yShape[3]}),
                            addInts(g, name + "_crop_axes", {2, 3})};
            slice.outputs = {y};
            added.push_back(std::move(slice));
        }
        g.nodes[i] = std::move(conv);  // (n is gone from here on)
        for (auto& a : added) g.nodes.push_back(std::move(a));
        changed = true;
    }
    if (changed) g.relinkProducers();
}

}  // namespace vkinfer::passes
