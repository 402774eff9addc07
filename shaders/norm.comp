#version 450
// Layer-, Instance- and GroupNormalization, and the channel norm (vkinfer.ChannelNorm): rows
// of `len` elements (contiguous; for the channel norm a pixel's channels, `stride` apart) are
// normalized to zero mean and unit variance (two passes: the mean, then the mean squared
// deviation, so no cancellation), then scaled and shifted. AFFINE 0 (layer): scale/bias per
// element of the row; 1 (instance, and opset-18 groups): per row % C; 2 (groups): a row is
// group row % C of its image, len / inner channels of inner elements, each its own scale and
// bias. PER_THREAD 1: one invocation per row; 2 (strided rows: the channel norm): a workgroup
// of 32 rows x SLICES, invocation (r, t) walking elements t, t + SLICES, ... of row r, so
// neighbouring invocations read neighbouring pixels and a row of hundreds of channels is not
// one invocation's walk; 3 (many short contiguous rows: a ConvNeXt's or Swin's LayerNorm over
// 96 channels of 3136 tokens): a workgroup of SLICES rows x 32 lanes, lane t walking elements
// t, t + 32, ... of its row, so neighbouring lanes read neighbouring elements; 4 (a few rows of
// up to 1024 contiguous elements: ViT-B/16's 197 of 768): a workgroup of 256 a row, each
// invocation holding its up to 4 elements in registers, so the row is read once and each sum
// is two shared-memory rounds; 0: one workgroup per row with shared-memory tree sums. STATS
// (a variant) also writes each row's mean and 1/sqrt(var + eps).
#include "common.glsl"
#include "types.glsl"
#include "norm.glsl"  // push constants, specialization constants: shaders/kernels/norm.toml
#extension GL_EXT_control_flow_attributes : require

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };
layout(std430, binding = 2) readonly buffer Scale { T scale[]; };
layout(std430, binding = 3) readonly buffer Bias { T bias[]; };
#ifdef STATS
layout(std430, binding = 4) writeonly buffer MeanOut { T meanOut[]; };
layout(std430, binding = 5) writeonly buffer InvStdOut { T invStdOut[]; };
#endif

#include "workgroup_sum.glsl"

#define SLICES 8u
shared float sliceSums[SLICES * 32u];

// The sum of `v` over the invocations sharing this invocation's row (all invocations call it:
// barriers): in mode 2 the SLICES of its column, in mode 3 the 32 lanes of its row.
float rowSum(float v) {
    const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
    sliceSums[ly * 32u + lx] = v;
    barrier();
    float total = 0.0;
    if (PER_THREAD == 2u) {
        for (uint t = 0u; t < SLICES; ++t) total += sliceSums[t * 32u + lx];
    } else {
        for (uint t = 0u; t < 32u; ++t) total += sliceSums[ly * 32u + t];
    }
    barrier();
    return total;
}

// Mode 4's sum over the workgroup of 256: 32 invocations add eight partial sums each, every
// invocation the 32 (two barriers, in a fixed order).
float sumOf256(float v) {
    const uint lid = gl_LocalInvocationID.x;
    partial[lid] = v;
    barrier();
    if (lid < 32u) {
        float t = 0.0;
        for (uint i = 0u; i < 8u; ++i) t += partial[lid * 8u + i];
        sliceSums[lid] = t;
    }
    barrier();
    float total = 0.0;
    for (uint i = 0u; i < 32u; ++i) total += sliceSums[i];
    return total;
}

#define REGISTER_ROW 4u  // mode 4: elements per invocation

// Mode 4: the row `row` (starting at element `base`, contiguous) through registers.
void normalizeRowInRegisters(uint row, uint base) {
    const uint lid = gl_LocalInvocationID.x;
    float v[REGISTER_ROW];
    float s = 0.0;
    [[unroll]] for (uint i = 0u; i < REGISTER_ROW; ++i) {
        // Every load unconditional (index clamped, zero selected after it): see gemm_cm.comp.
        const uint j = lid + i * 256u;
        const float xv = float(x[base + min(j, p.len - 1u)]);
        v[i] = j < p.len ? xv : 0.0;
        s += v[i];
    }
    const float mean = sumOf256(s) / float(p.len);
    float q = 0.0;
    [[unroll]] for (uint i = 0u; i < REGISTER_ROW; ++i) {
        const float d = lid + i * 256u < p.len ? v[i] - mean : 0.0;
        q += d * d;
    }
    const float invStd = inversesqrt(sumOf256(q) / float(p.len) + p.epsilon);
    const uint c = row % p.C;
    [[unroll]] for (uint i = 0u; i < REGISTER_ROW; ++i) {
        const uint j = lid + i * 256u;
        if (j < p.len) {
            const uint k = AFFINE == 0u ? j : AFFINE == 1u ? c : c * (p.len / p.inner) + j / p.inner;
            const float b = HAS_BIAS != 0u ? float(bias[k]) : 0.0;
            y[base + j] = T(activate((v[i] - mean) * invStd * float(scale[k]) + b));
        }
    }
#ifdef STATS
    if (lid == 0u) {
        meanOut[row] = T(mean);
        invStdOut[row] = T(invStd);
    }
#endif
}

// The row's sum from this invocation's part of it.
float combined(float v) { return PER_THREAD == 1u ? v : PER_THREAD >= 2u ? rowSum(v) : workgroupSum(v); }

void main() {
    const uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    const uint row = PER_THREAD == 1u ? gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x
                   : PER_THREAD == 2u ? group * 32u + gl_LocalInvocationID.x
                   : PER_THREAD == 3u ? group * SLICES + gl_LocalInvocationID.y
                                      : group;
    const bool live = row < p.rows;
    // Per invocation or per workgroup the return is uniform where it matters; sliced rows past
    // the end still meet the barriers.
    if (!live && (PER_THREAD < 2u || PER_THREAD == 4u)) return;
    const uint base = live ? (row / p.rowsPerImage) * p.len * p.stride + row % p.rowsPerImage : 0u;
    if (PER_THREAD == 4u) {
        normalizeRowInRegisters(row, base);
        return;
    }
    const uint first = PER_THREAD == 1u ? 0u : PER_THREAD == 2u ? gl_LocalInvocationID.y : gl_LocalInvocationID.x;
    const uint step = PER_THREAD == 1u ? 1u : PER_THREAD == 2u ? SLICES : PER_THREAD == 3u ? 32u : gl_WorkGroupSize.x;
    const uint end = live ? p.len : 0u;

    float s = 0.0;
    for (uint j = first; j < end; j += step) s += float(x[base + j * p.stride]);
    float mean = combined(s) / float(p.len);
    float q = 0.0;
    for (uint j = first; j < end; j += step) {
        float d = float(x[base + j * p.stride]) - mean;
        q += d * d;
    }
    float invStd = inversesqrt(combined(q) / float(p.len) + p.epsilon);
    if (!live) return;
    uint c = row % p.C;
    for (uint j = first; j < p.len; j += step) {
        uint k = AFFINE == 0u ? j : AFFINE == 1u ? c : c * (p.len / p.inner) + j / p.inner;
        float b = HAS_BIAS != 0u ? float(bias[k]) : 0.0;
        y[base + j * p.stride] = T(activate((float(x[base + j * p.stride]) - mean) * invStd * float(scale[k]) + b));
    }
#ifdef STATS
    if (first == 0u) {
        meanOut[row] = T(mean);
        invStdOut[row] = T(invStd);
    }
#endif
}
