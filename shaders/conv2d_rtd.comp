#version 450
// Stride-1 Conv2d in float32 FMAs without im2col: conv2d_rt.comp's 8x8 outputs per invocation,
// with conv2d_cmd.comp's input window. A workgroup computes TH output rows x TW = 32 pixels x
// BM = 8 WM channels. Per chunk of CK input channels it copies the window the tile needs
// (TH + KH - 1 rows of TW + KW - 1 pixels, zero outside the image: the halo) and the chunk's
// weights into shared memory once; every tap then reads its operands from there. conv2d_rt
// gathers each reduction row through the reduction table with a bounds check per element,
// KH x KW times per input element; here each input element is loaded about once per tile.
// Invocation (tx, ty) owns output row tx / 4 of the tile, the 8 pixels 8 (tx % 4) .. + 7 of
// it, and channels 4 ty + {0..3} and BM / 2 + 4 ty + {0..3}, as in conv2d_rt. Per (channel,
// window row) it reads the 8 + KW - 1 halo pixels its taps need as whole vec4 once and
// reuses them for the KW taps along x.
// Weights come packed at plan time as [m-tile][chunk][CK][KH][KW][BM] (ops/conv/register_direct.cpp),
// zero past M and C, so a chunk's weights are one contiguous run.
// Defines: WM, TH, KW (a define, not a constant: the taps along x index registers, which
// must be known when glslc unrolls), RESIDUAL, and T_F32 (types.glsl).
#extension GL_EXT_control_flow_attributes : enable
#include "common.glsl"
#include "types.glsl"
#include "conv2d_rtd.glsl"  // push constants, specialization constants, constants: shaders/kernels/conv2d_rtd.toml
#include "conv_store.glsl"

#define BM (8u * WM)
#define SEGS (TW / 8u)             // 8-pixel segments per tile row
#define WN (TH * SEGS)
#define NT (WM * WN)
#define SEGV ((8u + KW - 1u + 3u) / 4u)  // vec4 of halo per segment and window row
// Halo row stride in vec4: odd, so that the four segments of two neighbouring rows that a
// quarter warp reads fall in distinct banks.
#define RS4 ((((TW + KW - 1u + 3u) / 4u)) | 1u)
#define RS (4u * RS4)

const uint HR = TH + KH - 1u;             // halo rows
const uint HALO = CK * HR * RS;           // halo floats per chunk
const uint WEIGHTS = CK * KH * KW * BM;   // weight floats per chunk
const uint HALO_PER = (HALO + NT - 1u) / NT;
const uint WEIGHT_PER = (WEIGHTS + NT - 1u) / NT;

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };
layout(std430, binding = 2) readonly buffer Weight { T w[]; };
layout(std430, binding = 3) readonly buffer Bias { T bias[]; };
#ifdef RESIDUAL
layout(std430, binding = 4) readonly buffer Residual { T res[]; };
#endif


shared vec4 Hs[HALO / 4u];
shared vec4 Ws[WEIGHTS / 4u];

uint tid, b, m0, x0, y0, wBase;
float haloLoaded[HALO_PER];
float weightLoaded[WEIGHT_PER];

// Chunk q's global loads, all issued before any is stored: one memory round trip per chunk.
void fetch(uint q) {
    [[unroll]] for (uint i = 0u; i < HALO_PER; ++i) {
        uint e = tid + i * NT;
        uint c = e / (HR * RS), rem = e % (HR * RS);
        int iy = int(y0 + rem / RS) - int(p.padH), ix = int(x0 + rem % RS) - int(p.padW);
        uint ch = q * CK + c;
        float v = 0.0;
        if (e < HALO && ch < p.C && uint(iy) < p.H && uint(ix) < p.W)
            v = float(x[((b * p.C + ch) * p.H + uint(iy)) * p.W + uint(ix)]);
        haloLoaded[i] = v;
    }
    [[unroll]] for (uint i = 0u; i < WEIGHT_PER; ++i) {
        uint e = min(tid + i * NT, WEIGHTS - 1u);
        weightLoaded[i] = float(w[wBase + q * WEIGHTS + e]);
    }
}

void stash() {
    [[unroll]] for (uint i = 0u; i < HALO_PER; ++i) {
        uint e = tid + i * NT;
        if (e < HALO) Hs[e / 4u][e % 4u] = haloLoaded[i];
    }
    [[unroll]] for (uint i = 0u; i < WEIGHT_PER; ++i) {
        uint e = tid + i * NT;
        if (e < WEIGHTS) Ws[e / 4u][e % 4u] = weightLoaded[i];
    }
}

void main() {
    const uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    tid = ty * WN + tx;
    const uint row = tx / SEGS, seg = tx % SEGS;
    const uint mTiles = p.Mpad / BM;
    b = gl_WorkGroupID.z / mTiles;
    const uint mTile = gl_WorkGroupID.z % mTiles;
    m0 = mTile * BM;
    x0 = gl_WorkGroupID.x * TW;
    y0 = gl_WorkGroupID.y * TH;
    wBase = mTile * p.chunks * WEIGHTS;

    vec4 acc[8][2];
    [[unroll]] for (uint i = 0u; i < 8u; ++i) acc[i][0] = acc[i][1] = vec4(0.0);

    for (uint q = 0u; q < p.chunks; ++q) {
        fetch(q);
        stash();
        barrier();
        [[unroll]] for (uint c = 0u; c < CK; ++c) {
            for (uint ky = 0u; ky < KH; ++ky) {
                const uint hBase = (c * HR + row + ky) * RS4 + seg * 2u;
                float hb[SEGV * 4u];
                [[unroll]] for (uint v = 0u; v < SEGV; ++v) {
                    vec4 h = Hs[hBase + v];
                    hb[4u * v] = h.x;
                    hb[4u * v + 1u] = h.y;
                    hb[4u * v + 2u] = h.z;
                    hb[4u * v + 3u] = h.w;
                }
                const uint wRow = (c * KH + ky) * KW;
                [[unroll]] for (uint kx = 0u; kx < KW; ++kx) {
                    const uint wAt = (wRow + kx) * (BM / 4u);
                    vec4 a0 = Ws[wAt + ty], a1 = Ws[wAt + WM + ty];
                    vec4 b0 = vec4(hb[kx], hb[kx + 1u], hb[kx + 2u], hb[kx + 3u]);
                    vec4 b1 = vec4(hb[kx + 4u], hb[kx + 5u], hb[kx + 6u], hb[kx + 7u]);
                    [[unroll]] for (uint i = 0u; i < 4u; ++i) {
                        acc[i][0] = fma(vec4(a0[i]), b0, acc[i][0]);
                        acc[i][1] = fma(vec4(a0[i]), b1, acc[i][1]);
                        acc[4u + i][0] = fma(vec4(a1[i]), b0, acc[4u + i][0]);
                        acc[4u + i][1] = fma(vec4(a1[i]), b1, acc[4u + i][1]);
                    }
                }
            }
        }
        barrier();
    }

    // As conv2d_rt: no continue in these loops, so that glslc unrolls them and the
    // accumulators stay in registers.
    const uint oy = y0 + row;
    [[unroll]] for (uint h = 0u; h < 2u; ++h)
        [[unroll]] for (uint j = 0u; j < 4u; ++j) {
            const uint ox = x0 + seg * 8u + h * 4u + j;
            [[unroll]] for (uint i = 0u; i < 8u; ++i) {
                const uint m = m0 + (i / 4u) * (BM / 2u) + 4u * ty + i % 4u;
                if (m < p.M && ox < p.OW && oy < p.OH) {
                    const uint idx = convStoreIndex(b, m, oy, ox, p.M, p.OH, p.OW, SHUFFLE, p.outNhwc != 0u);
                    float v = acc[i][h][j] + float(bias[m]);
#ifdef RESIDUAL
                    v += float(res[idx]);
#endif
                    y[idx] = T(activateAt(v, SLOPE_OF(float(bias[p.M + m]))));
                }
            }
        }
}
