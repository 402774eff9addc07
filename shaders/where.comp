#version 450
// Where(condition, X, Y) with NumPy broadcasting across all three: a select, so variants
// differ only in element size (ELEM: uint8_t, uint16_t, uint, uvec2 for 8-byte elements).
#include "common.glsl"
#include "types.glsl"
#include "where.glsl"  // push constants: shaders/kernels/where.toml

layout(std430, binding = 0) writeonly buffer Out { ELEM y[]; };
layout(std430, binding = 1) readonly buffer Cond { uint8_t c[]; };
layout(std430, binding = 2) readonly buffer X { ELEM x[]; };
layout(std430, binding = 3) readonly buffer Y { ELEM z[]; };

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
    uint rem = idx, ic = 0, ix = 0, iy = 0;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
        uint k = rem % p.dims[d];
        rem /= p.dims[d];
        ic += k * p.stride[0][d];
        ix += k * p.stride[1][d];
        iy += k * p.stride[2][d];
    }
    y[idx] = c[ic] != uint8_t(0) ? x[ix] : z[iy];
}
