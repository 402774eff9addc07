#version 450
// Resize over the last two dimensions of NCHW: nearest (every ONNX nearest_mode) or
// bilinear, with the ONNX coordinate transformation modes.
#include "common.glsl"
#include "types.glsl"
#include "resize.glsl"  // push constants, specialization constants: shaders/kernels/resize.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };
// Nearest: the source row of each output row, then the source column of each output column,
// computed on the CPU (ops/resize.cpp, nearestTapTable): the division below is not correctly
// rounded on every device, and a coordinate one ulp off a tie picks the other pixel.
layout(std430, binding = 2) readonly buffer Taps { int nearestTap[]; };

float sourceCoord(uint o, float scale, uint inLen, uint outLen) {
    float xo = float(o);
    if (COORD_MODE == 0u) return (xo + 0.5) / scale - 0.5;                        // half_pixel
    if (COORD_MODE == 1u) return outLen > 1u ? (xo + 0.5) / scale - 0.5 : 0.0;     // pytorch_half_pixel
    if (COORD_MODE == 2u) return outLen > 1u ? xo * float(inLen - 1u) / float(outLen - 1u) : 0.0;  // align_corners
    if (COORD_MODE == 3u) return xo / scale;                                       // asymmetric
    return (xo + 0.5) / scale;                                                     // tf_half_pixel_for_nn
}

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.NC * p.OH * p.OW) return;
    uint ox = idx % p.OW, t = idx / p.OW;
    uint oy = t % p.OH, nc = t / p.OH;
    uint base = nc * p.IH * p.IW;
    float v;
    if (LINEAR == 0u) {
        v = float(x[base + uint(nearestTap[oy]) * p.IW + uint(nearestTap[p.OH + ox])]);
    } else {
        float cy = sourceCoord(oy, p.scaleH, p.IH, p.OH);
        float cx = sourceCoord(ox, p.scaleW, p.IW, p.OW);
        cy = clamp(cy, 0.0, float(p.IH - 1u));
        cx = clamp(cx, 0.0, float(p.IW - 1u));
        uint y0 = uint(floor(cy)), x0 = uint(floor(cx));
        uint y1 = min(y0 + 1u, p.IH - 1u), x1 = min(x0 + 1u, p.IW - 1u);
        float fy = cy - float(y0), fx = cx - float(x0);
        float top = mix(float(x[base + y0 * p.IW + x0]), float(x[base + y0 * p.IW + x1]), fx);
        float bot = mix(float(x[base + y1 * p.IW + x0]), float(x[base + y1 * p.IW + x1]), fx);
        v = mix(top, bot, fy);
    }
    y[idx] = T(activate(v));
}
