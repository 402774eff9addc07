#version 450
// Conv2d as an implicit GEMM: out[m, n] = sum_k w[m, k] * im2col(x)[k, n] per group, with
// m = output channel, n = (batch, oy, ox), k = (input channel, ky, kx). A workgroup computes
// a BM x BN tile through shared memory; each thread a TM x TN block, strided across the tile
// so that neighbouring threads read neighbouring shared-memory words.
// Grid: x (spilling into y past 65535) walks the pixel tiles; z = (split * groups + group) *
// mTiles + m-tile.
// Defines: TM, TN, WM, WN (threads along m and n; local size = WN x WM), BK, RESIDUAL, and the
// element type T_F32 or T_F16 (types.glsl: tensors, weights and bias of type T; arithmetic and
// the shared tiles in float).
// SPLITK: split s reduces only k in [s * kChunk, (s + 1) * kChunk) and stores its float
// partial sums as part[s][oc][n] (no bias, residual or activation); conv_splitk_reduce.comp
// adds the splits in order. For layers with few output tiles (7x7 maps, many channels),
// which would otherwise leave most of a GPU idle.
#include "common.glsl"
#include "types.glsl"
#include "conv2d.glsl"  // push constants, specialization constants, constants: shaders/kernels/conv2d.toml

#define BM (WM * TM)
#define BN (WN * TN)
#if ((WM * WN) % BN) != 0
#error the workgroup size must be a multiple of the tile width BN
#endif

#ifdef SPLITK
layout(std430, binding = 0) writeonly buffer Partial { float part[]; };
#else
layout(std430, binding = 0) writeonly buffer Out { T y[]; };
#endif
layout(std430, binding = 1) readonly buffer In { T x[]; };
layout(std430, binding = 2) readonly buffer Weight { T w[]; };
layout(std430, binding = 3) readonly buffer Bias { T bias[]; };
// Per reduction index k = (ci, ky, kx): (ci*H*W + ky*DH*W + kx*DW, ky*DH, kx*DW), built at
// plan time so that the im2col gather does no integer division (scalarized and slow on CPU
// drivers such as lavapipe, a dozen instructions on GPUs).
layout(std430, binding = 4) readonly buffer KTable { ivec4 kTable[]; };
#ifdef RESIDUAL
layout(std430, binding = 5) readonly buffer Residual { T res[]; };
#endif


shared float As[BK][BM];
shared float Bs[BK][BN];

void main() {
    const uint tx = gl_LocalInvocationID.x;
    const uint ty = gl_LocalInvocationID.y;
    const uint tid = ty * WN + tx;
    const uint Mg = p.M / p.groups;
    const uint mTiles = (Mg + BM - 1) / BM;
    const uint zPerSplit = p.groups * mTiles;
    const uint split = gl_WorkGroupID.z / zPerSplit;
    const uint gz = gl_WorkGroupID.z % zPerSplit;
    const uint g = gz / mTiles;
    const uint Cg = p.C / p.groups;
    const uint K = Cg * p.KH * p.KW;
    const uint NP = p.N * p.OH * p.OW;
    const uint m0 = (gz % mTiles) * BM;
    const uint kBegin = split * p.kChunk;
    const uint kEnd = min(K, kBegin + p.kChunk);
    const uint n0 = (gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x) * BN;
    if (n0 >= NP) return;  // past the last tile of a spilled grid (uniform per workgroup)

    float acc[TM][TN];
    for (uint i = 0; i < TM; ++i)
        for (uint j = 0; j < TN; ++j) acc[i][j] = 0.0;

    // Each thread gathers one fixed column (output pixel) of the B tile, rows kkFirst,
    // kkFirst + KSTEP, ...: its pixel is decomposed once, not per element.
    const uint KSTEP = (WM * WN) / BN;
    const uint nnLoad = tid % BN;
    const uint kkFirst = tid / BN;
    const uint nLoad = n0 + nnLoad;
    const bool nValid = nLoad < NP;
    int iy0 = 0, ix0 = 0, xBase = 0;
    if (nValid) {
        uint ox = nLoad % p.OW, t = nLoad / p.OW;
        uint oy = t % p.OH, b = t / p.OH;
        iy0 = int(oy * p.SH) - int(p.padH);
        ix0 = int(ox * p.SW) - int(p.padW);
        xBase = int((b * p.C + g * Cg) * p.H * p.W) + iy0 * int(p.W) + ix0;
    }

    for (uint k0 = kBegin; k0 < kEnd; k0 += BK) {
        for (uint e = tid; e < BK * BM; e += WM * WN) {
            uint kk = e % BK, mm = e / BK;
            uint m = m0 + mm, k = k0 + kk;
            As[kk][mm] = (m < Mg && k < kEnd) ? float(w[(g * Mg + m) * K + k]) : 0.0;
        }
        for (uint kk = kkFirst; kk < BK; kk += KSTEP) {
            uint k = k0 + kk;
            float v = 0.0;
            if (nValid && k < kEnd) {
                ivec4 kt = kTable[k];
                int iy = iy0 + kt.y, ix = ix0 + kt.z;
                if (uint(iy) < p.H && uint(ix) < p.W) v = float(x[xBase + kt.x]);
            }
            Bs[kk][nnLoad] = v;
        }
        barrier();
        for (uint kk = 0; kk < BK; ++kk) {
            float a[TM], bv[TN];
            for (uint i = 0; i < TM; ++i) a[i] = As[kk][ty + i * WM];
            for (uint j = 0; j < TN; ++j) bv[j] = Bs[kk][tx + j * WN];
            for (uint i = 0; i < TM; ++i)
                for (uint j = 0; j < TN; ++j) acc[i][j] = fma(a[i], bv[j], acc[i][j]);
        }
        barrier();
    }

    for (uint i = 0; i < TM; ++i) {
        uint m = m0 + ty + i * WM;
        if (m >= Mg) continue;
        uint oc = g * Mg + m;
        for (uint j = 0; j < TN; ++j) {
            uint n = n0 + tx + j * WN;
            if (n >= NP) continue;
#ifdef SPLITK
            part[p.outNhwc != 0u ? (split * NP + n) * p.M + oc : (split * p.M + oc) * NP + n] = acc[i][j];
#else
            uint ox = n % p.OW, t = n / p.OW;
            uint oy = t % p.OH, b = t / p.OH;
            uint idx = p.outNhwc != 0u ? n * p.M + oc : ((b * p.M + oc) * p.OH + oy) * p.OW + ox;
            float v = acc[i][j] + float(bias[oc]);
#ifdef RESIDUAL
            v += float(res[idx]);
#endif
            y[idx] = T(activateAt(v, SLOPE_OF(float(bias[p.M + oc]))));
#endif
        }
    }
}
