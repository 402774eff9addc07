#version 450
// ConvTranspose (1-, 2- and 3-D; 1-D and 2-D run with unit leading dims) in gather form: an
// output element sums, over its group's input channels and the kernel taps, the inputs that
// scatter onto it: oy = iy * S - pad + ky * DIL, so the tap ky contributes when
// (oy + pad - ky * DIL) is a multiple of S inside the input.
// Invocations are ordered by stride phase (oy mod SH, ox mod SW) before position, so that
// the threads of a subgroup share their taps: no divergence, the same weights for all, and
// consecutive inputs read by consecutive threads; with unit dilation the taps of a phase are
// every S-th one and are stepped through directly. Each invocation computes MB output
// channels of one group at once, reading each input once for all of them.
// Weights are (C, M / group, KD, KH, KW); bias (M) is always bound (zeros when absent).
#include "common.glsl"
#include "types.glsl"
#include "conv_transpose.glsl"  // push constants, specialization constants: shaders/kernels/conv_transpose.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };
layout(std430, binding = 2) readonly buffer Weight { T w[]; };
layout(std430, binding = 3) readonly buffer Bias { T bias[]; };

const uint MAX_MB = 4;

// The first tap of output coordinate o that can contribute, and the step between such taps.
void tapRange(uint o, uint pad, uint s, uint dil, out uint first, out uint step) {
    first = dil == 1u ? (o + pad) % s : 0u;
    step = dil == 1u ? s : 1u;
}

void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (i >= p.count) return;
    // i = ((((n * mBlocks + mb) * OD + oz) * SH + phaseY) * SW + phaseX) * QH * QW + qy * QW + qx
    uint qx = i % p.QW, t = i / p.QW;
    uint qy = t % p.QH;
    t /= p.QH;
    uint phaseX = t % p.SW;
    t /= p.SW;
    uint phaseY = t % p.SH;
    t /= p.SH;
    uint oz = t % p.OD;
    t /= p.OD;
    uint mb = t % p.mBlocks, n = t / p.mBlocks;
    uint ox = qx * p.SW + phaseX, oy = qy * p.SH + phaseY;
    if (ox >= p.OW || oy >= p.OH) return;
    uint cg = p.C / p.groups, mg = p.M / p.groups;
    uint blocksPerGroup = (mg + MB - 1u) / MB;
    uint g = mb / blocksPerGroup, ml0 = (mb % blocksPerGroup) * MB;
    uint kvol = p.KD * p.KH * p.KW;
    uint inPlane = p.D * p.H * p.W;
    float acc[MAX_MB];
    for (uint j = 0; j < MB; ++j) acc[j] = 0.0;
    uint kz0, kzStep, ky0, kyStep, kx0, kxStep;
    tapRange(oz, p.padD, p.SD, p.DD, kz0, kzStep);
    tapRange(oy, p.padH, p.SH, p.DH, ky0, kyStep);
    tapRange(ox, p.padW, p.SW, p.DW, kx0, kxStep);
    for (uint kz = kz0; kz < p.KD; kz += kzStep) {
        int sz = int(oz + p.padD) - int(kz * p.DD);
        if (sz < 0 || sz % int(p.SD) != 0) continue;
        uint iz = uint(sz) / p.SD;
        if (iz >= p.D) continue;
        for (uint ky = ky0; ky < p.KH; ky += kyStep) {
            int sy = int(oy + p.padH) - int(ky * p.DH);
            if (sy < 0 || sy % int(p.SH) != 0) continue;
            uint iy = uint(sy) / p.SH;
            if (iy >= p.H) continue;
            for (uint kx = kx0; kx < p.KW; kx += kxStep) {
                int sx = int(ox + p.padW) - int(kx * p.DW);
                if (sx < 0 || sx % int(p.SW) != 0) continue;
                uint ix = uint(sx) / p.SW;
                if (ix >= p.W) continue;
                uint tap = (kz * p.KH + ky) * p.KW + kx;
                uint xi = ((n * p.C + g * cg) * p.D + iz) * p.H * p.W + iy * p.W + ix;
                uint wi = ((g * cg) * mg + ml0) * kvol + tap;
                for (uint c = 0; c < cg; ++c) {
                    float xv = float(x[xi]);
                    for (uint j = 0; j < MB; ++j)
                        if (ml0 + j < mg) acc[j] += xv * float(w[wi + j * kvol]);
                    xi += inPlane;
                    wi += mg * kvol;
                }
            }
        }
    }
    for (uint j = 0; j < MB; ++j) {
        if (ml0 + j >= mg) break;
        uint m = g * mg + ml0 + j;
        y[((n * p.M + m) * p.OD + oz) * p.OH * p.OW + oy * p.OW + ox] = T(activate(acc[j] + float(bias[m])));
    }
}
