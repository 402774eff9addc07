#version 450
// Second half of a split-K convolution (conv2d.comp with SPLITK): per output element, the
// splits' partial sums added in split order (so results do not depend on scheduling), then
// bias, the residual and the fused activation, stored as T. p.nhwc: all of them channels-last.
#include "common.glsl"
#include "types.glsl"

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer Partial { float part[]; };
layout(std430, binding = 2) readonly buffer Bias { T bias[]; };
#ifdef RESIDUAL
layout(std430, binding = 3) readonly buffer Residual { T res[]; };
#endif

layout(push_constant) uniform Params {
    uint count;   // output elements N * M * OH * OW
    uint M;       // output channels
    uint pixels;  // OH * OW
    uint splits;
    uint nhwc;    // 1: output, residual and partial sums channels-last (conv2d_cm.comp)
} p;

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
    float v = 0.0;
    uint oc;
    if (p.nhwc != 0u) {
        oc = idx % p.M;
        for (uint s = 0; s < p.splits; ++s) v += part[s * p.count + idx];
    } else {
        uint pix = idx % p.pixels, t = idx / p.pixels;
        oc = t % p.M;
        uint NP = (p.count / p.M);
        uint n = (t / p.M) * p.pixels + pix;
        for (uint s = 0; s < p.splits; ++s) v += part[(s * p.M + oc) * NP + n];
    }
    v += float(bias[oc]);
#ifdef RESIDUAL
    v += float(res[idx]);
#endif
    y[idx] = T(activate(v));
}
