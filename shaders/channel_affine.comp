#version 450
// y = x * scale[c] + shift[c] over NCHW (standalone BatchNormalization, folded to a scale
// and shift at load time).
#include "common.glsl"
#include "types.glsl"
#include "channel_affine.glsl"  // push constants: shaders/kernels/channel_affine.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };
layout(std430, binding = 2) readonly buffer Scale { T scale[]; };
layout(std430, binding = 3) readonly buffer Shift { T shift[]; };

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
    uint c = (idx / p.inner) % p.C;
    y[idx] = T(activate(fma(float(x[idx]), float(scale[c]), float(shift[c]))));
}
