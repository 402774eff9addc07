#version 450
// y = x * scale[c] + shift[c] over NCHW (standalone BatchNormalization, folded to a scale
// and shift at load time).
#include "common.glsl"

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(std430, binding = 2) readonly buffer Scale { float scale[]; };
layout(std430, binding = 3) readonly buffer Shift { float shift[]; };

layout(push_constant) uniform Params {
    uint count, C, inner;
} p;

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
    uint c = (idx / p.inner) % p.C;
    y[idx] = activate(fma(x[idx], scale[c], shift[c]));
}
