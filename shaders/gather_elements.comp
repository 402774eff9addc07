#version 450
// GatherElements: y[c] = x[c with c[axis] replaced by idx[c]] over the indices' index
// space (rank <= 6, not collapsed: the axis must stay a dimension of its own). 8-byte
// elements travel as `words` = 2 words each. Indices as in gather.comp (int32, or int64
// as two words; out of range is reported, index_status.glsl).
#include "common.glsl"
#include "types.glsl"
#include "gather_elements.glsl"  // push constants, specialization constants: shaders/kernels/gather_elements.toml

layout(std430, binding = 0) writeonly buffer Out { ELEM y[]; };
layout(std430, binding = 1) readonly buffer In { ELEM x[]; };
layout(std430, binding = 2) readonly buffer Idx { int idx[]; };
#define STATUS_BINDING 3
#include "index_status.glsl"

void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (i >= p.count * p.words) return;
    uint e = i / p.words, w = i % p.words;
    int k = max(RESOLVE_INDEX(e, p.axisLen), 0);  // reported when out of range: read 0
    uint rem = e, src = uint(k) * p.xStride[p.axis];
    for (int d = int(p.rank) - 1; d >= 0; --d) {
        uint c = rem % p.dims[d];
        rem /= p.dims[d];
        if (uint(d) != p.axis) src += c * p.xStride[d];
    }
    y[i] = x[src * p.words + w];
}
