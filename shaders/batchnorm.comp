#version 450
// BatchNormalization (inference) with statistics that are not constants (so not folded to
// a scale and shift at load time, as channel_affine.comp does):
// y = (x - mean[c]) / sqrt(var[c] + eps) * scale[c] + bias[c] over [N, C, inner].
#include "common.glsl"
#include "types.glsl"
#include "batchnorm.glsl"  // push constants: shaders/kernels/batchnorm.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };
layout(std430, binding = 2) readonly buffer Scale { T scale[]; };
layout(std430, binding = 3) readonly buffer Bias { T bias[]; };
layout(std430, binding = 4) readonly buffer Mean { T mean[]; };
layout(std430, binding = 5) readonly buffer Var { T var_[]; };

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
    uint c = (idx / p.inner) % p.C;
    y[idx] = T(activate((float(x[idx]) - float(mean[c])) * inversesqrt(float(var_[c]) + p.epsilon) * float(scale[c]) +
                        float(bias[c])));
}
