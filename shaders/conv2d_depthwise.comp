#version 450
// Direct convolution, one output element per invocation: for depthwise and other grouped
// convolutions whose per-output reduction (C/groups * KH * KW) is too small for a GEMM tile.
// Element type T (T_F32 or T_F16, types.glsl); arithmetic in float.
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
