#version 450
// BatchNormalization (inference) with statistics that are not constants (so not folded to
// a scale and shift at load time, as channel_affine.comp does):
// y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + bias[c] over [N, C, inner].
#include "common.glsl"

layout(std430, binding = 0) writeonly buffer Out { float y[]; };
layout(std430, binding = 1) readonly buffer In { float x[]; };
layout(std430, binding = 2) readonly buffer Scale { float scale[]; };
layout(std430, binding = 3) readonly buffer Bias { float bias[]; };
layout(std430, binding = 4) readonly buffer Mean { float mean[]; };
layout(std430, binding = 5) readonly buffer Var { float var_[]; };

layout(push_constant) uniform Params {
    uint count, C, inner;
    float epsilon;
} p;

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
    uint c = (idx / p.inner) % p.C;
    y[idx] = activate((x[idx] - mean[c]) * inversesqrt(var_[c] + p.epsilon) * scale[c] + bias[c]);
}
