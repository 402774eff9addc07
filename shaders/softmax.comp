#version 450
// Softmax / LogSoftmax along one axis, the input seen as [outer, axis, inner]: each row
// (outer, inner) is max-subtracted before exp, so large inputs cannot overflow. PER_THREAD:
// one invocation per row (short rows); otherwise one workgroup per row with shared-memory
// tree reductions for the max and the sum.
#include "common.glsl"
#include "types.glsl"
#include "softmax.glsl"  // push constants, specialization constants: shaders/kernels/softmax.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };

shared float partial[gl_WorkGroupSize.x];

float workgroupReduce(float v, bool isMax) {
    uint lid = gl_LocalInvocationID.x;
    partial[lid] = v;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
        if (lid < s) partial[lid] = isMax ? max(partial[lid], partial[lid + s]) : partial[lid] + partial[lid + s];
        barrier();
    }
    float r = partial[0];
    barrier();
    return r;
}

void main() {
    bool perThread = PER_THREAD != 0u;
    uint row = perThread ? gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x
                         : gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (row >= p.rows) return;  // per workgroup: uniform
    uint base = (row / p.inner) * p.axis * p.inner + row % p.inner;
    uint first = perThread ? 0u : gl_LocalInvocationID.x;
    uint step = perThread ? 1u : gl_WorkGroupSize.x;

    float m = uintBitsToFloat(0xff800000u);
    for (uint k = first; k < p.axis; k += step) m = max(m, float(x[base + k * p.inner]));
    if (!perThread) m = workgroupReduce(m, true);
    float s = 0.0;
    for (uint k = first; k < p.axis; k += step) s += exp(float(x[base + k * p.inner]) - m);
    if (!perThread) s = workgroupReduce(s, false);
    float logS = log(s), inv = 1.0 / s;
    for (uint k = first; k < p.axis; k += step) {
        float v = float(x[base + k * p.inner]) - m;
        y[base + k * p.inner] = T(LOG != 0u ? v - logS : exp(v) * inv);
    }
}
