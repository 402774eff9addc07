#version 450
// GatherND: one invocation per output element. Output element i is element `inner` of the
// slice that index tuple j = i / slice selects: data[batch, t0, ..., t(k-1), inner...], the
// batch being j / tuplesPerBatch (batch_dims). An index out of range is reported
// (index_status.glsl) and reads as zero, never outside the buffer.
#include "common.glsl"
#include "types.glsl"
#include "gather_nd.glsl"  // push constants, specialization constants: shaders/kernels/gather_nd.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer Data { T x[]; };
layout(std430, binding = 2) readonly buffer Idx { int idx[]; };
#define STATUS_BINDING 3
#include "index_status.glsl"

void main() {
    uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (i >= p.count) return;
    uint j = i / p.slice, inner = i % p.slice;
    uint at = 0u;
    bool inRange = true;
    for (uint a = 0u; a < p.k; ++a) {
        int c = RESOLVE_INDEX(j * p.k + a, p.dims[a]);  // -1 (reported) when out of range
        inRange = inRange && c >= 0;
        at = at * p.dims[a] + uint(max(c, 0));
    }
    y[i] = inRange ? x[(j / p.tuplesPerBatch) * p.batchStride + at * p.slice + inner] : T(0);
}
