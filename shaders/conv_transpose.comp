#version 450
// ConvTranspose (1-, 2- and 3-D; 1-D and 2-D run with unit leading dims) in gather form:
// one output element per invocation sums, over its group's input channels and the kernel
// taps, the inputs that scatter onto it: oy = iy * S - pad + ky * DIL, so the tap ky
// contributes when (oy + pad - ky * DIL) is a multiple of S inside the input.
// Weights are (C, M / group, KD, KH, KW); bias (M) is always bound (zeros when absent).
#include "common.glsl"
#include "types.glsl"
#include "conv_transpose.glsl"  // push constants: shaders/kernels/conv_transpose.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };
layout(std430, binding = 2) readonly buffer Weight { T w[]; };
layout(std430, binding = 3) readonly buffer Bias { T bias[]; };

void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (i >= p.count) return;
    uint ox = i % p.OW, t = i / p.OW;
    uint oy = t % p.OH;
    t /= p.OH;
    uint oz = t % p.OD;
    t /= p.OD;
    uint m = t % p.M, n = t / p.M;
    uint cg = p.C / p.groups, mg = p.M / p.groups;
    uint g = m / mg, ml = m % mg;
    uint kvol = p.KD * p.KH * p.KW;
    float acc = 0.0;
    for (uint kz = 0; kz < p.KD; ++kz) {
        int sz = int(oz + p.padD) - int(kz * p.DD);
        if (sz < 0 || sz % int(p.SD) != 0) continue;
        uint iz = uint(sz) / p.SD;
        if (iz >= p.D) continue;
        for (uint ky = 0; ky < p.KH; ++ky) {
            int sy = int(oy + p.padH) - int(ky * p.DH);
            if (sy < 0 || sy % int(p.SH) != 0) continue;
            uint iy = uint(sy) / p.SH;
            if (iy >= p.H) continue;
            for (uint kx = 0; kx < p.KW; ++kx) {
                int sx = int(ox + p.padW) - int(kx * p.DW);
                if (sx < 0 || sx % int(p.SW) != 0) continue;
                uint ix = uint(sx) / p.SW;
                if (ix >= p.W) continue;
                uint tap = (kz * p.KH + ky) * p.KW + kx;
                uint xi = (((n * p.C + g * cg) * p.D + iz) * p.H + iy) * p.W + ix;
                uint wi = ((g * cg) * mg + ml) * kvol + tap;
                for (uint c = 0; c < cg; ++c) {
                    acc += float(x[xi]) * float(w[wi]);
                    xi += p.D * p.H * p.W;
                    wi += mg * kvol;
                }
            }
        }
    }
    y[i] = T(activate(acc + float(bias[m])));
}
