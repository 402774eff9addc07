// GridSample (opset 16: modes bilinear / nearest / bicubic; 20 and 22: linear / nearest /
// cubic) over 4-D NCHW: frame interpolation's backward warp (RIFE) and spatial transformers.
// Zeros, border and reflection padding and align_corners follow the ONNX reference
// (onnx/reference/ops/op_grid_sample.py): coordinates outside the borders are clamped or
// reflected first, then every tap is padded again. shaders/grid_sample.comp is the kernel;
// this file's evaluator is its CPU twin, in float as the kernel computes.
#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/families/grid_sample.h"
#include "ops/emit.h"
#include "ops/node_checks.h"
#include "ops/registry.h"

namespace vkinfer::ops {

namespace {

// Matches MODE and PADDING in shaders/grid_sample.comp.
enum class GridMode : uint32_t { Linear = 0, Nearest = 1, Cubic = 2 };
enum class GridPadding : uint32_t { Zeros = 0, Border = 1, Reflection = 2 };

struct GridSpec {
    GridMode mode = GridMode::Linear;
    GridPadding padding = GridPadding::Zeros;
    bool alignCorners = false;
};

// Opset 20 renamed bilinear and bicubic to linear and cubic (checkModeName holds each opset
// to its names; the evaluator, without the graph, reads both). The default is the same mode.
GridSpec gridSpecOf(const Node& n) {
    GridSpec s;
    const std::string mode = n.attrString("mode", "linear");
    if (mode == "linear" || mode == "bilinear") s.mode = GridMode::Linear;
    else if (mode == "nearest") s.mode = GridMode::Nearest;
    else if (mode == "cubic" || mode == "bicubic") s.mode = GridMode::Cubic;
    else unsupported(n, "mode '{}' is not a GridSample mode", mode);
    const std::string padding = n.attrString("padding_mode", "zeros");
    if (padding == "zeros") s.padding = GridPadding::Zeros;
    else if (padding == "border") s.padding = GridPadding::Border;
    else if (padding == "reflection") s.padding = GridPadding::Reflection;
    else unsupported(n, "padding_mode '{}' is not zeros, border or reflection", padding);
    s.alignCorners = n.attrInt("align_corners", 0) != 0;
    return s;
}

void checkModeName(const Node& n, int64_t opset) {
    if (!n.hasAttr("mode")) return;
    const std::string mode = n.attrString("mode", "");
    const bool renamed = opset >= 20;
    if (mode == "nearest" || mode == (renamed ? "linear" : "bilinear") || mode == (renamed ? "cubic" : "bicubic")) return;
    unsupported(n, "mode '{}' is not a GridSample mode at opset {} ({})", mode, opset,
                renamed ? "linear, nearest, cubic" : "bilinear, nearest, bicubic");
}

void inferGridSample(Graph& g, const Node& n) {
    requireFloat(g, n, 0);
    requireFloat(g, n, 1);
    const Shape& x = inputShape(g, n, 0);
    const Shape& grid = inputShape(g, n, 1);
    if (x.size() != 4)
        unsupported(n, "GridSample of a {}-D input: only 4-D [N, C, H, W] is supported", x.size());
    if (grid.size() != 4 || grid[0] != x[0] || grid[3] != 2)
        shapeError(n, "grid {} must be [N, H_out, W_out, 2] with N = {} (the input {})", shapeToString(grid), x[0],
                   shapeToString(x));
    checkModeName(n, g.opset);
    gridSpecOf(n);
    setOutput(g, n, 0, DataType::Float32, {x[0], x[1], grid[1], grid[2]});
}

// The CPU twin of shaders/grid_sample.comp, function for function.
struct Sampler {
    GridSpec s;
    int64_t H, W;

    float denormalize(float v, int64_t len) const {
        return s.alignCorners ? (v + 1.0f) * 0.5f * static_cast<float>(len - 1)
                              : ((v + 1.0f) * static_cast<float>(len) - 1.0f) * 0.5f;
    }
    float lo() const { return s.alignCorners ? 0.0f : -0.5f; }
    float hi(int64_t len) const { return s.alignCorners ? static_cast<float>(len) - 1.0f : static_cast<float>(len) - 0.5f; }
    static float reflectInto(float v, float lo, float hi) {
        const float range = hi - lo;
        if (range <= 0.0f) return lo;
        if (v < lo) {
            const float d = lo - v, k = std::floor(d / range), r = d - k * range;
            return std::fmod(k, 2.0f) == 0.0f ? lo + r : hi - r;
        }
        if (v > hi) {
            const float d = v - hi, k = std::floor(d / range), r = d - k * range;
            return std::fmod(k, 2.0f) == 0.0f ? hi - r : lo + r;
        }
        return v;
    }
    float padCoord(float v, int64_t len) const {
        if (v >= lo() && v <= hi(len)) return v;
        if (s.padding == GridPadding::Border) return std::clamp(v, 0.0f, static_cast<float>(len - 1));
        if (s.padding == GridPadding::Reflection) return reflectInto(v, lo(), hi(len));
        return v;
    }
    int64_t tapIndex(int64_t i, int64_t len) const {
        if (i >= 0 && i < len) return i;
        if (s.padding == GridPadding::Zeros) return -1;
        if (s.padding == GridPadding::Border) return std::clamp<int64_t>(i, 0, len - 1);
        return std::clamp<int64_t>(static_cast<int64_t>(reflectInto(static_cast<float>(i), lo(), hi(len))), 0, len - 1);
    }
    static void cubicWeights(float t, float w[4]) {
        const float a = -0.75f, t1 = t + 1.0f, t2 = 1.0f - t, t3 = 2.0f - t;
        w[0] = ((a * t1 - 5.0f * a) * t1 + 8.0f * a) * t1 - 4.0f * a;
        w[1] = ((a + 2.0f) * t - (a + 3.0f)) * t * t + 1.0f;
        w[2] = ((a + 2.0f) * t2 - (a + 3.0f)) * t2 * t2 + 1.0f;
        w[3] = ((a * t3 - 5.0f * a) * t3 + 8.0f * a) * t3 - 4.0f * a;
    }
    // The taps along one axis of coordinate c: their count, indices (-1: zero) and weights.
    int taps(float c, int64_t len, int64_t idx[4], float w[4]) const {
        if (s.mode == GridMode::Nearest) {
            idx[0] = tapIndex(static_cast<int64_t>(c), len);  // toward zero, as the reference's astype
            w[0] = 1.0f;
            return 1;
        }
        const float f = std::floor(c);
        const int64_t first = static_cast<int64_t>(f) - (s.mode == GridMode::Cubic ? 1 : 0);
        const int count = s.mode == GridMode::Cubic ? 4 : 2;
        for (int k = 0; k < count; ++k) idx[k] = tapIndex(first + k, len);
        if (s.mode == GridMode::Cubic) {
            cubicWeights(c - f, w);
        } else {
            w[0] = 1.0f - (c - f);
            w[1] = c - f;
        }
        return count;
    }
};

void evalGridSample(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const Shape& xs = in[0]->shape();
    const Shape& gs = in[1]->shape();
    const GridSpec spec = gridSpecOf(n);
    const int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], OH = gs[1], OW = gs[2];
    Sampler smp{spec, H, W};
    const float* x = in[0]->as<float>();
    const float* grid = in[1]->as<float>();
    float* y = out[0].as<float>();
    for (int64_t b = 0; b < N; ++b)
        for (int64_t o = 0; o < OH * OW; ++o) {
            const float* gp = grid + 2 * (b * OH * OW + o);
            float cx = smp.denormalize(gp[0], W), cy = smp.denormalize(gp[1], H);
            if (spec.mode == GridMode::Nearest) {
                cx = std::nearbyint(cx);  // half to even
                cy = std::nearbyint(cy);
            }
            cx = smp.padCoord(cx, W);
            cy = smp.padCoord(cy, H);
            int64_t ix[4], iy[4];
            float wx[4], wy[4];
            const int tx = smp.taps(cx, W, ix, wx), ty = smp.taps(cy, H, iy, wy);
            for (int64_t c = 0; c < C; ++c) {
                const float* plane = x + (b * C + c) * H * W;
                float acc = 0.0f;
                for (int j = 0; j < ty; ++j) {
                    if (iy[j] < 0) continue;
                    float row = 0.0f;
                    for (int i = 0; i < tx; ++i)
                        if (ix[i] >= 0) row += wx[i] * plane[iy[j] * W + ix[i]];
                    acc += wy[j] * row;
                }
                y[(b * C + c) * OH * OW + o] = acc;
            }
        }
}

void lowerGridSample(LowerContext& ctx, const Node& n) {
    const Shape xs = ctx.value(n.inputs[0]).shape;
    const Shape gs = ctx.value(n.inputs[1]).shape;
    const GridSpec spec = gridSpecOf(n);
    const int64_t pixels = gs[0] * gs[1] * gs[2];
    if (pixels == 0 || xs[1] == 0) return;
    if (xs[2] == 0 || xs[3] == 0) unsupported(n, "GridSample of an empty image {}", shapeToString(xs));
    requireIndexable(n, std::max({ctx.value(n.inputs[0]).elementCount(), ctx.value(n.outputs[0]).elementCount(),
                                  2 * pixels}));
    const DataType type = floatKernelType(ctx, n, n.inputs[0], {n.inputs[1], n.outputs[0]});
    Dispatch& d = ctx.emit(typedKernel(n, kernels::grid_sample::variant(type), "grid_sample", type));
    setActivation(d, n.activation);
    d.setSpec(kernels::grid_sample::kMode, static_cast<uint32_t>(spec.mode));
    d.setSpec(kernels::grid_sample::kPadding, static_cast<uint32_t>(spec.padding));
    d.setSpec(kernels::grid_sample::kAlignCorners, spec.alignCorners ? 1 : 0);
    kernels::grid_sample::Push p{};
    p.N = u32(xs[0]);
    p.C = u32(xs[1]);
    p.H = u32(xs[2]);
    p.W = u32(xs[3]);
    p.OH = u32(gs[1]);
    p.OW = u32(gs[2]);
    d.setPush(p);
    setLaunch1d(d, pixels, 64);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1])};
}

}  // namespace

void registerGridSampleOps(std::vector<OpDef>& t) {
    t.push_back(withFp16({"GridSample", 16, 1000, inferGridSample, evalGridSample, lowerGridSample}));
}

}  // namespace vkinfer::ops
