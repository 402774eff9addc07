#version 450
// Convolution for layers too small to fill a GPU with output tiles (ops/conv/small_grid.h):
// ShuffleNet's and MobileNet's 1x1 convs on 14x14 and 7x7 maps, squeeze-excitation convs on a
// 1x1 map. A tiled kernel gives such a layer a few workgroups, each walking the whole
// reduction one shared-memory slice after another: a chain of dependent global loads that
// no other work hides. Here a workgroup of 256 invocations computes PX output pixels x RM
// output channels and splits the reduction KS = 256 / PX ways: invocation (slice s, lane l)
// sums the reduction indices s, s + KS, s + 2 KS, ... of pixel l, four per round with their
// loads issued together, and the KS partial sums are added in shared memory by a fixed tree
// (deterministic). Weights are read as given ([M, Cg, KH, KW]); (ci, ky, kx) is computed from
// k rather than looked up, so no load waits on another.
// Grid: x = pixel tiles of PX, z = group * channel blocks of RM + block.
// Defines: RESIDUAL, the element type T_F32 or T_F16 (types.glsl; arithmetic in float).
#extension GL_EXT_control_flow_attributes : enable
#include "common.glsl"
#include "types.glsl"
#include "conv2d_small.glsl"  // push constants, specialization constants, constants: shaders/kernels/conv2d_small.toml

#define UNROLL 4

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };
layout(std430, binding = 2) readonly buffer Weight { T w[]; };
layout(std430, binding = 3) readonly buffer Bias { T bias[]; };
#ifdef RESIDUAL
layout(std430, binding = 4) readonly buffer Residual { T res[]; };
#endif


shared float partial[RM][NT];

// x at reduction index k of the window whose origin is (iy0, ix0) in image plane xBase; 0
// outside the image (padding).
float gather(uint k, int xBase, int iy0, int ix0) {
    const uint taps = p.KH * p.KW;
    const uint ci = k / taps, r = k - ci * taps;
    const uint ky = r / p.KW, kx = r - ky * p.KW;
    const int iy = iy0 + int(ky * p.DH), ix = ix0 + int(kx * p.DW);
    if (uint(iy) >= p.H || uint(ix) >= p.W) return 0.0;
    return float(x[xBase + int(ci * p.H * p.W) + iy * int(p.W) + ix]);
}

void main() {
    const uint tid = gl_LocalInvocationID.x;
    const uint PX = 1u << p.pxShift;
    const uint KS = NT >> p.pxShift;
    const uint lane = tid & (PX - 1u), slice = tid >> p.pxShift;
    const uint Mg = p.M / p.groups, Cg = p.C / p.groups;
    const uint K = Cg * p.KH * p.KW;
    const uint NP = p.N * p.OH * p.OW;
    const uint mBlocks = (Mg + RM - 1u) / RM;
    const uint g = gl_WorkGroupID.z / mBlocks;
    const uint m0 = (gl_WorkGroupID.z % mBlocks) * RM;
    const uint n = gl_WorkGroupID.x * PX + lane;

    float acc[RM];
    [[unroll]] for (uint r = 0; r < RM; ++r) acc[r] = 0.0;
    if (n < NP) {
        const uint ox = n % p.OW, t = n / p.OW;
        const uint oy = t % p.OH, b = t / p.OH;
        const int iy0 = int(oy * p.SH) - int(p.padH), ix0 = int(ox * p.SW) - int(p.padW);
        const int xBase = int((b * p.C + g * Cg) * p.H * p.W);
        // Rows past Mg (the last block of a group) read a valid row and are never stored.
        uint wRow[RM];
        [[unroll]] for (uint r = 0; r < RM; ++r) wRow[r] = (g * Mg + min(m0 + r, Mg - 1u)) * K;
        for (uint k0 = slice; k0 < K; k0 += UNROLL * KS) {
            float xv[UNROLL], wv[UNROLL][RM];
            [[unroll]] for (uint u = 0; u < UNROLL; ++u) {
                const uint k = k0 + u * KS;
                const bool inside = k < K;
                xv[u] = inside ? gather(k, xBase, iy0, ix0) : 0.0;
                [[unroll]] for (uint r = 0; r < RM; ++r) wv[u][r] = inside ? float(w[wRow[r] + k]) : 0.0;
            }
            [[unroll]] for (uint u = 0; u < UNROLL; ++u)
                [[unroll]] for (uint r = 0; r < RM; ++r) acc[r] = fma(wv[u][r], xv[u], acc[r]);
        }
    }
    [[unroll]] for (uint r = 0; r < RM; ++r) partial[r][tid] = acc[r];
    barrier();
    for (uint s = KS / 2u; s > 0u; s >>= 1) {
        if (slice < s)
            [[unroll]] for (uint r = 0; r < RM; ++r) partial[r][tid] += partial[r][tid + s * PX];
        barrier();
    }
    if (tid >= PX * RM) return;
    const uint r = tid / PX, l = tid % PX;
    const uint m = m0 + r, nOut = gl_WorkGroupID.x * PX + l;
    if (m >= Mg || nOut >= NP) return;
    const uint oc = g * Mg + m;
    const uint ox = nOut % p.OW, t = nOut / p.OW;
    const uint oy = t % p.OH, b = t / p.OH;
    const uint idx = p.outNhwc != 0u ? nOut * p.M + oc : ((b * p.M + oc) * p.OH + oy) * p.OW + ox;
    float v = partial[r][l] + float(bias[oc]);
#ifdef RESIDUAL
    v += float(res[idx]);
#endif
    y[idx] = T(activateAt(v, SLOPE_OF(float(bias[p.M + oc]))));
}
