#version 450
// BatchNormalization in training mode, step 1: one workgroup per channel computes the batch
// mean and (population) variance over N and the spatial dims (two passes: no cancellation),
// and the running statistics: input * momentum + batch * (1 - momentum). Step 2 is
// batchnorm.comp with the batch statistics.
#include "common.glsl"
#include "types.glsl"
#include "batchnorm_stats.glsl"  // push constants: shaders/kernels/batchnorm_stats.toml

layout(std430, binding = 0) readonly buffer In { T x[]; };
layout(std430, binding = 1) readonly buffer MeanIn { T meanIn[]; };
layout(std430, binding = 2) readonly buffer VarIn { T varIn[]; };
layout(std430, binding = 3) writeonly buffer BatchMean { T batchMean[]; };
layout(std430, binding = 4) writeonly buffer BatchVar { T batchVar[]; };
layout(std430, binding = 5) writeonly buffer RunMean { T runMean[]; };
layout(std430, binding = 6) writeonly buffer RunVar { T runVar[]; };

#include "workgroup_sum.glsl"

void main() {
    uint c = gl_WorkGroupID.x;
    uint count = p.N * p.inner;
    float s = 0.0;
    for (uint i = gl_LocalInvocationID.x; i < count; i += gl_WorkGroupSize.x)
        s += float(x[((i / p.inner) * p.C + c) * p.inner + i % p.inner]);
    float mean = workgroupSum(s) / float(count);
    float q = 0.0;
    for (uint i = gl_LocalInvocationID.x; i < count; i += gl_WorkGroupSize.x) {
        float d = float(x[((i / p.inner) * p.C + c) * p.inner + i % p.inner]) - mean;
        q += d * d;
    }
    float var_ = workgroupSum(q) / float(count);
    if (gl_LocalInvocationID.x == 0u) {
        batchMean[c] = T(mean);
        batchVar[c] = T(var_);
        runMean[c] = T(float(meanIn[c]) * p.momentum + mean * (1.0 - p.momentum));
        runVar[c] = T(float(varIn[c]) * p.momentum + var_ * (1.0 - p.momentum));
    }
}
