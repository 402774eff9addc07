#version 450
// Reduce* over any set of axes: the input is walked as (kept dims) x (reduced dims), each
// collapsed to at most 6 with their own input strides. PER_THREAD: one invocation reduces
// one output element (many outputs, short reductions); otherwise one workgroup per output
// element, each invocation striding over the reduced elements, then a shared-memory tree.
// Float types accumulate in float.
#include "common.glsl"
#include "types.glsl"
#include "reduce.glsl"  // push constants, specialization constants: shaders/kernels/reduce.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };

const uint SUM = 0, MEAN = 1, MAX = 2, MIN = 3, PROD = 4, SUM_SQUARE = 5, L1 = 6, L2 = 7, LOG_SUM = 8, LOG_SUM_EXP = 9;

#if T_IS_FLOAT
#define A float
#define NEG_INF uintBitsToFloat(0xff800000u)
#else
#define A ACC
#endif

shared A partial[gl_WorkGroupSize.x];

// The accumulator's start. Integers have no infinities: Max/Min start from the output's
// first element instead (the host rejects empty integer Max/Min reductions).
A identity(uint base) {
    if (OP == PROD) return A(1);
#if T_IS_FLOAT
    if (OP == MAX || OP == LOG_SUM_EXP) return NEG_INF;
    if (OP == MIN) return -NEG_INF;
#else
    if (OP == MAX || OP == MIN) return A(x[base]);
#endif
    return A(0);
}

A combine(A u, A v) {
#if T_IS_FLOAT
    if (OP == MAX) return maxNaN(u, v);  // NaN propagates (common.glsl)
    if (OP == MIN) return minNaN(u, v);
#else
    if (OP == MAX) return max(u, v);
    if (OP == MIN) return min(u, v);
#endif
    if (OP == PROD) return u * v;
    return u + v;
}

uint keptOffset(uint index) {
    uint off = 0;
    for (int d = int(p.keptRank) - 1; d >= 0; --d) {
        off += (index % p.keptDims[d]) * p.keptStride[d];
        index /= p.keptDims[d];
    }
    return off;
}

uint reducedOffset(uint index) {
    uint off = 0;
    for (int d = int(p.redRank) - 1; d >= 0; --d) {
        off += (index % p.redDims[d]) * p.redStride[d];
        index /= p.redDims[d];
    }
    return off;
}

// The element as it enters the accumulation (|x|, x^2, exp(x - m)).
A term(A v, A m) {
    if (OP == SUM_SQUARE || OP == L2) return v * v;
#if T_IS_FLOAT
    if (OP == L1) return abs(v);
    if (OP == LOG_SUM_EXP) return exp(v - m);
#else
    if (OP == L1) return v < A(0) ? -v : v;
#endif
    return v;
}

// Accumulates reduced elements first, first + step, ... of the output whose input offset is base.
A reduceRange(uint base, uint first, uint step, A m) {
    A acc = identity(base);
    if (OP == LOG_SUM_EXP) acc = A(0);
    for (uint r = first; r < p.redCount; r += step) acc = combine(acc, term(A(x[base + reducedOffset(r)]), m));
    return acc;
}

#if T_IS_FLOAT
// LogSumExp subtracts the maximum first so that exp() cannot overflow.
float maxRange(uint base, uint first, uint step) {
    float m = NEG_INF;
    for (uint r = first; r < p.redCount; r += step) m = max(m, float(x[base + reducedOffset(r)]));
    return m;
}
#endif

A finish(A acc, A m) {
    if (OP == MEAN) return acc / A(p.redCount);
#if T_IS_FLOAT
    if (OP == L2) return sqrt(acc);
    if (OP == LOG_SUM) return log(acc);
    if (OP == LOG_SUM_EXP) return m + log(acc);
#endif
    return acc;
}

// Tree reduction across the workgroup (max, or the op's combine); every invocation gets it.
A workgroupReduce(A v, bool maxPass) {
    uint lid = gl_LocalInvocationID.x;
    partial[lid] = v;
    barrier();
    for (uint s = gl_WorkGroupSize.x / 2; s > 0; s >>= 1) {
        if (lid < s) partial[lid] = maxPass ? max(partial[lid], partial[lid + s]) : combine(partial[lid], partial[lid + s]);
        barrier();
    }
    A r = partial[0];
    barrier();  // partial[] is reused by a second pass
    return r;
}

void main() {
    if (PER_THREAD != 0u) {
        uint o = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
        if (o >= p.outCount) return;
        uint base = keptOffset(o);
        A m = A(0);
#if T_IS_FLOAT
        if (OP == LOG_SUM_EXP) m = maxRange(base, 0, 1);
        if (isinf(m)) m = 0.0;  // all -inf (or empty): the sum is 0 and log gives -inf
#endif
        y[o] = T(finish(reduceRange(base, 0, 1, m), m));
        return;
    }
    uint o = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    if (o >= p.outCount) return;  // uniform across the workgroup
    uint base = keptOffset(o);
    uint lid = gl_LocalInvocationID.x;
    A m = A(0);
#if T_IS_FLOAT
    if (OP == LOG_SUM_EXP) {
        m = workgroupReduce(maxRange(base, lid, gl_WorkGroupSize.x), true);
        if (isinf(m)) m = 0.0;
    }
#endif
    A r = workgroupReduce(reduceRange(base, lid, gl_WorkGroupSize.x, m), false);
    if (lid == 0) y[o] = T(finish(r, m));
}
