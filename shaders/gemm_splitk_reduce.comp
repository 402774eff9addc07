#version 450
// Second half of a split-K GEMM (gemm.comp with SPLITK): per output element, the splits'
// partial sums added in split order (deterministic), times alpha, plus beta * C, then the
// fused activation, stored as T where gemm.comp would have stored it (its yOuter, yInner, yM, yN).
#include "common.glsl"
#include "types.glsl"
#include "gemm_splitk_reduce.glsl"  // push constants, specialization constants, constants: shaders/kernels/gemm_splitk_reduce.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer Partial { float part[]; };
#ifdef HAS_C
layout(std430, binding = 2) readonly buffer MatC { T c[]; };
#endif
#ifdef HAS_R
// The residual (gemm.comp's HAS_R), the output's shape.
#ifdef HAS_C
layout(std430, binding = 3) readonly buffer Residual { T resid[]; };
#else
layout(std430, binding = 2) readonly buffer Residual { T resid[]; };
#endif
#endif


void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
    float acc = 0.0;
    for (uint s = 0; s < p.splits; ++s) acc += part[s * p.count + idx];
    float v = p.alpha * acc;
    const uint n = idx % p.N, m = (idx / p.N) % p.M, bt = idx / (p.N * p.M);
#ifdef HAS_C
    v += p.beta * float(c[m * p.cM + n * p.cN]);
#endif
    const uint o = (bt / p.inner) * p.yOuter + (bt % p.inner) * p.yInner + m * p.yM + n * p.yN;
#ifdef HAS_R
    v += float(resid[o]);
#endif
    y[o] = T(activate(v));
}
