#version 450
// A Concat in one dispatch: the output (contiguous, `dims`, up to 4 dims) is cut along `axis`
// into up to four parts, and part j, which ends at axis coordinate partEnd[j], reads binding
// j + 1 through its own offset and strides: a window of its source (a torch.roll's two
// Slices, Swin's patch-merging quarters) instead of a copy made first (ops/concat.cpp).
#include "common.glsl"
#include "types.glsl"
#include "concat_parts.glsl"  // push constants: shaders/kernels/concat_parts.toml

layout(std430, binding = 0) writeonly buffer Out { ELEM y[]; };
layout(std430, binding = 1) readonly buffer In0 { ELEM x0[]; };
layout(std430, binding = 2) readonly buffer In1 { ELEM x1[]; };
layout(std430, binding = 3) readonly buffer In2 { ELEM x2[]; };
layout(std430, binding = 4) readonly buffer In3 { ELEM x3[]; };

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
    uint coord[4];
    uint rem = idx;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
        coord[d] = rem % p.dims[d];
        rem /= p.dims[d];
    }
    // The part that holds this axis coordinate, and the coordinate within it.
    uint part = 0u, begin = 0u;
    while (part + 1u < p.parts && coord[p.axis] >= p.partEnd[part]) begin = p.partEnd[part++];
    coord[p.axis] -= begin;
    uint src = p.inOffset[part];
    for (uint d = 0u; d < p.rank; ++d) src += coord[d] * p.inStride[part * 4u + d];
    ELEM v;
    if (part == 0u) v = x0[src];
    else if (part == 1u) v = x1[src];
    else if (part == 2u) v = x2[src];
    else v = x3[src];
    y[idx] = v;
}
