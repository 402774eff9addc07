#version 450
// Second half of a split-K convolution (conv2d.comp with SPLITK): per output element, the
// splits' partial sums added in split order (so results do not depend on scheduling), then
// bias, the residual and the fused activation, stored as T. p.nhwc: all of them channels-last.
// p.quads: each invocation reduces four consecutive elements (one channel's four pixels in
// NCHW, one pixel's four channels in NHWC) through 16-byte loads and stores.
#include "common.glsl"
#include "types.glsl"
#include "conv_splitk_reduce.glsl"  // push constants, specialization constants, constants: shaders/kernels/conv_splitk_reduce.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 0) writeonly buffer Out4 { T4 y4[]; };
layout(std430, binding = 1) readonly buffer Partial { float part[]; };
layout(std430, binding = 1) readonly buffer Partial4 { vec4 part4[]; };
layout(std430, binding = 2) readonly buffer Bias { T bias[]; };
#ifdef RESIDUAL
layout(std430, binding = 3) readonly buffer Residual { T res[]; };
layout(std430, binding = 3) readonly buffer Residual4 { T4 res4[]; };
#endif


// Where element idx's partial sum of split 0 lies (split s adds s times the stride), and its channel.
uint partialIndex(uint idx, out uint oc, out uint splitStride) {
    if (p.nhwc != 0u) {
        oc = idx % p.M;
        splitStride = p.count;
        return idx;
    }
    uint pix = idx % p.pixels, t = idx / p.pixels;
    oc = t % p.M;
    uint NP = p.count / p.M;
    splitStride = p.M * NP;
    return oc * NP + (t / p.M) * p.pixels + pix;
}

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint oc, stride;
    if (p.quads != 0u) {
        if (idx * 4u >= p.count) return;
        uint first = partialIndex(idx * 4u, oc, stride);
        vec4 v = vec4(0.0);
        for (uint s = 0; s < p.splits; ++s) v += part4[(first + s * stride) / 4u];
        v += p.nhwc != 0u ? vec4(float(bias[oc]), float(bias[oc + 1u]), float(bias[oc + 2u]), float(bias[oc + 3u]))
                          : vec4(float(bias[oc]));
#ifdef RESIDUAL
        v += vec4(res4[idx]);
#endif
        vec4 slope = ACT_KIND != 11u ? vec4(0.0)
                     : p.nhwc != 0u ? vec4(float(bias[p.M + oc]), float(bias[p.M + oc + 1u]), float(bias[p.M + oc + 2u]),
                                           float(bias[p.M + oc + 3u]))
                                    : vec4(float(bias[p.M + oc]));
        y4[idx] = T4(activate4At(v, slope));
        return;
    }
    if (idx >= p.count) return;
    uint first = partialIndex(idx, oc, stride);
    float v = 0.0;
    for (uint s = 0; s < p.splits; ++s) v += part[first + s * stride];
    v += float(bias[oc]);
#ifdef RESIDUAL
    v += float(res[idx]);
#endif
    y[idx] = T(activateAt(v, SLOPE_OF(float(bias[p.M + oc]))));
}
