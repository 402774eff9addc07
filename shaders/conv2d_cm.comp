#version 450
// Conv2d as an implicit GEMM on cooperative matrices (tensor cores): out[m, n] = sum_k
// w[m, k] * im2col(x)[k, n] per group, m = output channel, n = (batch, oy, ox), k = (input
// channel, ky, kx), float16 operands, float32 accumulation. A workgroup of WARPS_M x WARPS_N
// warps computes a BM x BN tile; each warp a (BM / WARPS_M) x (BN / WARPS_N) block of 16x16
// accumulators. Per BK-slice of the reduction, the weights tile (pre-packed at plan time,
// zero-padded to Mpad x Kpad per group, read as uvec4) and the gathered im2col tile go
// through shared memory, then every warp multiplies its fragments.
// The epilogue stages one accumulator at a time in shared memory and adds bias, residual and
// activation per element before the float16 store (cooperative matrices have no per-element
// functions). SPLITK: as conv2d.comp, float partial sums part[s][oc][n] for
// conv_splitk_reduce.comp.
// Channels-last (NHWC) activations, chosen by the planner between cooperative-matrix convs
// (ops/conv/layout.h): with IN_NHWC the input is [N][H][W][C] and the reduction runs
// k = (ky, kx, ci), so each invocation loads 8 consecutive channels as one 16-byte word
// (C and C/groups multiples of 8) and both tiles go through shared memory as such words, B
// stored column-major (the reduction contiguous). p.outNhwc makes the output, the residual
// and the split-K partial sums channels-last (part[s][n][oc]).
// Grid: x (spilling into y past 65535) walks the pixel tiles; z = (split * groups + group) *
// mTiles + m-tile. Defines: BM, BN, WARPS_M, WARPS_N, RESIDUAL, SPLITK, POINTWISE (1x1
// kernel, stride 1, no padding: the gather needs no table), IN_NHWC, and CM_NV / CM_KHR /
// CM_EMULATE (coopmat.glsl).
#define T_F16
#include "common.glsl"
#include "types.glsl"
#include "conv2d_cm.glsl"  // push constants, specialization constants, constants: shaders/kernels/conv2d_cm.toml
#include "conv_store.glsl"
#ifdef IN_NHWC
#define CM_UNIT 8u
#define CM_A(h) cmHalf(As[(h) >> 3], h)
#define CM_B(h) cmHalf(Bs[(h) >> 3], h)
#define CM_B_COLUMN_MAJOR
#endif
#include "coopmat.glsl"

#define BK TILE_K
#define NT (32 * WARPS_M * WARPS_N)
#define WTM (BM / WARPS_M)
#define WTN (BN / WARPS_N)
#define FM (WTM / 16)
#define FN (WTN / 16)
#define SA (BK + 8)  // halves per shared row of A (16-byte aligned rows, fewer bank conflicts)
#define SB (BN + 8)
#define SBT (BK + 8)  // halves per shared column of B when it is stored column-major (IN_NHWC)
#if (NT % BN) != 0 || (WTM % 16) != 0 || (WTN % 16) != 0 || ((BM * BK / 8) % NT) != 0
#error tile shape and warp grid do not fit
#endif

#ifdef SPLITK
layout(std430, binding = 0) writeonly buffer Partial { float part[]; };
#else
layout(std430, binding = 0) writeonly buffer Out { float16_t y[]; };
#endif
layout(std430, binding = 1) readonly buffer In { float16_t x[]; };
layout(std430, binding = 1) readonly buffer In8 { uvec4 xq[]; };  // IN_NHWC: 8 channels a word
layout(std430, binding = 2) readonly buffer Weight { uvec4 wq[]; };  // [groups][Mpad][Kpad] halves
layout(std430, binding = 3) readonly buffer Bias { float16_t bias[]; };
layout(std430, binding = 4) readonly buffer KTable { ivec4 kTable[]; };
#ifdef RESIDUAL
layout(std430, binding = 5) readonly buffer Residual { float16_t res[]; };
#endif


#ifdef IN_NHWC
shared uvec4 As[BM * SA / 8];
shared uvec4 Bs[BN * SBT / 8];
#else
shared float16_t As[BM * SA];
shared float16_t Bs[BK * SB];
#endif
shared float Cs[WARPS_M * WARPS_N * CM_CS_WARP];

// The multiplies of one BK-slice staged in shared memory: every warp's FM x FN fragments.
// B_FRAG_OFFSET(kk, j): where fragment column j of rows kk.. starts in Bs (halves).
#ifdef IN_NHWC
#define B_FRAG_OFFSET(kk, j) ((wn * WTN + (j) * 16u) * SBT + (kk))
#define B_FRAG_STRIDE SBT
#else
#define B_FRAG_OFFSET(kk, j) ((kk) * SB + wn * WTN + (j) * 16u)
#define B_FRAG_STRIDE SB
#endif
#define MULTIPLY_SLICE()                                                                           \
    CM_UNROLL for (uint kk = 0u; kk < BK; kk += 16u) {                                             \
        CM_FRAG_A a[FM];                                                                           \
        CM_FRAG_B b[FN];                                                                           \
        CM_UNROLL for (uint i = 0u; i < FM; ++i)                                                   \
            CM_LOAD_A(a[i], (wm * WTM + i * 16u) * SA + kk, SA);                                   \
        CM_UNROLL for (uint j = 0u; j < FN; ++j)                                                   \
            CM_LOAD_B(b[j], B_FRAG_OFFSET(kk, j), B_FRAG_STRIDE);                                  \
        CM_UNROLL for (uint i = 0u; i < FM; ++i)                                                   \
            CM_UNROLL for (uint j = 0u; j < FN; ++j) CM_MULADD(acc[i][j], a[i], b[j]);             \
    }
// NCHW paths: word q (8 halves) of row `row` of the A tile into the half-typed As.
#define STORE_A_WORD(row, q, v)                                                                    \
    {                                                                                              \
        uint s = (row) * SA + (q) * 8u;                                                            \
        f16vec2 h0 = unpackFloat2x16((v).x), h1 = unpackFloat2x16((v).y),                          \
                h2 = unpackFloat2x16((v).z), h3 = unpackFloat2x16((v).w);                          \
        As[s + 0u] = h0.x; As[s + 1u] = h0.y; As[s + 2u] = h1.x; As[s + 3u] = h1.y;                \
        As[s + 4u] = h2.x; As[s + 5u] = h2.y; As[s + 6u] = h3.x; As[s + 7u] = h3.y;                \
    }

#define KSTEP (NT / BN)
#define A_PER (BM * BK / 8 / NT)
#define B_PER (BK / KSTEP)
#ifdef IN_NHWC
#define B_WORDS (BK / 8 * BN / NT)
#define B_WORD_LANES (BK / 8)  // invocations sharing one pixel: its slice is 64 contiguous bytes
// Where this invocation's B words come from: word i is channel word `kq` of pixel tile column
// tid / B_WORD_LANES + i * (NT / B_WORD_LANES), so that consecutive invocations read
// consecutive 16-byte words of one pixel, then of the next (full 32-byte sectors).
struct PixelOrigin {
    int base;  // element offset of the window's (0, 0) tap at this group's first channel
    int iy0, ix0;
    bool valid;
};

// Global loads of one BK-slice: A as in loadSlice below; B: 8 reduction indices per word (one
// (ky, kx) since C/groups is a multiple of 8). Words outside the image or past this split read
// word 0 instead and their bit in bInside stays clear: the zeros are selected where the words
// are stored to shared memory, after the multiplies the loads hide behind. (A branch around
// each load made the compiler wait for it where the branches joined: see gemm_cm.comp; run 61
// on the H100: ResNet-18/2 and a GroupNorm UNet at 960x544 3% faster.)
void loadSliceNhwc(uint k0, uint kEnd, uint aRow0, uint kq, PixelOrigin px[B_WORDS], out uvec4 aReg[A_PER],
                   out uvec4 bReg[B_WORDS], out uint bInside) {
    const uint tid = gl_LocalInvocationIndex;
    CM_UNROLL for (uint i = 0u; i < A_PER; ++i) {
        uint e = tid + i * NT, row = e / (BK / 8u), q = e % (BK / 8u);
        aReg[i] = wq[((aRow0 + row) * p.Kpad + k0) / 8u + q];
    }
    const uint k = k0 + kq * 8u;
#ifndef POINTWISE
    ivec4 kt = kTable[min(k, kEnd - 1u)];
#endif
    bInside = 0u;
    CM_UNROLL for (uint i = 0u; i < B_WORDS; ++i) {
#ifdef POINTWISE
        bool inside = px[i].valid && k < kEnd;
        int at = px[i].base + int(k);
#else
        int iy = px[i].iy0 + kt.y, ix = px[i].ix0 + kt.z;
        bool inside = px[i].valid && k < kEnd && uint(iy) < p.H && uint(ix) < p.W;
        int at = px[i].base + kt.x;
#endif
        bReg[i] = xq[inside ? at >> 3 : 0];
        bInside |= inside ? 1u << i : 0u;
    }
}
#elif BM >= 64
// Global loads of one BK-slice into registers. A: BM rows of BK halves, 8 halves per uvec4
// (rows past Mg and k past K are zeros in the packed weights). B: this thread's column of the
// im2col gather, rows kkFirst, kkFirst + KSTEP, ...; outside the image and past this split's
// reduction element 0 is read and the bit in bInside stays clear (zeros at the store, as above).
void loadSlice(uint k0, uint kEnd, uint aRow0, bool nValid, int xBase, int iy0, int ix0, uint kkFirst,
               out uvec4 aReg[A_PER], out float16_t bReg[B_PER], out uint bInside) {
    const uint tid = gl_LocalInvocationIndex;
    CM_UNROLL for (uint i = 0u; i < A_PER; ++i) {
        uint e = tid + i * NT, row = e / (BK / 8u), q = e % (BK / 8u);
        aReg[i] = wq[((aRow0 + row) * p.Kpad + k0) / 8u + q];
    }
    bInside = 0u;
    CM_UNROLL for (uint i = 0u; i < B_PER; ++i) {
        uint k = k0 + kkFirst + i * KSTEP;
#ifdef POINTWISE
        bool inside = nValid && k < kEnd;
        int at = xBase + int(k * p.H * p.W);
#else
        ivec4 kt = kTable[min(k, kEnd - 1u)];
        int iy = iy0 + kt.y, ix = ix0 + kt.z;
        bool inside = nValid && k < kEnd && uint(iy) < p.H && uint(ix) < p.W;
        int at = xBase + kt.x;
#endif
        bReg[i] = x[inside ? at : 0];
        bInside |= inside ? 1u << i : 0u;
    }
}
#endif

void main() {
    const uint tid = gl_LocalInvocationIndex;
    const uint warp = tid / 32u, lane = tid % 32u;
    const uint wm = warp / WARPS_N, wn = warp % WARPS_N;
    const uint Mg = p.M / p.groups;
    const uint mTiles = (Mg + BM - 1u) / BM;
    const uint zPerSplit = p.groups * mTiles;
    const uint split = gl_WorkGroupID.z / zPerSplit;
    const uint gz = gl_WorkGroupID.z % zPerSplit;
    const uint g = gz / mTiles;
    const uint Cg = p.C / p.groups;
    const uint K = Cg * p.KH * p.KW;
    const uint OHW = p.OH * p.OW;
    const uint NP = p.N * OHW;
    const uint m0 = (gz % mTiles) * BM;
    const uint kBegin = split * p.kChunk;
    const uint kEnd = min(K, kBegin + p.kChunk);
    const uint n0 = (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * BN;
    if (n0 >= NP) return;  // past the last tile of a spilled grid (uniform per workgroup)

    CM_ACC acc[FM][FN];
    CM_UNROLL for (uint i = 0u; i < FM; ++i)
        CM_UNROLL for (uint j = 0u; j < FN; ++j) CM_ZERO(acc[i][j]);

    // Each thread gathers one fixed column (output pixel) of the B tile, rows kkFirst,
    // kkFirst + KSTEP, ...: its pixel is decomposed once.
    const uint nnLoad = tid % BN;
    const uint kkFirst = tid / BN;
    const uint nLoad = n0 + nnLoad;
    const bool nValid = nLoad < NP;
    int iy0 = 0, ix0 = 0, xBase = 0;
    if (nValid) {
        uint b = nLoad / OHW, pix = nLoad % OHW;
        uint oy = pix / p.OW, ox = pix % p.OW;
        iy0 = int(oy * p.SH) - int(p.padH);
        ix0 = int(ox * p.SW) - int(p.padW);
        xBase = int((b * p.C + g * Cg) * p.H * p.W) + iy0 * int(p.W) + ix0;
    }
    const uint aRow0 = g * p.Mpad + m0;

#ifdef IN_NHWC
    // Register double buffering as below, for both tile sizes: the loads are few words here.
    const uint kq = tid % B_WORD_LANES;
    PixelOrigin px[B_WORDS];
    CM_UNROLL for (uint i = 0u; i < B_WORDS; ++i) {
        uint n = n0 + tid / B_WORD_LANES + i * (NT / B_WORD_LANES);
        px[i].valid = n < NP;
        uint b = n / OHW, pix = n % OHW;
        px[i].iy0 = int((pix / p.OW) * p.SH) - int(p.padH);
        px[i].ix0 = int((pix % p.OW) * p.SW) - int(p.padW);
        px[i].base = (int(b * p.H) + px[i].iy0) * int(p.W * p.C) + px[i].ix0 * int(p.C) + int(g * Cg);
    }
    uvec4 aReg[A_PER];
    uvec4 bReg[B_WORDS];
    uint bInside;
    loadSliceNhwc(kBegin, kEnd, aRow0, kq, px, aReg, bReg, bInside);
    for (uint k0 = kBegin; k0 < kEnd; k0 += BK) {
        CM_UNROLL for (uint i = 0u; i < A_PER; ++i) {
            uint e = tid + i * NT, row = e / (BK / 8u), q = e % (BK / 8u);
            As[row * (SA / 8u) + q] = aReg[i];
        }
        CM_UNROLL for (uint i = 0u; i < B_WORDS; ++i)
            Bs[(tid / B_WORD_LANES + i * (NT / B_WORD_LANES)) * (SBT / 8u) + kq] =
                (bInside & (1u << i)) != 0u ? bReg[i] : uvec4(0u);
        barrier();
        if (k0 + BK < kEnd) loadSliceNhwc(k0 + BK, kEnd, aRow0, kq, px, aReg, bReg, bInside);
        MULTIPLY_SLICE();
        barrier();
    }
#elif BM >= 64
    // Register double buffering: the global loads of slice k0 + BK are issued before the
    // multiplies of slice k0, so their latency hides behind the tensor-core work; shared
    // memory holds one slice. The 32-row tile keeps the single-buffered loop below: through
    // registers it was 13% slower on the H200, prefetching or not (docs/BENCHMARKS.md).
    uvec4 aReg[A_PER];
    float16_t bReg[B_PER];
    uint bInside;
    loadSlice(kBegin, kEnd, aRow0, nValid, xBase, iy0, ix0, kkFirst, aReg, bReg, bInside);
    for (uint k0 = kBegin; k0 < kEnd; k0 += BK) {
        CM_UNROLL for (uint i = 0u; i < A_PER; ++i) {
            uint e = tid + i * NT, row = e / (BK / 8u), q = e % (BK / 8u);
            uvec4 v = aReg[i];
            STORE_A_WORD(row, q, v);
        }
        CM_UNROLL for (uint i = 0u; i < B_PER; ++i)
            Bs[(kkFirst + i * KSTEP) * SB + nnLoad] = (bInside & (1u << i)) != 0u ? bReg[i] : float16_t(0.0);
        barrier();
        if (k0 + BK < kEnd) loadSlice(k0 + BK, kEnd, aRow0, nValid, xBase, iy0, ix0, kkFirst, aReg, bReg, bInside);
        MULTIPLY_SLICE();
        barrier();
    }
#else
    for (uint k0 = kBegin; k0 < kEnd; k0 += BK) {
        // A: BM rows of BK halves, 8 halves per uvec4; rows past Mg and k past K are zeros
        // in the packed weights.
        for (uint e = tid; e < BM * BK / 8u; e += NT) {
            uint row = e / (BK / 8u), q = e % (BK / 8u);
            uvec4 v = wq[((aRow0 + row) * p.Kpad + k0) / 8u + q];
            STORE_A_WORD(row, q, v);
        }
        // B: the im2col gather, zero outside the image and past this split's reduction.
        for (uint kk = kkFirst; kk < BK; kk += KSTEP) {
            uint k = k0 + kk;
            float16_t v = float16_t(0.0);
            if (nValid && k < kEnd) {
#ifdef POINTWISE
                v = x[xBase + int(k * p.H * p.W)];
#else
                ivec4 kt = kTable[k];
                int iy = iy0 + kt.y, ix = ix0 + kt.z;
                if (uint(iy) < p.H && uint(ix) < p.W) v = x[xBase + kt.x];
#endif
            }
            Bs[kk * SB + nnLoad] = v;
        }
        barrier();
        MULTIPLY_SLICE();
        barrier();
    }
#endif

    // Epilogue, one accumulator at a time through this warp's staging rows.
    CM_UNROLL for (uint i = 0u; i < FM; ++i) {
        CM_UNROLL for (uint j = 0u; j < FN; ++j) {
            CM_STAGE(acc[i][j], warp);
            CM_WARP_SYNC();
            CM_UNROLL for (uint t = 0u; t < 8u; ++t) {
                // Consecutive lanes store consecutive addresses: pixels in NCHW, channels in NHWC.
                uint e = lane + 32u * t;
                uint r = p.outNhwc != 0u ? e % 16u : e / 16u, c = p.outNhwc != 0u ? e / 16u : e % 16u;
                uint m = m0 + wm * WTM + i * 16u + r;
                uint n = n0 + wn * WTN + j * 16u + c;
                if (m >= Mg || n >= NP) continue;
                uint oc = g * Mg + m;
                float v = Cs[warp * CM_CS_WARP + r * CM_CS_STRIDE + c];
#ifdef SPLITK
                part[p.outNhwc != 0u ? (split * NP + n) * p.M + oc : (split * p.M + oc) * NP + n] = v;
#else
                uint b = n / OHW, pix = n % OHW;
                // (Without a shuffle the index stays pixel-linear: the row and column of pix
                // cost a division per store, which made small layers 4-9% slower, run 25.)
                uint idx = p.outNhwc != 0u ? n * p.M + oc
                           : SHUFFLE != 0u ? convOutIndex(b, oc, pix / p.OW, pix % p.OW, p.M, p.OH, p.OW, SHUFFLE)
                                           : (b * p.M + oc) * OHW + pix;
                v += float(bias[oc]);
#ifdef RESIDUAL
                v += float(res[idx]);
#endif
                y[idx] = float16_t(activateAt(v, SLOPE_OF(float(bias[p.M + oc]))));
#endif
            }
            CM_WARP_SYNC();
        }
    }
}
