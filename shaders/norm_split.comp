#version 450
// norm.comp's contiguous rows (Layer-, Instance-, GroupNormalization) when they are few and
// long (ops/normalization.h, normChunks): one workgroup per row would leave most of the GPU
// idle (an InstanceNorm over a 1080p map: tens of workgroups streaming millions of elements
// each), so each row is cut into `chunks` chunks of `chunkLen` elements (the last shorter) and
// the work goes in two dispatches over (chunk, row) workgroups:
//   PARTIAL: each chunk's mean and sum of squared deviations from it (two passes over the
//            chunk, no cancellation) into part[(row * chunks + chunk) * 2 + {0, 1}], float32;
//   APPLY:   every workgroup combines its row's chunks (Chan et al.: M2 = sum M2_i +
//            sum n_i (mean_i - mean)^2), then normalizes, scales, shifts and activates its
//            chunk as norm.comp does.
#include "common.glsl"
#include "types.glsl"
#include "norm_split.glsl"  // push constants, specialization constants: shaders/kernels/norm_split.toml

#ifdef PARTIAL
layout(std430, binding = 0) writeonly buffer Part { float part[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };
#else
layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };
layout(std430, binding = 2) readonly buffer Scale { T scale[]; };
layout(std430, binding = 3) readonly buffer Bias { T bias[]; };
layout(std430, binding = 4) readonly buffer Part { float part[]; };
#endif

#include "workgroup_sum.glsl"

// Elements of chunk `chunk` (the last one holds what is left).
uint chunkElements(uint chunk) { return min(p.chunkLen, p.len - chunk * p.chunkLen); }

void main() {
    uint chunk = gl_WorkGroupID.x, row = gl_WorkGroupID.y;  // the grid is exact
    uint lid = gl_LocalInvocationID.x, step = gl_WorkGroupSize.x;
    uint begin = row * p.len + chunk * p.chunkLen, count = chunkElements(chunk);
#ifdef PARTIAL
    float s = 0.0;
    for (uint j = lid; j < count; j += step) s += float(x[begin + j]);
    float mean = workgroupSum(s) / float(count);
    float q = 0.0;
    for (uint j = lid; j < count; j += step) {
        float d = float(x[begin + j]) - mean;
        q += d * d;
    }
    q = workgroupSum(q);
    if (lid == 0u) {
        part[(row * p.chunks + chunk) * 2u] = mean;
        part[(row * p.chunks + chunk) * 2u + 1u] = q;
    }
#else
    // The row's statistics from its chunks' (chunks <= the workgroup size: one per invocation).
    uint at = (row * p.chunks + lid) * 2u;
    float n = lid < p.chunks ? float(chunkElements(lid)) : 0.0;
    float chunkMean = lid < p.chunks ? part[at] : 0.0;
    float mean = workgroupSum(n * chunkMean) / float(p.len);
    float d = chunkMean - mean;
    float m2 = workgroupSum(lid < p.chunks ? part[at + 1u] + n * d * d : 0.0);
    float invStd = inversesqrt(m2 / float(p.len) + p.epsilon);
    uint c = row % p.C;
    for (uint j = lid; j < count; j += step) {
        uint e = chunk * p.chunkLen + j;  // in the row
        uint k = AFFINE == 0u ? e : AFFINE == 1u ? c : c * (p.len / p.inner) + e / p.inner;
        float b = HAS_BIAS != 0u ? float(bias[k]) : 0.0;
        y[begin + j] = T(activate((float(x[begin + j]) - mean) * invStd * float(scale[k]) + b));
    }
#endif
}
