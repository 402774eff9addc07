#version 450
// Resize over the last two dimensions for what resize.comp does not cover: cubic
// interpolation (cubic_coeff_a, exclude_outside), tf_crop_and_resize (roi, extrapolation),
// half_pixel_symmetric (opset 19) and align_corners with a fractional resized length (scales given: the ONNX reference
// divides by scale * length - 1, not by the rounded output size - 1). Separable: up to 4
// taps per axis, edge-clamped, as the ONNX reference interpolates axis by axis; antialiased
// downsampling (opset 18, MODE 3) takes as many taps as the stretched filter covers, with
// indices and weights from a table.
#include "common.glsl"
#include "types.glsl"
#include "resize_general.glsl"  // push constants, specialization constants: shaders/kernels/resize_general.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };
// Computed on the CPU (ops/resize.cpp), by the reference's arithmetic. Nearest (MODE 0): the
// source row of each output row, then the source column of each output column, clamped, or
// OUTSIDE beyond a tf_crop_and_resize roi (the divisions below are not correctly rounded on
// every device, and a coordinate one ulp off a tie picks the other pixel). MODE 3: per output
// row p.tapsH (index, weight bits) pairs, then per output column p.tapsW pairs; OUTSIDE as the
// first index beyond the roi.
layout(std430, binding = 2) readonly buffer Taps { int tapTable[]; };
const int OUTSIDE = -2147483647 - 1;

// Source coordinate; `outside` is set for tf_crop_and_resize beyond the input.
float sourceCoord(uint o, float scale, uint inLen, uint outLen, float len, float r0, float r1, inout bool outside) {
    float xo = float(o), last = float(inLen - 1u);
    if (COORD_MODE == 6u) return 0.5 * float(inLen) * (1.0 - float(outLen) / len) + (xo + 0.5) / scale - 0.5;
    if (COORD_MODE == 0u) return (xo + 0.5) / scale - 0.5;
    if (COORD_MODE == 1u) return len > 1.0 ? (xo + 0.5) / scale - 0.5 : -0.5;
    if (COORD_MODE == 2u) return len > 1.0 ? xo * last / (len - 1.0) : 0.0;
    if (COORD_MODE == 3u) return xo / scale;
    if (COORD_MODE == 4u) return (xo + 0.5) / scale;
    float c = len > 1.0 ? r0 * last + xo * (r1 - r0) * last / (len - 1.0) : 0.5 * (r0 + r1) * last;
    if (c < 0.0 || c > last) outside = true;
    return c;
}

// Taps along one axis (linear, cubic): first index (may lie outside; reads clamp) and up to 4 weights.
void taps(float c, uint inLen, out int first, out vec4 w) {
    float f = floor(c), t = c - f;
    if (MODE == 1u) {
        first = int(f);
        w = vec4(1.0 - t, t, 0.0, 0.0);
        return;
    }
    float A = p.cubicA, s = t + 1.0, u = 1.0 - t, v = 2.0 - t;
    first = int(f) - 1;
    w = vec4(((A * s - 5.0 * A) * s + 8.0 * A) * s - 4.0 * A, ((A + 2.0) * t - (A + 3.0)) * t * t + 1.0,
             ((A + 2.0) * u - (A + 3.0)) * u * u + 1.0, ((A * v - 5.0 * A) * v + 8.0 * A) * v - 4.0 * A);
    if (EXCLUDE_OUTSIDE != 0u) {
        for (int k = 0; k < 4; ++k)
            if (first + k < 0 || first + k >= int(inLen)) w[k] = 0.0;
        w /= (w.x + w.y + w.z + w.w);
    }
}

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.NC * p.OH * p.OW) return;
    uint ox = idx % p.OW, t = idx / p.OW;
    uint oy = t % p.OH, nc = t / p.OH;
    if (MODE == 0u) {
        int ty = tapTable[oy], tx = tapTable[p.OH + ox];
        y[idx] = T(activate(ty == OUTSIDE || tx == OUTSIDE ? p.extrapolation
                                                           : float(x[(nc * p.IH + uint(ty)) * p.IW + uint(tx)])));
        return;
    }
    if (MODE == 3u) {
        uint rowAt = 2u * oy * p.tapsH, colAt = 2u * (p.OH * p.tapsH + ox * p.tapsW), base = nc * p.IH * p.IW;
        if (tapTable[rowAt] == OUTSIDE || tapTable[colAt] == OUTSIDE) {
            y[idx] = T(activate(p.extrapolation));
            return;
        }
        float acc = 0.0;
        for (uint i = 0u; i < p.tapsH; ++i) {
            float wy = intBitsToFloat(tapTable[rowAt + 2u * i + 1u]);
            if (wy == 0.0) continue;
            uint rowBase = base + uint(tapTable[rowAt + 2u * i]) * p.IW;
            float row = 0.0;
            for (uint j = 0u; j < p.tapsW; ++j)
                row += intBitsToFloat(tapTable[colAt + 2u * j + 1u]) * float(x[rowBase + uint(tapTable[colAt + 2u * j])]);
            acc += wy * row;
        }
        y[idx] = T(activate(acc));
        return;
    }
    bool outside = false;
    float cy = sourceCoord(oy, p.scaleH, p.IH, p.OH, p.lenH, p.roiH0, p.roiH1, outside);
    float cx = sourceCoord(ox, p.scaleW, p.IW, p.OW, p.lenW, p.roiW0, p.roiW1, outside);
    if (outside) {
        y[idx] = T(activate(p.extrapolation));
        return;
    }
    int fy, fx;
    vec4 wy, wx;
    taps(cy, p.IH, fy, wy);
    taps(cx, p.IW, fx, wx);
    uint base = nc * p.IH * p.IW;
    float acc = 0.0;
    for (int i = 0; i < 4; ++i) {
        if (wy[i] == 0.0) continue;
        uint yy = uint(clamp(fy + i, 0, int(p.IH) - 1));
        float row = 0.0;
        for (int j = 0; j < 4; ++j)
            if (wx[j] != 0.0) row += wx[j] * float(x[base + yy * p.IW + uint(clamp(fx + j, 0, int(p.IW) - 1))]);
        acc += wy[i] * row;
    }
    y[idx] = T(activate(acc));
}
