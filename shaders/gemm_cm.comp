#version 450
// Batched GEMM on cooperative matrices (tensor cores): y[b, m, n] = alpha * sum_k A[b, m, k]
// B[b, k, n] (+ beta * C[m, n]), then the fused activation; float16 operands read through
// element strides as gemm.comp does, float32 sums. A workgroup of WARPS_M x WARPS_N warps
// computes a BM x BN tile, each warp a block of 16x16 accumulators; per BK-slice the A and B
// tiles go through shared memory as 16-byte words (8 halves). VEC_A / VEC_B: the operand's
// rows are contiguous and 8-aligned (A: aK == 1, B: bN == 1, offsets too), so whole words are loaded;
// otherwise eight elements are gathered per word. Bounds are checked either way, except as
// CLAMPED_LOADS says.
// The epilogue and SPLITK follow gemm.comp (part[s][batch][m][n] for gemm_splitk_reduce).
// CLAMPED_LOADS: operands in whole words (VEC_A, VEC_B), every K chunk a multiple of BK and N of
// 8: no bounds checks on the loads. Rows of A past M and words of B past N are read from the
// last row / word instead (they only feed outputs that are never stored). A branch around a
// load made the compiler wait for it where the branches join, before the multiplies the
// register prefetch should hide it behind (H100, run 61: 197 x 3072 x 768 23.7 -> 16.4 us).
// Defines: BM, BN, WARPS_M, WARPS_N, HAS_C, HAS_R (as in gemm.comp), SPLITK, VEC_A, VEC_B, CLAMPED_LOADS,
// K_SLICE, CM_NV /
// CM_EMULATE.
#define T_F16
#include "common.glsl"
#include "types.glsl"
#include "gemm_cm.glsl"  // push constants, specialization constants, constants: shaders/kernels/gemm_cm.toml

// One shared array holds the A and B tiles of a K slice (B after A) and, once the last slice is
// multiplied, each warp's staged accumulator: a separate Cs would take 20 KiB from the slices of
// a 16-warp tile.
#define As Ts
#define Bs Ts
#define Cs Ts
#define CM_UNIT 8u
#define CM_CS_WORDS
#define CM_A(h) cmHalf(As[(h) >> 3], h)
#define CM_B(h) cmHalf(Bs[(h) >> 3], h)
#include "coopmat.glsl"

#ifdef K_SLICE
#define BK K_SLICE  // fewer shared-memory rounds than TILE_K (_clamped_k64, _k128: ops/gemm/select.cpp)
#else
#define BK TILE_K
#endif
#define NT (32 * WARPS_M * WARPS_N)
#define WTM (BM / WARPS_M)
#define WTN (BN / WARPS_N)
#define FM (WTM / 16)
#define FN (WTN / 16)
#define SA (BK + 8)  // halves per shared row (16-byte multiples: 5 and 17 words)
#define SB (BN + 8)
#if (WTM % 16) != 0 || (WTN % 16) != 0
#error tile shape and warp grid do not fit
#endif

#ifdef SPLITK
layout(std430, binding = 0) writeonly buffer Partial { float part[]; };
#else
layout(std430, binding = 0) writeonly buffer Out { float16_t y[]; };
#endif
layout(std430, binding = 1) readonly buffer MatA { float16_t a[]; };
layout(std430, binding = 1) readonly buffer MatA4 { uvec4 a4[]; };
layout(std430, binding = 2) readonly buffer MatB { float16_t b[]; };
layout(std430, binding = 2) readonly buffer MatB4 { uvec4 b4[]; };
#ifdef HAS_C
layout(std430, binding = 3) readonly buffer MatC { float16_t c[]; };
#endif
#ifdef HAS_R
// The residual added before the activation (passes::fuseResidualAdd), the output's shape.
#ifdef HAS_C
layout(std430, binding = 4) readonly buffer Residual { float16_t resid[]; };
#else
layout(std430, binding = 3) readonly buffer Residual { float16_t resid[]; };
#endif
#endif


#define A_SHARED (BM * SA / 8)  // words of the A tile; the B tile starts here
#define AB_SHARED (A_SHARED + BK * SB / 8)
#define C_SHARED (WARPS_M * WARPS_N * CM_CS_WARP / 4)
shared uvec4 Ts[AB_SHARED > C_SHARED ? AB_SHARED : C_SHARED];

uint pack2(float lo, float hi) { return packFloat2x16(f16vec2(float16_t(lo), float16_t(hi))); }

// Word e of a BK-slice of A: BM rows x 4 words (8 consecutive k each), zero past M and kEnd.
#define A_PER (BM * BK / 8 / NT)
#define B_PER (BK * BN / 8 / NT)
#if ((BM * BK / 8) % NT) != 0 || ((BK * BN / 8) % NT) != 0
#error tile shape and warp grid do not fit
#endif
uvec4 wordA(uint e, uint k0, uint kEnd, uint aBase, uint m0) {
    uint row = e / (BK / 8), q = e % (BK / 8);
    uint m = m0 + row, k = k0 + 8u * q;
#ifdef CLAMPED_LOADS
    return a4[(aBase + min(m, p.M - 1u) * p.aM + k) / 8u];
#endif
    uvec4 v = uvec4(0u);
#ifdef VEC_A
    if (m < p.M && k + 8u <= kEnd) {
        v = a4[(aBase + m * p.aM + k) / 8u];
    } else
#endif
    if (m < p.M && k < kEnd) {
        float h[8];
        for (uint t = 0u; t < 8u; ++t) h[t] = k + t < kEnd ? float(a[aBase + m * p.aM + (k + t) * p.aK]) : 0.0;
        v = uvec4(pack2(h[0], h[1]), pack2(h[2], h[3]), pack2(h[4], h[5]), pack2(h[6], h[7]));
    }
    return v;
}
// Word e of a BK-slice of B: BK rows x BN / 8 words (8 consecutive n each), zero past kEnd and N.
uvec4 wordB(uint e, uint k0, uint kEnd, uint bBase, uint n0) {
    uint row = e / (BN / 8), q = e % (BN / 8);
    uint k = k0 + row, n = n0 + 8u * q;
#ifdef CLAMPED_LOADS
    return b4[(bBase + k * p.bK + min(n, p.N - 8u)) / 8u];
#endif
    uvec4 v = uvec4(0u);
#ifdef VEC_B
    if (k < kEnd && n + 8u <= p.N) {
        v = b4[(bBase + k * p.bK + n) / 8u];
    } else
#endif
    if (k < kEnd && n < p.N) {
        float h[8];
        for (uint t = 0u; t < 8u; ++t) h[t] = n + t < p.N ? float(b[bBase + k * p.bK + (n + t) * p.bN]) : 0.0;
        v = uvec4(pack2(h[0], h[1]), pack2(h[2], h[3]), pack2(h[4], h[5]), pack2(h[6], h[7]));
    }
    return v;
}

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint warp = tid / 32u, lane = tid % 32u;
    const uint wm = warp / WARPS_N, wn = warp % WARPS_N;
    const uint bt = gl_WorkGroupID.z % p.batches;
    const uint split = gl_WorkGroupID.z / p.batches;
    const uint kBegin = split * p.kChunk;
    const uint kEnd = min(p.K, kBegin + p.kChunk);
    const uint m0 = gl_WorkGroupID.y * BM;
    const uint n0 = gl_WorkGroupID.x * BN;
    const uint b1 = bt / p.inner, b2 = bt % p.inner;
    const uint aBase = p.aOffset + b1 * p.aOuter + b2 * p.aInner;
    const uint bBase = p.bOffset + b1 * p.bOuter + b2 * p.bInner;

    CM_ACC acc[FM][FN];
    CM_UNROLL for (uint i = 0u; i < FM; ++i)
        CM_UNROLL for (uint j = 0u; j < FN; ++j) CM_ZERO(acc[i][j]);

    // Register double buffering (as conv2d_cm.comp): slice k0 + BK is loaded from global
    // memory while slice k0 is multiplied.
    uvec4 aReg[A_PER], bReg[B_PER];
    CM_UNROLL for (uint i = 0u; i < A_PER; ++i) aReg[i] = wordA(tid + i * NT, kBegin, kEnd, aBase, m0);
    CM_UNROLL for (uint i = 0u; i < B_PER; ++i) bReg[i] = wordB(tid + i * NT, kBegin, kEnd, bBase, n0);
    for (uint k0 = kBegin; k0 < kEnd; k0 += BK) {
        CM_UNROLL for (uint i = 0u; i < A_PER; ++i) {
            uint e = tid + i * NT;
            As[(e / (BK / 8)) * (SA / 8) + e % (BK / 8)] = aReg[i];
        }
        CM_UNROLL for (uint i = 0u; i < B_PER; ++i) {
            uint e = tid + i * NT;
            Bs[A_SHARED + (e / (BN / 8)) * (SB / 8) + e % (BN / 8)] = bReg[i];
        }
        barrier();
        if (k0 + BK < kEnd) {
            CM_UNROLL for (uint i = 0u; i < A_PER; ++i) aReg[i] = wordA(tid + i * NT, k0 + BK, kEnd, aBase, m0);
            CM_UNROLL for (uint i = 0u; i < B_PER; ++i) bReg[i] = wordB(tid + i * NT, k0 + BK, kEnd, bBase, n0);
        }
        CM_UNROLL for (uint kk = 0u; kk < BK; kk += 16u) {
            CM_FRAG_A fa[FM];
            CM_UNROLL for (uint i = 0u; i < FM; ++i) CM_LOAD_A(fa[i], (wm * WTM + i * 16u) * SA + kk, SA);
            // One B fragment live at a time, beside the FM A fragments and FM x FN accumulators.
            CM_UNROLL for (uint j = 0u; j < FN; ++j) {
                CM_FRAG_B fb;
                CM_LOAD_B(fb, 8u * A_SHARED + kk * SB + wn * WTN + j * 16u, SB);
                CM_UNROLL for (uint i = 0u; i < FM; ++i) CM_MULADD(acc[i][j], fa[i], fb);
            }
        }
        barrier();
    }

    CM_UNROLL for (uint i = 0u; i < FM; ++i) {
        CM_UNROLL for (uint j = 0u; j < FN; ++j) {
            CM_STAGE(acc[i][j], warp);
            CM_WARP_SYNC();
            CM_UNROLL for (uint t = 0u; t < 8u; ++t) {
                // Consecutive lanes store consecutive columns, or consecutive rows where a folded
                // Transpose moved the columns (yN != 1: the rows are then what lies together).
                uint e = lane + 32u * t, r = e / 16u, cc = e % 16u;
                if (p.yN != 1u) r = e % 16u, cc = e / 16u;
                uint m = m0 + wm * WTM + i * 16u + r;
                uint n = n0 + wn * WTN + j * 16u + cc;
                if (m >= p.M || n >= p.N) continue;
                float v = CM_STAGED(warp * CM_CS_WARP + r * CM_CS_STRIDE + cc);
#ifdef SPLITK
                part[((split * p.batches + bt) * p.M + m) * p.N + n] = v;
#else
                v *= p.alpha;
#ifdef HAS_C
                v += p.beta * float(c[m * p.cM + n * p.cN]);
#endif
                const uint o = b1 * p.yOuter + b2 * p.yInner + m * p.yM + n * p.yN;
#ifdef HAS_R
                v += float(resid[o]);
#endif
                y[o] = float16_t(activate(v));
#endif
            }
            CM_WARP_SYNC();
        }
    }
}
