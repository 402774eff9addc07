#version 450
// ScatterND in gather form: one invocation per output element starts from data and walks
// every index tuple, applying, in order, each update whose tuple selects this element's
// slice (so duplicates reduce deterministically and "none" keeps the last one, like the
// reference). No atomics but the status report of an index out of range (index_status.glsl),
// no separate copy; O(output * tuples), fine for the masks and
// small updates exported graphs scatter.
#include "common.glsl"
#include "types.glsl"
#include "scatter_nd.glsl"  // push constants, specialization constants: shaders/kernels/scatter_nd.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer Data { T x[]; };
layout(std430, binding = 2) readonly buffer Idx { int idx[]; };
layout(std430, binding = 3) readonly buffer Upd { T upd[]; };
#define STATUS_BINDING 4
#include "index_status.glsl"

void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (i >= p.count) return;
    uint prefix = i / p.slice, inner = i % p.slice;
    T v = x[i];
    for (uint j = 0; j < p.tuples; ++j) {
        uint at = 0;
        bool inRange = true;
        for (uint a = 0; a < p.k; ++a) {
            int c = RESOLVE_INDEX(j * p.k + a, p.dims[a]);  // -1 (reported) when out of range
            inRange = inRange && c >= 0;
            at = at * p.dims[a] + uint(max(c, 0));
        }
        if (!inRange || at != prefix) continue;
        T u = upd[j * p.slice + inner];
        if (REDUCTION == 1u) v = T(ACC(v) + ACC(u));
        else if (REDUCTION == 2u) v = T(ACC(v) * ACC(u));
        else if (REDUCTION == 3u) v = max(v, u);
        else if (REDUCTION == 4u) v = min(v, u);
        else v = u;
    }
    y[i] = v;
}
