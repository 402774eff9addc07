#version 450
// Typed element-wise binary op with NumPy broadcasting: the integer, float16 and
// non-arithmetic (Mod, PRelu) twin of binary.comp, computing in ACC (types.glsl). Integer
// division truncates toward zero (0 for a zero divisor rather than undefined behaviour).
#include "common.glsl"
#include "types.glsl"
#include "eltwise.glsl"  // push constants (binary's block), specialization constants: shaders/kernels/eltwise.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer A { T a[]; };
layout(std430, binding = 2) readonly buffer B { T b[]; };

#if T_IS_FLOAT
// As powOnnx in binary.comp (GLSL pow is undefined for negative bases and zeros), and exact
// for small integral exponents by repeated squaring: an integer base raised to a float
// exponent (Pow with mixed types) truncates the result, so 3^2 must not come out as 8.99.
float powOnnx(float u, float v) {
    if (v == 0.0) return 1.0;
    if (v == floor(v) && abs(v) <= 64.0) {
        float r = 1.0, b = u;
        for (uint e = uint(abs(v)); e > 0u; e >>= 1) {
            if ((e & 1u) != 0u) r *= b;
            b *= b;
        }
        return v < 0.0 ? 1.0 / r : r;
    }
    if (u == 0.0) return v > 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u);
    if (u > 0.0) return pow(u, v);
    if (v != floor(v)) return uintBitsToFloat(0x7fc00000u);
    float m = pow(-u, v);
    return mod(v, 2.0) == 1.0 ? -m : m;
}

float apply(float u, float v) {
    switch (int(OP)) {
        case 0: return u + v;
        case 1: return u - v;
        case 2: return u * v;
        case 3: return u / v;
        case 4: return maxNaN(u, v);
        case 5: return minNaN(u, v);
        case 6: return powOnnx(u, v);
        case 7:  // Mod (floats require fmod=1, see Mod's infer): C fmod, sign of the dividend
        case 8: return v == 0.0 ? uintBitsToFloat(0x7fc00000u) : u - v * trunc(u / v);
        case 9: return u < 0.0 ? u * v : u;  // PRelu
    }
    return u;
}
#else
ACC ipow(ACC base, ACC e) {
#if !ACC_IS_UNSIGNED
    if (e < ACC(0)) return base == ACC(1) ? ACC(1) : (base == ACC(-1) ? ((e & ACC(1)) != ACC(0) ? ACC(-1) : ACC(1)) : ACC(0));
#endif
    ACC r = ACC(1);
    while (e > ACC(0)) {
        if ((e & ACC(1)) != ACC(0)) r *= base;
        base *= base;
        e >>= 1;
    }
    return r;
}

ACC apply(ACC u, ACC v) {
    switch (int(OP)) {
        case 0: return u + v;
        case 1: return u - v;
        case 2: return u * v;
        case 3: return v == ACC(0) ? ACC(0) : u / v;
        case 4: return max(u, v);
        case 5: return min(u, v);
        case 6: return ipow(u, v);
        case 7:    // Mod, fmod=0: the result takes the divisor's sign (Python %)
        case 8: {  // Mod, fmod=1: the dividend's sign (C %)
            if (v == ACC(0)) return ACC(0);
            ACC r = u - (u / v) * v;
#if !ACC_IS_UNSIGNED
            if (OP == 7u && r != ACC(0) && ((r < ACC(0)) != (v < ACC(0)))) r += v;
#endif
            return r;
        }
        case 9: return u < ACC(0) ? u * v : u;  // PRelu
    }
    return u;
}
#endif

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
    y[idx] = T(apply(ACC(a[ia]), ACC(b[ib])));
}
