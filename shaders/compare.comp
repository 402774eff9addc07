#version 450
// Comparisons and logical ops with NumPy broadcasting, writing bool (one byte, 0 or 1):
// Equal, Less, Greater, LessOrEqual, GreaterOrEqual on any type; And, Or, Xor on bool (u8).
#include "common.glsl"
#include "types.glsl"
#include "compare.glsl"  // push constants (binary's block), specialization constants: shaders/kernels/compare.toml

layout(std430, binding = 0) writeonly buffer Out { uint8_t y[]; };
layout(std430, binding = 1) readonly buffer A { T a[]; };
layout(std430, binding = 2) readonly buffer B { T b[]; };

bool apply(ACC u, ACC v) {
    switch (int(OP)) {
        case 0: return u == v;
        case 1: return u < v;
        case 2: return u > v;
        case 3: return u <= v;
        case 4: return u >= v;
        case 5: return u != ACC(0) && v != ACC(0);
        case 6: return u != ACC(0) || v != ACC(0);
        case 7: return (u != ACC(0)) != (v != ACC(0));
    }
    return false;
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
    y[idx] = uint8_t(apply(ACC(a[ia]), ACC(b[ib])) ? 1 : 0);
}
