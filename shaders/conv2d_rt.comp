#version 450
// Conv2d as an implicit GEMM for GPUs without (or not using) tensor cores: each invocation
// computes 8 x 8 outputs, where conv2d.comp computes 4 x 4. Per reduction step it reads four
// vec4 from shared memory for 64 FMAs (conv2d.comp: eight scalars for 16), which is what an
// NVIDIA GPU needs to keep its FMA units busy; the next tile is fetched into registers while
// the current one is multiplied, into the other half of a double-buffered shared tile, so that
// one barrier per tile suffices. CPU implementations (lavapipe, CI's device) keep conv2d.comp
// unless a session forces these (DeviceCapabilities::registerTiledConv).
//
// out[m, n] = sum_k w[m, k] * im2col(x)[k, n] per group, with m = output channel,
// n = (batch, oy, ox), k = (input channel, ky, kx).
// Tile BM x BN = 8 WM x 8 WN; invocation (tx, ty) owns rows 4 ty + {0..3} and BM/2 + 4 ty +
// {0..3}, and the same two column quads: neighbouring invocations read neighbouring vec4.
// Grid: x (spilling into y past 65535) walks the pixel tiles; z = (split * groups + group) *
// mTiles + m-tile.
// Weights come packed at plan time as [groups][Kpad][Mpad] (ops/conv/register_tiled.cpp),
// zero-padded to whole tiles, so their loads need no bounds checks and are coalesced. The
// reduction table has Kpad rows; rows past K point outside the image and gather zeros.
// Defines: WM, WN (invocations along m and n; local size = WN x WM), BK, RESIDUAL, SPLITK
// (as in conv2d.comp), and the element type T_F32 or T_F16 (types.glsl; arithmetic in float).
#extension GL_EXT_control_flow_attributes : enable
#include "common.glsl"
#include "types.glsl"
#include "conv2d_rt.glsl"  // push constants, specialization constants, constants: shaders/kernels/conv2d_rt.toml
#include "conv_store.glsl"

#define BM (8 * WM)
#define BN (8 * WN)
#define NT (WM * WN)
#if (BM * BK) % NT != 0
#error the weight tile must divide among the invocations
#endif
#define A_PER ((BM * BK) / NT)
// B tile: each invocation gathers B_COLS fixed pixel columns, B_ROWS reduction rows of each.
#if NT >= BN
#define B_COLS 1
#define B_ROW_STEP (NT / BN)
#else
#define B_COLS (BN / NT)
#define B_ROW_STEP 1
#endif
#define B_ROWS (BK / B_ROW_STEP)
#if BK % B_ROW_STEP != 0 || BK % 4 != 0
#error BK must be a multiple of 4 and of the invocations per pixel column
#endif

// Output, partial sums and residual are also bound as four-element words (the same
// descriptors, 16-byte aligned: plan::compilePlan) for VEC4_STORE.
#ifdef SPLITK
layout(std430, binding = 0) writeonly buffer Partial { float part[]; };
layout(std430, binding = 0) writeonly buffer Partial4 { vec4 part4[]; };
#else
layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 0) writeonly buffer Out4 { T4 y4[]; };
#endif
layout(std430, binding = 1) readonly buffer In { T x[]; };
layout(std430, binding = 2) readonly buffer Weight { T w[]; };
layout(std430, binding = 3) readonly buffer Bias { T bias[]; };
// Per reduction index k = (ci, ky, kx): (ci*H*W + ky*DH*W + kx*DW, ky*DH, kx*DW).
layout(std430, binding = 4) readonly buffer KTable { ivec4 kTable[]; };
#ifdef RESIDUAL
layout(std430, binding = 5) readonly buffer Residual { T res[]; };
layout(std430, binding = 5) readonly buffer Residual4 { T4 res4[]; };
#endif

// 1 where each invocation's four consecutive pixels are four consecutive words of its output
// rows: NCHW without a shuffle, OH * OW a multiple of 4, or with SPLITK N * OH * OW
// (ops::vec4ConvStores). The epilogue then stores one vec4 per channel instead of four
// scalars a quad apart, so that a warp's stores are whole 128-byte lines (ResNet-50 at batch 8
// 4.22 -> 3.59 ms on the H200, docs/BENCHMARKS.md run 37).


shared vec4 As[2][BK][BM / 4];
shared vec4 Bs[2][BK][BN / 4];

// Per invocation: the pixel columns it gathers (decomposed once), and the tile in flight
// between its global loads and its shared-memory stores.
int iy0[B_COLS], ix0[B_COLS], xBase[B_COLS];
float aNext[A_PER], bNext[B_COLS][B_ROWS];
uint tid, wBase, kkFirst;

// Loads the tile of reduction rows [k0, k0 + BK) into aNext and bNext.
void fetch(uint k0) {
    [[unroll]] for (uint r = 0; r < A_PER; ++r) {
        uint e = tid + r * NT;
        aNext[r] = float(w[wBase + (k0 + e / BM) * p.Mpad + e % BM]);
    }
    [[unroll]] for (uint r = 0; r < B_ROWS; ++r) {
        ivec4 kt = kTable[k0 + kkFirst + r * B_ROW_STEP];
        [[unroll]] for (uint c = 0; c < B_COLS; ++c) {
            int iy = iy0[c] + kt.y, ix = ix0[c] + kt.z;
            float v = 0.0;
            if (uint(iy) < p.H && uint(ix) < p.W) v = float(x[xBase[c] + kt.x]);
            bNext[c][r] = v;
        }
    }
}

void stash(uint buf) {
    [[unroll]] for (uint r = 0; r < A_PER; ++r) {
        uint e = tid + r * NT;
        As[buf][e / BM][(e % BM) / 4][e % 4] = aNext[r];
    }
    [[unroll]] for (uint c = 0; c < B_COLS; ++c) {
        uint nn = tid % BN + c * NT;
        [[unroll]] for (uint r = 0; r < B_ROWS; ++r) Bs[buf][kkFirst + r * B_ROW_STEP][nn / 4][nn % 4] = bNext[c][r];
    }
}

void main() {
    const uint tx = gl_LocalInvocationID.x;
    const uint ty = gl_LocalInvocationID.y;
    tid = ty * WN + tx;
    const uint Mg = p.M / p.groups;
    const uint mTiles = p.Mpad / BM;
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
    wBase = g * p.Kpad * p.Mpad + m0;
    kkFirst = tid / BN;

    [[unroll]] for (uint c = 0; c < B_COLS; ++c) {
        uint n = n0 + tid % BN + c * NT;
        // A column past the output gathers zeros: 1 << 29 is outside the image, also with a
        // padded reduction row's offset (the same) added.
        iy0[c] = 1 << 29;
        ix0[c] = 0;
        xBase[c] = 0;
        if (n < NP) {
            uint ox = n % p.OW, t = n / p.OW;
            uint oy = t % p.OH, b = t / p.OH;
            iy0[c] = int(oy * p.SH) - int(p.padH);
            ix0[c] = int(ox * p.SW) - int(p.padW);
            xBase[c] = int((b * p.C + g * Cg) * p.H * p.W) + iy0[c] * int(p.W) + ix0[c];
        }
    }

    vec4 acc[8][2];
    [[unroll]] for (uint i = 0; i < 8; ++i) acc[i][0] = acc[i][1] = vec4(0.0);

    fetch(kBegin);  // every split has at least one reduction row
    stash(0);
    barrier();
    uint buf = 0;
    for (uint k0 = kBegin; k0 < kEnd; k0 += BK) {
        const bool more = k0 + BK < kEnd;  // uniform
        if (more) fetch(k0 + BK);  // in flight while this tile is multiplied
        [[unroll]] for (uint kk = 0; kk < BK; ++kk) {
            vec4 a0 = As[buf][kk][ty], a1 = As[buf][kk][WM + ty];
            vec4 b0 = Bs[buf][kk][tx], b1 = Bs[buf][kk][WN + tx];
            [[unroll]] for (uint i = 0; i < 4; ++i) {
                acc[i][0] = fma(vec4(a0[i]), b0, acc[i][0]);
                acc[i][1] = fma(vec4(a0[i]), b1, acc[i][1]);
                acc[4 + i][0] = fma(vec4(a1[i]), b0, acc[4 + i][0]);
                acc[4 + i][1] = fma(vec4(a1[i]), b1, acc[4 + i][1]);
            }
        }
        // The other buffer was last read in the previous pass, which every invocation
        // finished before the barrier that ended it.
        if (more) stash(buf ^ 1u);
        barrier();
        buf ^= 1u;
    }

    if (VEC4_STORE != 0u) {
        const uint HW = p.OH * p.OW;
        [[unroll]] for (uint h = 0; h < 2; ++h) {
            uint n = n0 + h * (BN / 2) + 4 * tx;  // a multiple of 4, as is NP (and HW without SPLITK)
            uint b = n / HW, pix = n % HW;
            [[unroll]] for (uint i = 0; i < 8; ++i) {
                uint m = m0 + (i / 4) * (BM / 2) + 4 * ty + i % 4;
                if (n < NP && m < Mg) {
                    uint oc = g * Mg + m;
#ifdef SPLITK
                    part4[((split * p.M + oc) * NP + n) / 4] = acc[i][h];
#else
                    uint q = ((b * p.M + oc) * HW + pix) / 4;
                    vec4 v = acc[i][h] + vec4(float(bias[oc]));
#ifdef RESIDUAL
                    v += vec4(res4[q]);
#endif
                    y4[q] = T4(activate4At(v, vec4(SLOPE_OF(float(bias[p.M + oc])))));
#endif
                }
            }
        }
        return;
    }
    // No continue in these loops: glslc unrolls them only without one, and a loop left rolled
    // indexes acc dynamically, which puts all 64 accumulators in local memory (5x slower on
    // the H200). Staging the tile through shared memory for pixel-ordered NCHW stores was
    // slower (docs/BENCHMARKS.md).
    [[unroll]] for (uint h = 0; h < 2; ++h)
        [[unroll]] for (uint j = 0; j < 4; ++j) {
            uint n = n0 + h * (BN / 2) + 4 * tx + j;
            uint ox = n % p.OW, t = n / p.OW;
            uint oy = t % p.OH, b = t / p.OH;
            [[unroll]] for (uint i = 0; i < 8; ++i) {
                uint m = m0 + (i / 4) * (BM / 2) + 4 * ty + i % 4;
                if (n < NP && m < Mg) {
                    uint oc = g * Mg + m;
                    float v = acc[i][h][j];
#ifdef SPLITK
                    part[p.outNhwc != 0u ? (split * NP + n) * p.M + oc : (split * p.M + oc) * NP + n] = v;
#else
                    uint idx = p.outNhwc != 0u ? n * p.M + oc : convOutIndex(b, oc, oy, ox, p.M, p.OH, p.OW, SHUFFLE);
                    v += float(bias[oc]);
#ifdef RESIDUAL
                    v += float(res[idx]);
#endif
                    y[idx] = T(activateAt(v, SLOPE_OF(float(bias[p.M + oc]))));
#endif
                }
            }
        }
}
