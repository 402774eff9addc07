#version 450
// GridSample (ONNX opset 16/20/22, 2-D): y[n, c, oy, ox] samples x[n, c] at the grid's
// (x, y) in [-1, 1] (grid[n, oy, ox] = (x, y)), bilinear, nearest or bicubic (Keys, a =
// -0.75), with zeros, border or reflection padding, as the ONNX reference computes it
// (ops/grid_sample.cpp is the CPU twin): one invocation per output pixel computes the taps
// and weights once and walks the channels.
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

void main() {
    uint pixel = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint outPlane = p.OH * p.OW;
    if (pixel >= p.N * outPlane) return;
    uint n = pixel / outPlane, o = pixel % outPlane;
    float gx = float(grid[2u * pixel]), gy = float(grid[2u * pixel + 1u]);
    float loX = ALIGN_CORNERS != 0u ? 0.0 : -0.5, hiX = ALIGN_CORNERS != 0u ? float(p.W) - 1.0 : float(p.W) - 0.5;
    float loY = ALIGN_CORNERS != 0u ? 0.0 : -0.5, hiY = ALIGN_CORNERS != 0u ? float(p.H) - 1.0 : float(p.H) - 0.5;
    float cx = denormalize(gx, p.W), cy = denormalize(gy, p.H);
    if (MODE == 1u) {  // nearest rounds half to even first, as the reference (std::nearbyint)
        cx = roundEven(cx);
        cy = roundEven(cy);
    }
    cx = padCoord(cx, p.W, loX, hiX);
    cy = padCoord(cy, p.H, loY, hiY);

    // Up to 4 taps per axis: their indices (-1: zero) and weights.
    int ix[4], iy[4];
    float wx[4], wy[4];
    int taps;
    if (MODE == 1u) {
        taps = 1;
        ix[0] = tapIndex(int(cx), p.W, loX, hiX);  // toward zero, as the reference's astype(int32)
        iy[0] = tapIndex(int(cy), p.H, loY, hiY);
        wx[0] = 1.0;
        wy[0] = 1.0;
    } else if (MODE == 0u) {
        taps = 2;
        float fx = floor(cx), fy = floor(cy);
        for (int k = 0; k < 2; ++k) {
            ix[k] = tapIndex(int(fx) + k, p.W, loX, hiX);
            iy[k] = tapIndex(int(fy) + k, p.H, loY, hiY);
        }
        wx[0] = 1.0 - (cx - fx);
        wx[1] = cx - fx;
        wy[0] = 1.0 - (cy - fy);
        wy[1] = cy - fy;
    } else {
        taps = 4;
        float fx = floor(cx), fy = floor(cy);
        for (int k = 0; k < 4; ++k) {
            ix[k] = tapIndex(int(fx) + k - 1, p.W, loX, hiX);
            iy[k] = tapIndex(int(fy) + k - 1, p.H, loY, hiY);
        }
        cubicWeights(cx - fx, wx);
        cubicWeights(cy - fy, wy);
    }

    uint inPlane = p.H * p.W;
    for (uint c = 0; c < p.C; ++c) {
        uint base = (n * p.C + c) * inPlane;
        float acc = 0.0;
        for (int j = 0; j < taps; ++j) {
            if (iy[j] < 0) continue;
            float row = 0.0;
            for (int i = 0; i < taps; ++i)
                if (ix[i] >= 0) row += wx[i] * float(x[base + uint(iy[j]) * p.W + uint(ix[i])]);
            acc += wy[j] * row;
        }
        y[(n * p.C + c) * outPlane + o] = T(activate(acc));
    }
}
