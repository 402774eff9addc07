// GridSample (opset 16: modes bilinear / nearest / bicubic; 20 and 22: linear / nearest /
// cubic) over 4-D NCHW: frame interpolation's backward warp (RIFE) and spatial transformers;
// from opset 20 also 5-D NCDHW (volumetric: linear or nearest, as ONNX defines cubic for 4-D only).
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
    if (x.size() != 4 && x.size() != 5)
        unsupported(n, "GridSample of a {}-D input: 4-D [N, C, H, W] and 5-D [N, C, D, H, W] are supported", x.size());
    const size_t spatial = x.size() - 2;
    if (grid.size() != x.size() || grid[0] != x[0] || grid.back() != static_cast<int64_t>(spatial))
        shapeError(n, "grid {} must be [N, {}{}] with N = {} (the input {})", shapeToString(grid),
                   spatial == 3 ? "D_out, H_out, W_out, " : "H_out, W_out, ", spatial, x[0], shapeToString(x));
    checkModeName(n, g.opset);
    if (spatial == 3 && gridSpecOf(n).mode == GridMode::Cubic)
        unsupported(n, "cubic GridSample of a 5-D input (ONNX defines cubic for 4-D input only)");
    Shape out{x[0], x[1]};
    out.insert(out.end(), grid.begin() + 1, grid.end() - 1);
    setOutput(g, n, 0, DataType::Float32, out);
}

// The CPU twin of shaders/grid_sample.comp, function for function.
struct Sampler {
    GridSpec s;

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
        // A coordinate no index reaches (a grid value of 1e30, an infinity that reflection
        // turned into NaN, NaN itself) is taken as one far outside the input: its taps read
        // the padding. Converting it to an integer as it is would be undefined.
        constexpr float kFar = 1 << 30;
        c = std::isnan(c) ? -kFar : std::clamp(c, -kFar, kFar);
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

// The sizes of a 4-D or 5-D GridSample: 4-D as one plane (D = OD = 1).
struct GridDims {
    int64_t N, C, D, H, W, OD, OH, OW;
    bool volume;
};

GridDims gridDims(const Shape& xs, const Shape& gs) {
    const bool v = xs.size() == 5;
    return {xs[0], xs[1], v ? xs[2] : 1, xs[v ? 3 : 2], xs[v ? 4 : 3], v ? gs[1] : 1, gs[v ? 2 : 1], gs[v ? 3 : 2], v};
}

void evalGridSample(const Node& n, std::span<const Tensor* const> in, std::span<Tensor> out) {
    const GridSpec spec = gridSpecOf(n);
    const GridDims g = gridDims(in[0]->shape(), in[1]->shape());
    Sampler smp{spec};
    const float* x = in[0]->as<float>();
    const float* grid = in[1]->as<float>();
    float* y = out[0].as<float>();
    const int64_t coords = g.volume ? 3 : 2, outVolume = g.OD * g.OH * g.OW;
    // The taps along one axis of grid coordinate v.
    auto axisTaps = [&](float v, int64_t len, int64_t idx[4], float w[4]) {
        float c = smp.denormalize(v, len);
        if (spec.mode == GridMode::Nearest) c = std::nearbyint(c);  // half to even
        return smp.taps(smp.padCoord(c, len), len, idx, w);
    };
    for (int64_t b = 0; b < g.N; ++b)
        for (int64_t o = 0; o < outVolume; ++o) {
            const float* gp = grid + coords * (b * outVolume + o);
            int64_t ix[4], iy[4], iz[4] = {0};
            float wx[4], wy[4], wz[4] = {1.0f};
            const int tx = axisTaps(gp[0], g.W, ix, wx), ty = axisTaps(gp[1], g.H, iy, wy);
            const int tz = g.volume ? axisTaps(gp[2], g.D, iz, wz) : 1;
            for (int64_t c = 0; c < g.C; ++c) {
                const float* volume = x + (b * g.C + c) * g.D * g.H * g.W;
                float acc = 0.0f;
                for (int k = 0; k < tz; ++k) {
                    if (iz[k] < 0) continue;
                    const float* plane = volume + iz[k] * g.H * g.W;
                    float sum = 0.0f;
                    for (int j = 0; j < ty; ++j) {
                        if (iy[j] < 0) continue;
                        float row = 0.0f;
                        for (int i = 0; i < tx; ++i)
                            if (ix[i] >= 0) row += wx[i] * plane[iy[j] * g.W + ix[i]];
                        sum += wy[j] * row;
                    }
                    acc += wz[k] * sum;
                }
                y[(b * g.C + c) * outVolume + o] = acc;
            }
        }
}

void lowerGridSample(LowerContext& ctx, const Node& n) {
    const GridDims g = gridDims(ctx.value(n.inputs[0]).shape, ctx.value(n.inputs[1]).shape);
    const GridSpec spec = gridSpecOf(n);
    const int64_t points = g.N * g.OD * g.OH * g.OW;
    if (points == 0 || g.C == 0) return;
    if (g.D == 0 || g.H == 0 || g.W == 0) unsupported(n, "GridSample of an empty image {}", shapeToString(ctx.value(n.inputs[0]).shape));
    requireIndexable(n, std::max({ctx.value(n.inputs[0]).elementCount(), ctx.value(n.outputs[0]).elementCount(),
                                  (g.volume ? 3 : 2) * points}));
    const DataType type = floatKernelType(ctx, n, n.inputs[0], {n.inputs[1], n.outputs[0]});
    Dispatch& d = ctx.emit(typedKernel(n, kernels::grid_sample::variant(type), "grid_sample", type));
    setActivation(d, n.activation);
    d.setSpec(kernels::grid_sample::kMode, static_cast<uint32_t>(spec.mode));
    d.setSpec(kernels::grid_sample::kPadding, static_cast<uint32_t>(spec.padding));
    d.setSpec(kernels::grid_sample::kAlignCorners, spec.alignCorners ? 1 : 0);
    d.setSpec(kernels::grid_sample::kVolume, g.volume ? 1 : 0);
    kernels::grid_sample::Push p{};
    p.N = u32(g.N);
    p.C = u32(g.C);
    p.D = u32(g.D);
    p.H = u32(g.H);
    p.W = u32(g.W);
    p.OD = u32(g.OD);
    p.OH = u32(g.OH);
    p.OW = u32(g.OW);
    d.setPush(p);
    setLaunch1d(d, points, 64);
    d.bindings = {writeOf(n.outputs[0]), readOf(n.inputs[0]), readOf(n.inputs[1])};
}

}  // namespace

void registerGridSampleOps(std::vector<OpDef>& t) {
    t.push_back(withFp16({"GridSample", 16, 1000, inferGridSample, evalGridSample, lowerGridSample}));
}

}  // namespace vkinfer::ops
