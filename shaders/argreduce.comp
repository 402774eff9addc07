#version 450
// ArgMax / ArgMin along one axis, the input seen as [outer, axis, inner]: one invocation
// per output element. Indices are written as int64 through (low, high) word pairs, so no
// shaderInt64 is needed for the output.
#include "common.glsl"
#include "types.glsl"
#include "argreduce.glsl"  // push constants, specialization constants: shaders/kernels/argreduce.toml

layout(std430, binding = 0) writeonly buffer Out { uvec2 y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };

void main() {
    uint o = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (o >= p.count) return;
    uint base = (o / p.inner) * p.axis * p.inner + o % p.inner;
    ACC best = ACC(x[base]);
    uint bestIndex = 0;
    for (uint k = 1; k < p.axis; ++k) {
        ACC v = ACC(x[base + k * p.inner]);
        bool better = IS_MIN != 0u ? (LAST_INDEX != 0u ? v <= best : v < best) : (LAST_INDEX != 0u ? v >= best : v > best);
        if (better) {
            best = v;
            bestIndex = k;
        }
    }
    y[o] = uvec2(bestIndex, 0u);
}
