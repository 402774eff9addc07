#version 450
// Gather along one axis: y[o, j, i] = x[o, idx[j], i], o over the dims before the axis, j
// over the (flattened) indices, i over the dims after it. ELEM is the element (uint8_t,
// uint16_t, uint); 8-byte elements travel as two words (inner counts words). Indices are
// int32, or int64 read as two words (no shaderInt64): an index outside the axis, high word
// included, is reported (index_status.glsl).
#include "common.glsl"
#include "types.glsl"
#include "gather.glsl"  // push constants, specialization constants: shaders/kernels/gather.toml

layout(std430, binding = 0) writeonly buffer Out { ELEM y[]; };
layout(std430, binding = 1) readonly buffer In { ELEM x[]; };
layout(std430, binding = 2) readonly buffer Idx { int idx[]; };
#define STATUS_BINDING 3
#include "index_status.glsl"

void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (i >= p.count) return;
    uint in_ = i % p.inner, t = i / p.inner;
    uint j = t % p.nIdx, o = t / p.nIdx;
    int k = max(RESOLVE_INDEX(j, p.axisLen), 0);  // reported when out of range: read row 0
    y[i] = x[(o * p.axisLen + uint(k)) * p.inner + in_];
}
