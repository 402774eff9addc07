#version 450
// Direct convolution, one output element per invocation: for depthwise and other grouped
// convolutions whose per-output reduction (C/groups * KH * KW) is too small for a GEMM tile.
// Element type T (T_F32 or T_F16, types.glsl); arithmetic in float.
// X4 (stride and dilation 1 along x, KW <= MAX_KW): four neighbouring outputs of a row per
// invocation, which read each input row's window once into registers (4 + KW - 1 loads for
// 4 KW taps, where four invocations load 4 KW); the same sums in the same order per output.
#extension GL_EXT_control_flow_attributes : enable
#include "common.glsl"
#include "types.glsl"
#include "conv2d_depthwise.glsl"  // push constants, specialization constants, constants: shaders/kernels/conv2d_depthwise.toml
#include "conv_store.glsl"

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };
layout(std430, binding = 2) readonly buffer Weight { T w[]; };
layout(std430, binding = 3) readonly buffer Bias { T bias[]; };
#ifdef RESIDUAL
layout(std430, binding = 4) readonly buffer Residual { T res[]; };
#endif


#ifdef X4
#define XB 4u
#define MAX_KW 7u

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    const uint OWB = (p.OW + XB - 1u) / XB;
    if (idx >= p.N * p.M * p.OH * OWB) return;
    uint t = idx / OWB;
    const uint ox0 = (idx % OWB) * XB, oy = t % p.OH;
    t /= p.OH;
    const uint oc = t % p.M, b = t / p.M;
    const uint Mg = p.M / p.groups, Cg = p.C / p.groups;
    const uint g = oc / Mg;
    float acc[XB];
    [[unroll]] for (uint j = 0u; j < XB; ++j) acc[j] = float(bias[oc]);
    const int ix0 = int(ox0) - int(p.padW);
    for (uint ci = 0; ci < Cg; ++ci) {
        const uint xBase = (b * p.C + g * Cg + ci) * p.H;
        const uint wBase = (oc * Cg + ci) * p.KH * p.KW;
        for (uint ky = 0; ky < p.KH; ++ky) {
            const int iy = int(oy * p.SH + ky * p.DH) - int(p.padH);
            if (iy < 0 || iy >= int(p.H)) continue;
            // (Taps outside the image read 0 and add 0 * w: the sums of the one-output path,
            // which skips them.)
            float r[XB + MAX_KW - 1u];
            // Every load unconditional (clamped column, zeros selected after it): a branch around
            // a load made the compiler wait for it where the branches join (gemm_cm.comp).
            [[unroll]] for (uint u = 0u; u < XB + MAX_KW - 1u; ++u) {
                const int ix = ix0 + int(u);
                const float xv = float(x[(xBase + uint(iy)) * p.W + uint(clamp(ix, 0, int(p.W) - 1))]);
                r[u] = u < XB - 1u + p.KW && ix >= 0 && ix < int(p.W) ? xv : 0.0;
            }
            // (No break or continue in these loops: glslc unrolls them only without one, and
            // r and acc stay in registers only unrolled.)
            [[unroll]] for (uint kx = 0u; kx < MAX_KW; ++kx) {
                const float wv = float(w[wBase + ky * p.KW + min(kx, p.KW - 1u)]);
                if (kx < p.KW) {
                    [[unroll]] for (uint j = 0u; j < XB; ++j) acc[j] = fma(r[j + kx], wv, acc[j]);
                }
            }
        }
    }
    [[unroll]] for (uint j = 0u; j < XB; ++j) {
        const uint ox = ox0 + j;
        if (ox < p.OW) {
            const uint at = convStoreIndex(b, oc, oy, ox, p.M, p.OH, p.OW, 0u, p.outNhwc != 0u);
            float v = acc[j];
#ifdef RESIDUAL
            v += float(res[at]);
#endif
            y[at] = T(activateAt(v, SLOPE_OF(float(bias[p.M + oc]))));
        }
    }
}
#else
void main() {
    // ops::grid1d spills past 65535 workgroups into y: fold it back (without this, outputs
    // beyond 65535 * 64 were never written).
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    uint total = p.N * p.M * p.OH * p.OW;
    if (idx >= total) return;
    uint ox = idx % p.OW, t = idx / p.OW;
    uint oy = t % p.OH;
    t /= p.OH;
    uint oc = t % p.M, b = t / p.M;
    uint Mg = p.M / p.groups, Cg = p.C / p.groups;
    uint g = oc / Mg;
    float acc = float(bias[oc]);
    for (uint ci = 0; ci < Cg; ++ci) {
        uint xBase = (b * p.C + g * Cg + ci) * p.H;
        uint wBase = (oc * Cg + ci) * p.KH * p.KW;
        for (uint ky = 0; ky < p.KH; ++ky) {
            int iy = int(oy * p.SH + ky * p.DH) - int(p.padH);
            if (iy < 0 || iy >= int(p.H)) continue;
            for (uint kx = 0; kx < p.KW; ++kx) {
                int ix = int(ox * p.SW + kx * p.DW) - int(p.padW);
                if (ix < 0 || ix >= int(p.W)) continue;
                acc = fma(float(x[(xBase + uint(iy)) * p.W + uint(ix)]), float(w[wBase + ky * p.KW + kx]), acc);
            }
        }
    }
    // (Invocations walk the NCHW order, which the loads above want, whichever layout stores.)
    const uint at = convStoreIndex(b, oc, oy, ox, p.M, p.OH, p.OW, 0u, p.outNhwc != 0u);
#ifdef RESIDUAL
    acc += float(res[at]);
#endif
    y[at] = T(activateAt(acc, SLOPE_OF(float(bias[p.M + oc]))));
}
#endif
