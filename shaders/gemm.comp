#version 450
// Batched GEMM: y[b, m, n] = alpha * sum_k A[b, m, k] B[b, k, n] (+ beta * C[m, n]), then the
// fused activation. A, B and C are read through element strides, so transposes and
// broadcast batches need no copies. The batch index splits into two levels
// (b = b1 * inner + b2), each with its own strides, which covers NumPy broadcasting of up
// to two batch dimensions. A and B start at elements aOffset and bOffset (a Slice folded into
// the load); y (and the residual, in y's layout) is stored at b1 * yOuter + b2 * yInner +
// m * yM + n * yN (a Transpose after the product folded into the store). Tiling as in conv2d.comp.
// Defines: TM, TN, WM, WN, BK, HAS_C, HAS_R (a residual of the output's shape), and T_F32 or
// T_F16 (types.glsl: operands of type T, arithmetic in float).
// SPLITK (as in conv2d.comp): grid z = split * batches + batch; split s reduces only k in
// [s * kChunk, (s + 1) * kChunk) and stores float partial sums part[s][batch][m][n];
// gemm_splitk_reduce.comp adds them in order with alpha, C and the activation.
#include "common.glsl"
#include "types.glsl"
#include "gemm.glsl"  // push constants, specialization constants, constants: shaders/kernels/gemm.toml

#define BM (WM * TM)
#define BN (WN * TN)

#ifdef SPLITK
layout(std430, binding = 0) writeonly buffer Partial { float part[]; };
#else
layout(std430, binding = 0) writeonly buffer Out { T y[]; };
#endif
layout(std430, binding = 1) readonly buffer MatA { T a[]; };
layout(std430, binding = 2) readonly buffer MatB { T b[]; };
#ifdef HAS_C
layout(std430, binding = 3) readonly buffer MatC { T c[]; };
#endif
#ifdef HAS_R
// The residual added before the activation (passes::fuseResidualAdd), the output's shape.
#ifdef HAS_C
layout(std430, binding = 4) readonly buffer Residual { T resid[]; };
#else
layout(std430, binding = 3) readonly buffer Residual { T resid[]; };
#endif
#endif


shared float As[BK][BM];
shared float Bs[BK][BN];

void main() {
    const uint tx = gl_LocalInvocationID.x;
    const uint ty = gl_LocalInvocationID.y;
    const uint tid = ty * WN + tx;
    const uint bt = gl_WorkGroupID.z % p.batches;
    const uint split = gl_WorkGroupID.z / p.batches;
    const uint kBegin = split * p.kChunk;
    const uint kEnd = min(p.K, kBegin + p.kChunk);
    const uint m0 = gl_WorkGroupID.y * BM;
    const uint n0 = gl_WorkGroupID.x * BN;
    const uint b1 = bt / p.inner, b2 = bt % p.inner;
    const uint aBase = p.aOffset + b1 * p.aOuter + b2 * p.aInner;
    const uint bBase = p.bOffset + b1 * p.bOuter + b2 * p.bInner;

    float acc[TM][TN];
    for (uint i = 0; i < TM; ++i)
        for (uint j = 0; j < TN; ++j) acc[i][j] = 0.0;

    for (uint k0 = kBegin; k0 < kEnd; k0 += BK) {
        for (uint e = tid; e < BK * BM; e += WM * WN) {
            uint kk = e % BK, mm = e / BK;
            uint m = m0 + mm, k = k0 + kk;
            As[kk][mm] = (m < p.M && k < kEnd) ? float(a[aBase + m * p.aM + k * p.aK]) : 0.0;
        }
        for (uint e = tid; e < BK * BN; e += WM * WN) {
            uint nn = e % BN, kk = e / BN;
            uint n = n0 + nn, k = k0 + kk;
            Bs[kk][nn] = (n < p.N && k < kEnd) ? float(b[bBase + k * p.bK + n * p.bN]) : 0.0;
        }
        barrier();
        for (uint kk = 0; kk < BK; ++kk) {
            float av[TM], bv[TN];
            for (uint i = 0; i < TM; ++i) av[i] = As[kk][ty + i * WM];
            for (uint j = 0; j < TN; ++j) bv[j] = Bs[kk][tx + j * WN];
            for (uint i = 0; i < TM; ++i)
                for (uint j = 0; j < TN; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
        }
        barrier();
    }

    for (uint i = 0; i < TM; ++i) {
        uint m = m0 + ty + i * WM;
        if (m >= p.M) continue;
        for (uint j = 0; j < TN; ++j) {
            uint n = n0 + tx + j * WN;
            if (n >= p.N) continue;
#ifdef SPLITK
            part[((split * p.batches + bt) * p.M + m) * p.N + n] = acc[i][j];
#else
            float v = p.alpha * acc[i][j];
#ifdef HAS_C
            v += p.beta * float(c[m * p.cM + n * p.cN]);
#endif
            const uint o = b1 * p.yOuter + b2 * p.yInner + m * p.yM + n * p.yN;
#ifdef HAS_R
            v += float(resid[o]);
#endif
            y[o] = T(activate(v));
#endif
        }
    }
}
