#version 450
// Element-wise activation (the standalone form of what other kernels fuse).
#include "common.glsl"
#include "types.glsl"
#include "unary.glsl"  // push constants: shaders/kernels/unary.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
    y[idx] = T(activate(float(x[idx])));
}
