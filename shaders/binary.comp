#version 450
// Element-wise binary op with NumPy broadcasting: each operand has a stride per output
// dimension (0 where it broadcasts). Up to 6 dimensions.
#include "common.glsl"
#include "types.glsl"
#include "binary.glsl"  // push constants, specialization constants: shaders/kernels/binary.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer A { T a[]; };
layout(std430, binding = 2) readonly buffer B { T b[]; };

// ONNX Pow follows C/NumPy pow(). GLSL pow(u, v) is undefined for u < 0 and for u = 0 with
// v <= 0 (lavapipe returns NaN for (-2)^3), so signs, zeros and v = 0 are handled here.
float powOnnx(float u, float v) {
    if (v == 0.0) return 1.0;
    if (u == 0.0) return v > 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u);  // +inf
    if (u > 0.0) return pow(u, v);
    if (v != floor(v)) return uintBitsToFloat(0x7fc00000u);  // NaN: negative base, fractional exponent
    float m = pow(-u, v);
    return mod(v, 2.0) == 1.0 ? -m : m;
}

float apply(float u, float v) {
    if (OP == 0u) return u + v;
    if (OP == 1u) return u - v;
    if (OP == 2u) return u * v;
    if (OP == 3u) return u / v;
    if (OP == 4u) return maxNaN(u, v);
    if (OP == 5u) return minNaN(u, v);
    if (OP == 6u) return powOnnx(u, v);
    return u;
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
    y[idx] = T(activate(apply(float(a[ia]), float(b[ib]))));
}
