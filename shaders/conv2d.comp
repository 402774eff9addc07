#version 450
// Conv2d as an implicit GEMM: out[m, n] = sum_k w[m, k] * im2col(x)[k, n] per group, with
// m = output channel, n = (batch, oy, ox), k = (input channel, ky, kx). A workgroup computes
// a BM x BN tile through shared memory; each thread a TM x TN block, strided across the tile
// so that neighbouring threads read neighbouring shared-memory words. Each K slice is loaded
// into registers while the one before is multiplied (loadSlice).
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

#extension GL_EXT_control_flow_attributes : require

#define BM (WM * TM)
#define BN (WN * TN)
#define NT (WM * WN)
#if (NT % BN) != 0
#error the workgroup size must be a multiple of the tile width BN
#endif
#define KSTEP (NT / BN)
#define A_PER (BK * BM / NT)  // weights and gathered inputs of a K slice per invocation
#define B_PER (BK / KSTEP)
#if (BK * BM) % NT != 0 || BK % KSTEP != 0 || A_PER + B_PER > 32
#error tile shape and workgroup do not fit
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
#include "portable_tile.glsl"

// Slice k0 of the weights and of this invocation's im2col column into registers, every load
// unconditional: outside the weights, the image or the split, a clamped index (or element 0)
// is read and the value's bit in `inside` stays clear, so that zeros are selected where the
// registers are stored to shared memory (a branch around a load made the compiler wait for it
// where the branches join: gemm_cm.comp).
void loadSlice(uint k0, uint kEnd, uint tid, uint m0, uint wBase, uint Mg, uint K, uint kkFirst, bool nValid,
               int xBase, int iy0, int ix0, out float aReg[A_PER], out float bReg[B_PER], out uint inside) {
    inside = 0u;
    [[unroll]] for (uint i = 0u; i < A_PER; ++i) {
        uint e = tid + i * NT, m = m0 + e / BK, k = k0 + e % BK;
        aReg[i] = float(w[wBase + min(m, Mg - 1u) * K + min(k, kEnd - 1u)]);
        inside |= m < Mg && k < kEnd ? 1u << i : 0u;
    }
    [[unroll]] for (uint i = 0u; i < B_PER; ++i) {
        uint k = k0 + kkFirst + i * KSTEP;
        ivec4 kt = kTable[min(k, kEnd - 1u)];
        int iy = iy0 + kt.y, ix = ix0 + kt.z;
        bool valid = nValid && k < kEnd && uint(iy) < p.H && uint(ix) < p.W;
        bReg[i] = float(x[valid ? xBase + kt.x : 0]);
        inside |= valid ? 1u << (A_PER + i) : 0u;
    }
}

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
    [[unroll]] for (uint i = 0; i < TM; ++i)
        [[unroll]] for (uint j = 0; j < TN; ++j) acc[i][j] = 0.0;

    // Each thread gathers one fixed column (output pixel) of the B tile, rows kkFirst,
    // kkFirst + KSTEP, ...: its pixel is decomposed once, not per element.
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

    // Register double buffering (as gemm.comp): slice k0 + BK is loaded while slice k0 is
    // multiplied.
    const uint wBase = g * Mg * K;
    float aReg[A_PER], bReg[B_PER];
    uint inside = 0u;
    if (kBegin < kEnd) loadSlice(kBegin, kEnd, tid, m0, wBase, Mg, K, kkFirst, nValid, xBase, iy0, ix0, aReg, bReg, inside);
    for (uint k0 = kBegin; k0 < kEnd; k0 += BK) {
        [[unroll]] for (uint i = 0u; i < A_PER; ++i) {
            uint e = tid + i * NT;
            As[e % BK][e / BK] = (inside & (1u << i)) != 0u ? aReg[i] : 0.0;
        }
        [[unroll]] for (uint i = 0u; i < B_PER; ++i)
            Bs[kkFirst + i * KSTEP][nnLoad] = (inside & (1u << (A_PER + i))) != 0u ? bReg[i] : 0.0;
        barrier();
        if (k0 + BK < kEnd)
            loadSlice(k0 + BK, kEnd, tid, m0, wBase, Mg, K, kkFirst, nValid, xBase, iy0, ix0, aReg, bReg, inside);
        MULTIPLY_TILE_SLICE(acc, tx, ty);
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
