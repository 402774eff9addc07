#version 450
// ScatterElements (and the deprecated Scatter) in gather form: one invocation per output
// element c starts from data[c] and walks the indices along the axis at c's other
// coordinates, applying every update whose index hits c[axis] in order (so duplicates
// reduce deterministically and "none" keeps the last one, like the reference). No atomics
// but the status report of an index out of range (index_status.glsl), no separate copy; O(output * indices along the axis), fine for the sizes Scatter sees.
#include "common.glsl"
#include "types.glsl"
#include "scatter_elements.glsl"  // push constants, specialization constants: shaders/kernels/scatter_elements.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer Data { T x[]; };
layout(std430, binding = 2) readonly buffer Idx { int idx[]; };
layout(std430, binding = 3) readonly buffer Upd { T upd[]; };
#define STATUS_BINDING 4
#include "index_status.glsl"

void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (i >= p.count) return;
    // c's coordinates, and the offset into indices/updates of (c with c[axis] = 0).
    uint coord[6];
    uint rem = i;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
        coord[d] = rem % p.dims[d];
        rem /= p.dims[d];
    }
    T v = x[i];
    bool inside = true;
    uint base = 0, axisStride = 1, stride = 1;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
        if (uint(d) == p.axis) axisStride = stride;
        else if (coord[d] >= p.idxDims[d]) inside = false;
        else base += coord[d] * stride;
        stride *= p.idxDims[d];
    }
    if (inside) {
        int len = int(p.dims[p.axis]);
        for (uint k = 0; k < p.idxDims[p.axis]; ++k) {
            uint at = base + k * axisStride;
            int j = RESOLVE_INDEX(at, uint(len));  // -1 (reported) when out of range: no element
            if (j != int(coord[p.axis])) continue;
            T u = upd[at];
            if (REDUCTION == 1u) v = T(ACC(v) + ACC(u));
            else if (REDUCTION == 2u) v = T(ACC(v) * ACC(u));
            else if (REDUCTION == 3u) v = max(v, u);
            else if (REDUCTION == 4u) v = min(v, u);
            else v = u;
        }
    }
    y[i] = v;
}
