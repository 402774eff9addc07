#version 450
// GridSample (ONNX opset 16/20/22): y[n, c, oy, ox] samples x[n, c] at the grid's (x, y) in
// [-1, 1] (grid[n, oy, ox] = (x, y)), bilinear, nearest or bicubic (Keys, a = -0.75), with
// zeros, border or reflection padding, as the ONNX reference computes it (ops/grid_sample.cpp
// is the CPU twin): one invocation per output point computes the taps and weights once and
// walks the channels. VOLUME (opset 20 on, 5-D): y[n, c, oz, oy, ox] at the grid's (x, y, z),
// trilinear or nearest; 2-D is one plane of weight 1.
#include "common.glsl"
#include "types.glsl"
#include "grid_sample.glsl"  // push constants, specialization constants: shaders/kernels/grid_sample.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };
layout(std430, binding = 2) readonly buffer Grid { T grid[]; };

float denormalize(float v, uint len) {
    return ALIGN_CORNERS != 0u ? (v + 1.0) * 0.5 * float(len - 1u) : ((v + 1.0) * float(len) - 1.0) * 0.5;
}

// Reflects v into [lo, hi] by the nearer border, repeatedly.
float reflectInto(float v, float lo, float hi) {
    float range = hi - lo;
    if (range <= 0.0) return lo;
    if (v < lo) {
        float d = lo - v, k = floor(d / range), r = d - k * range;
        return mod(k, 2.0) == 0.0 ? lo + r : hi - r;
    }
    if (v > hi) {
        float d = v - hi, k = floor(d / range), r = d - k * range;
        return mod(k, 2.0) == 0.0 ? hi - r : lo + r;
    }
    return v;
}

// The coordinate after the padding's adjustment of coordinates outside [lo, hi].
float padCoord(float v, uint len, float lo, float hi) {
    if (v >= lo && v <= hi) return v;
    if (PADDING == 1u) return clamp(v, 0.0, float(len - 1u));
    if (PADDING == 2u) return reflectInto(v, lo, hi);
    return v;
}

// Index i of an axis of `len` under the padding; -1: a zero (zeros padding).
int tapIndex(int i, uint len, float lo, float hi) {
    if (i >= 0 && i < int(len)) return i;
    if (PADDING == 0u) return -1;
    if (PADDING == 1u) return clamp(i, 0, int(len) - 1);
    return clamp(int(reflectInto(float(i), lo, hi)), 0, int(len) - 1);
}

void cubicWeights(float t, out float w[4]) {
    const float a = -0.75;
    float t1 = t + 1.0, t2 = 1.0 - t, t3 = 2.0 - t;
    w[0] = ((a * t1 - 5.0 * a) * t1 + 8.0 * a) * t1 - 4.0 * a;
    w[1] = ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0;
    w[2] = ((a + 2.0) * t2 - (a + 3.0)) * t2 * t2 + 1.0;
    w[3] = ((a * t3 - 5.0 * a) * t3 + 8.0 * a) * t3 - 4.0 * a;
}

// The taps along one axis of grid coordinate g (in [-1, 1]): their count, indices (-1: a
// zero) and weights.
int axisTaps(float g, uint len, out int idx[4], out float w[4]) {
    float lo = ALIGN_CORNERS != 0u ? 0.0 : -0.5, hi = ALIGN_CORNERS != 0u ? float(len) - 1.0 : float(len) - 0.5;
    float c = denormalize(g, len);
    if (MODE == 1u) c = roundEven(c);  // nearest rounds half to even first, as the reference (std::nearbyint)
    c = padCoord(c, len, lo, hi);
    if (MODE == 1u) {
        idx[0] = tapIndex(int(c), len, lo, hi);  // toward zero, as the reference's astype(int32)
        w[0] = 1.0;
        return 1;
    }
    float f = floor(c);
    if (MODE == 0u) {
        for (int k = 0; k < 2; ++k) idx[k] = tapIndex(int(f) + k, len, lo, hi);
        w[0] = 1.0 - (c - f);
        w[1] = c - f;
        return 2;
    }
    for (int k = 0; k < 4; ++k) idx[k] = tapIndex(int(f) + k - 1, len, lo, hi);
    cubicWeights(c - f, w);
    return 4;
}

void main() {
    uint pixel = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint outVolume = p.OD * p.OH * p.OW;
    if (pixel >= p.N * outVolume) return;
    uint n = pixel / outVolume, o = pixel % outVolume;
    const uint coords = VOLUME != 0u ? 3u : 2u;  // the grid's (x, y[, z]) per output point
    int ix[4], iy[4], iz[4];
    float wx[4], wy[4], wz[4];
    int tx = axisTaps(float(grid[coords * pixel]), p.W, ix, wx);
    int ty = axisTaps(float(grid[coords * pixel + 1u]), p.H, iy, wy);
    int tz = 1;  // 2-D: one plane of weight 1
    iz[0] = 0;
    wz[0] = 1.0;
    if (VOLUME != 0u) tz = axisTaps(float(grid[coords * pixel + 2u]), p.D, iz, wz);

    uint inVolume = p.D * p.H * p.W;
    for (uint c = 0; c < p.C; ++c) {
        uint base = (n * p.C + c) * inVolume;
        float acc = 0.0;
        for (int k = 0; k < tz; ++k) {
            if (iz[k] < 0) continue;
            uint planeBase = base + uint(iz[k]) * p.H * p.W;
            float plane = 0.0;
            for (int j = 0; j < ty; ++j) {
                if (iy[j] < 0) continue;
                float row = 0.0;
                for (int i = 0; i < tx; ++i)
                    if (ix[i] >= 0) row += wx[i] * float(x[planeBase + uint(iy[j]) * p.W + uint(ix[i])]);
                plane += wy[j] * row;
            }
            acc += wz[k] * plane;
        }
        y[(n * p.C + c) * outVolume + o] = T(activate(acc));
    }
}
