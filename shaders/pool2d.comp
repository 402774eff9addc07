#version 450
// MaxPool / AveragePool over NCHW, one output element per invocation.
#include "common.glsl"
#include "types.glsl"
#include "pool2d.glsl"  // push constants, specialization constants: shaders/kernels/pool2d.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };

void main() {
    // ops::grid1d spills past 65535 workgroups into y: fold it back (without this, outputs
    // beyond 65535 * 64 were never written).
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.NC * p.OH * p.OW) return;
    uint ox = idx % p.OW, t = idx / p.OW;
    uint oy = t % p.OH, nc = t / p.OH;
    float acc = 0.0;
    bool found = false;
    uint count = 0;
    int y0 = int(oy * p.SH) - int(p.padH);
    int x0 = int(ox * p.SW) - int(p.padW);
    for (uint ky = 0; ky < p.KH; ++ky) {
        int iy = y0 + int(ky * p.DH);
        for (uint kx = 0; kx < p.KW; ++kx) {
            int ix = x0 + int(kx * p.DW);
            bool inside = iy >= 0 && iy < int(p.H) && ix >= 0 && ix < int(p.W);
            if (inside) {
                float v = float(x[(nc * p.H + uint(iy)) * p.W + uint(ix)]);
                // Max: the first value, then greater ones; a NaN wins and stays (so does -inf
                // in a window of -inf, which a -FLT_MAX start turned into -FLT_MAX).
                if (IS_MAX != 0u) acc = !found ? v : maxNaN(acc, v);
                else acc += v;
                found = true;
                ++count;
            } else if (COUNT_INCLUDE_PAD != 0u && iy < int(p.H + p.padBottom) && ix < int(p.W + p.padRight)) {
                ++count;  // padded positions count, but not the ceil-mode overhang
            }
        }
    }
    if (IS_MAX != 0u && !found) acc = -3.402823466e38;  // (as the CPU reference)
    if (IS_MAX == 0u) acc = count > 0u ? acc / float(count) : 0.0;
    y[idx] = T(activate(acc));
}
