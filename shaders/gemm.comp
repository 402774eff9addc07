#version 450
// Batched GEMM: y[b, m, n] = alpha * sum_k A[b, m, k] B[b, k, n] (+ beta * C[m, n]), then the
// fused activation. A, B and C are read through element strides, so transposes and
// broadcast batches need no copies. The batch index splits into two levels
// (b = b1 * inner + b2), each with its own strides, which covers NumPy broadcasting of up
// to two batch dimensions. A and B start at elements aOffset and bOffset (a Slice folded into
// the load); y (and the residual, in y's layout) is stored at b1 * yOuter + b2 * yInner +
// m * yM + n * yN (a Transpose after the product folded into the store). Tiling as in conv2d.comp;
// each K slice is loaded into registers while the one before is multiplied (loadSlice).
// Defines: TM, TN, WM, WN, BK, HAS_C, HAS_R (a residual of the output's shape), and T_F32 or
// T_F16 (types.glsl: operands of type T, arithmetic in float).
// SPLITK (as in conv2d.comp): grid z = split * batches + batch; split s reduces only k in
// [s * kChunk, (s + 1) * kChunk) and stores float partial sums part[s][batch][m][n];
// gemm_splitk_reduce.comp adds them in order with alpha, C and the activation.
#include "common.glsl"
#include "types.glsl"
#include "gemm.glsl"  // push constants, specialization constants, constants: shaders/kernels/gemm.toml
#extension GL_EXT_control_flow_attributes : require

#define BM (WM * TM)
#define BN (WN * TN)
#define NT (WM * WN)
#define A_PER (BK * BM / NT)  // elements of a K slice of A and of B each invocation loads
#define B_PER (BK * BN / NT)
#if (BK * BM) % NT != 0 || (BK * BN) % NT != 0 || A_PER + B_PER > 32
#error tile shape and workgroup do not fit
#endif

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
#include "portable_tile.glsl"

// Slice k0's elements of A and B into registers, every load unconditional: rows, columns and
// k past the ends read clamped indices and their bit in `inside` stays clear (zeros are
// selected where the registers are stored to shared memory). A branch around a load made the
// compiler wait for it where the branches join (gemm_cm.comp), so loads in branches could not
// be in flight behind the multiplies.
void loadSlice(uint k0, uint kEnd, uint tid, uint m0, uint n0, uint aBase, uint bBase, out float aReg[A_PER],
               out float bReg[B_PER], out uint inside) {
    inside = 0u;
    [[unroll]] for (uint i = 0u; i < A_PER; ++i) {
        uint e = tid + i * NT, m = m0 + e / BK, k = k0 + e % BK;
        aReg[i] = float(a[aBase + min(m, p.M - 1u) * p.aM + min(k, kEnd - 1u) * p.aK]);
        inside |= m < p.M && k < kEnd ? 1u << i : 0u;
    }
    [[unroll]] for (uint i = 0u; i < B_PER; ++i) {
        uint e = tid + i * NT, n = n0 + e % BN, k = k0 + e / BN;
        bReg[i] = float(b[bBase + min(k, kEnd - 1u) * p.bK + min(n, p.N - 1u) * p.bN]);
        inside |= n < p.N && k < kEnd ? 1u << (A_PER + i) : 0u;
    }
}

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
    [[unroll]] for (uint i = 0; i < TM; ++i)
        [[unroll]] for (uint j = 0; j < TN; ++j) acc[i][j] = 0.0;

    // Register double buffering (as gemm_cm.comp): slice k0 + BK is loaded while slice k0 is
    // multiplied.
    float aReg[A_PER], bReg[B_PER];
    uint inside = 0u;
    if (kBegin < kEnd) loadSlice(kBegin, kEnd, tid, m0, n0, aBase, bBase, aReg, bReg, inside);  // (K may be 0)
    for (uint k0 = kBegin; k0 < kEnd; k0 += BK) {
        [[unroll]] for (uint i = 0u; i < A_PER; ++i) {
            uint e = tid + i * NT;
            As[e % BK][e / BK] = (inside & (1u << i)) != 0u ? aReg[i] : 0.0;
        }
        [[unroll]] for (uint i = 0u; i < B_PER; ++i) {
            uint e = tid + i * NT;
            Bs[e / BN][e % BN] = (inside & (1u << (A_PER + i))) != 0u ? bReg[i] : 0.0;
        }
        barrier();
        if (k0 + BK < kEnd) loadSlice(k0 + BK, kEnd, tid, m0, n0, aBase, bBase, aReg, bReg, inside);
        MULTIPLY_TILE_SLICE(acc, tx, ty);
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
