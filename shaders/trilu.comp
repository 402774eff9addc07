#version 450
// Trilu: the upper or lower triangle of each matrix of the last two dims, the rest zero (all
// bits clear is zero for every element type, so variants differ only in element size).
#include "common.glsl"
#include "types.glsl"
#include "trilu.glsl"  // push constants, specialization constants: shaders/kernels/trilu.toml

layout(std430, binding = 0) writeonly buffer Out { ELEM y[]; };
layout(std430, binding = 1) readonly buffer In { ELEM x[]; };

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
    int j = int(idx % p.cols), i = int((idx / p.cols) % p.rows);
    bool keep = UPPER != 0u ? j - i >= p.k : j - i <= p.k;
    y[idx] = keep ? x[idx] : ELEM(0);
}
