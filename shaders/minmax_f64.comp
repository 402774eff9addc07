#version 450
// Max / Min of float64 tensors with broadcasting, exactly, without shaderFloat64: doubles are
// (low, high) word pairs ordered through a key that makes IEEE order unsigned integer order
// (flip every bit of a negative value, only the sign bit of a positive one). NaN propagates.
#include "common.glsl"
#include "minmax_f64.glsl"  // push constants (binary's block), specialization constants: shaders/kernels/minmax_f64.toml

layout(std430, binding = 0) writeonly buffer Out { uvec2 y[]; };
layout(std430, binding = 1) readonly buffer A { uvec2 a[]; };
layout(std430, binding = 2) readonly buffer B { uvec2 b[]; };

uvec2 orderKey(uvec2 v) { return (v.y & 0x80000000u) != 0u ? ~v : uvec2(v.x, v.y ^ 0x80000000u); }

bool isNaN64(uvec2 v) { return (v.y & 0x7ff00000u) == 0x7ff00000u && ((v.y & 0xfffffu) | v.x) != 0u; }

bool less(uvec2 u, uvec2 v) {
    uvec2 ku = orderKey(u), kv = orderKey(v);
    return ku.y < kv.y || (ku.y == kv.y && ku.x < kv.x);
}

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
    uint rem = idx, ia = 0, ib = 0;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
        uint c = rem % p.dims[d];
        rem /= p.dims[d];
        ia += c * p.stride[0][d];
        ib += c * p.stride[1][d];
    }
    uvec2 u = a[ia], v = b[ib];
    if (isNaN64(u) || isNaN64(v)) {
        y[idx] = isNaN64(u) ? u : v;
        return;
    }
    bool pickV = IS_MIN != 0u ? less(v, u) : less(u, v);
    y[idx] = pickV ? v : u;
}
