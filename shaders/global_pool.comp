#version 450
// GlobalAveragePool / GlobalMaxPool: one workgroup reduces one (n, c) plane, whose pixels are
// contiguous (NCHW) or C apart (p.nhwc: a channels-last conv output, ops/conv/layout.h).
#include "common.glsl"
#include "types.glsl"
#include "global_pool.glsl"  // push constants, specialization constants: shaders/kernels/global_pool.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };

shared float partial[gl_WorkGroupSize.x];

void main() {
    uint plane = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (plane >= p.NC) return;  // uniform across the workgroup
    uint lid = gl_LocalInvocationID.x;
    // Max starts at -inf (a plane of -inf pools to -inf) and keeps a NaN (maxNaN).
    float acc = IS_MAX != 0u ? uintBitsToFloat(0xff800000u) : 0.0;
    // Pixel i of the plane at first + i * stride.
    const uint first = p.nhwc != 0u ? (plane / p.C) * p.HW * p.C + plane % p.C : plane * p.HW;
    const uint stride = p.nhwc != 0u ? p.C : 1u;
    for (uint i = lid; i < p.HW; i += gl_WorkGroupSize.x) {
        float v = float(x[first + i * stride]);
        acc = IS_MAX != 0u ? maxNaN(acc, v) : acc + v;
    }
    partial[lid] = acc;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
        if (lid < s) partial[lid] = IS_MAX != 0u ? maxNaN(partial[lid], partial[lid + s]) : partial[lid] + partial[lid + s];
        barrier();
    }
    if (lid == 0) y[plane] = T(activate(IS_MAX != 0u ? partial[0] : partial[0] / float(p.HW)));
}
