#version 450
// Gather along one axis: y[o, j, i] = x[o, idx[j], i], o over the dims before the axis, j
// over the (flattened) indices, i over the dims after it. ELEM is the element (uint8_t,
// uint16_t, uint); 8-byte elements travel as two words (inner counts words). Indices are
// int32, or int64 read through their low word (index values always fit in 32 bits, and
// the low word of a small negative int64 is the same negative int32), so no shaderInt64.
#include "common.glsl"
#include "types.glsl"
#include "gather.glsl"  // push constants, specialization constants: shaders/kernels/gather.toml

layout(std430, binding = 0) writeonly buffer Out { ELEM y[]; };
layout(std430, binding = 1) readonly buffer In { ELEM x[]; };
layout(std430, binding = 2) readonly buffer Idx { int idx[]; };

void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (i >= p.count) return;
    uint in_ = i % p.inner, t = i / p.inner;
    uint j = t % p.nIdx, o = t / p.nIdx;
    int k = idx[IDX64 != 0u ? 2u * j : j];
    if (k < 0) k += int(p.axisLen);
    // Out of range is an error in ONNX; clamp rather than read outside the buffer.
    k = clamp(k, 0, int(p.axisLen) - 1);
    y[i] = x[(o * p.axisLen + uint(k)) * p.inner + in_];
}
