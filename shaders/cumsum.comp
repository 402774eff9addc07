#version 450
// CumSum: running sums along one axis, one invocation per line walking it in order (or in
// reverse), so every element's sum is the sequential one the CPU reference computes. Exclusive
// sums store the total before adding the element. Floats accumulate in float.
#include "common.glsl"
#include "types.glsl"
#include "cumsum.glsl"  // push constants, specialization constants: shaders/kernels/cumsum.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };

void main() {
    uint line = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (line >= p.lines) return;
    uint outer = line / p.inner, inner = line % p.inner;
    uint base = outer * p.extent * p.inner + inner;
    ACC acc = ACC(0);
    for (uint s = 0; s < p.extent; ++s) {
        uint i = base + (REVERSE != 0u ? p.extent - 1u - s : s) * p.inner;
        ACC v = ACC(x[i]);
        if (EXCLUSIVE != 0u) {
            y[i] = T(acc);
            acc += v;
        } else {
            acc += v;
            y[i] = T(acc);
        }
    }
}
