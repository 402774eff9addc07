#version 450
// Cast between element types (ONNX rules: float -> integer truncates toward zero, anything
// -> bool is x != 0). One variant per (SRC_*, DST_*) pair, see shaders/kernels/cast.toml. Float16
// and float64 are handled as bit patterns with integer arithmetic, so the conversions round
// to nearest even everywhere (GLSL leaves float16 rounding to the implementation) and no
// shaderFloat64 is needed.
#include "common.glsl"
#include "types.glsl"
#include "cast.glsl"  // push constants: shaders/kernels/cast.toml
#include "half_bits.glsl"

#if defined(SRC_F32)
#define S float
#define S_FLOATLIKE 1
#elif defined(SRC_F16)
#define S uint16_t
#define S_FLOATLIKE 1
#elif defined(SRC_F64)
#define S uvec2
#define S_FLOATLIKE 1
#elif defined(SRC_I8)
#define S int8_t
#define SI int
#elif defined(SRC_U8)
#define S uint8_t
#define SI int
#elif defined(SRC_I16)
#define S int16_t
#define SI int
#elif defined(SRC_U16)
#define S uint16_t
#define SI int
#elif defined(SRC_I32)
#define S int
#define SI int
#elif defined(SRC_U32)
#define S uint
#define SI uint
#elif defined(SRC_I64)
#define S int64_t
#define SI int64_t
#elif defined(SRC_U64)
#define S uint64_t
#define SI uint64_t
#endif

#if defined(DST_F32)
#define D float
#elif defined(DST_F16)
#define D uint16_t
#elif defined(DST_F64)
#define D uvec2
#elif defined(DST_I8)
#define D int8_t
#elif defined(DST_U8) || defined(DST_B)
#define D uint8_t
#elif defined(DST_I16)
#define D int16_t
#elif defined(DST_U16)
#define D uint16_t
#elif defined(DST_I32)
#define D int
#elif defined(DST_U32)
#define D uint
#elif defined(DST_I64)
#define D int64_t
#elif defined(DST_U64)
#define D uint64_t
#endif

layout(std430, binding = 0) writeonly buffer Out { D y[]; };
layout(std430, binding = 1) readonly buffer In { S x[]; };

// float -> IEEE double bits (low word, high word): exact.
uvec2 floatToDoubleBits(float f) {
    uint x = floatBitsToUint(f);
    uint sign = x & 0x80000000u, e = (x >> 23) & 0xffu, m = x & 0x7fffffu;
    if (e == 255u) return uvec2(m << 29, sign | 0x7ff00000u | (m >> 3));
    if (e == 0u) {
        if (m == 0u) return uvec2(0u, sign);
        int msb = findMSB(m);  // value = m * 2^-149
        m = (m << uint(23 - msb)) & 0x7fffffu;
        return uvec2(m << 29, sign | (uint(msb - 149 + 1023) << 20) | (m >> 3));
    }
    return uvec2(m << 29, sign | ((e + 896u) << 20) | (m >> 3));
}

// IEEE double bits -> float, round to nearest even.
float doubleBitsToFloat(uvec2 d) {
    uint sign = d.y & 0x80000000u, e = (d.y >> 20) & 0x7ffu;
    uint m = ((d.y & 0xfffffu) << 3) | (d.x >> 29);  // the top 23 mantissa bits
    uint rest = d.x & 0x1fffffffu;                     // the 29 bits below them
    if (e == 0x7ffu) return uintBitsToFloat(sign | 0x7f800000u | ((m | rest) != 0u ? 0x400000u | m : 0u));
    int ue = int(e) - 1023;
    if (ue > 127) return uintBitsToFloat(sign | 0x7f800000u);
    if (ue >= -126) {
        uint mag = (uint(ue + 127) << 23) | m;
        if (rest > 0x10000000u || (rest == 0x10000000u && (mag & 1u) != 0u)) ++mag;  // a carry may reach inf: right
        return uintBitsToFloat(sign | mag);
    }
    if (e == 0u || ue < -150) return uintBitsToFloat(sign);
    uint s = uint(-126 - ue);  // 1..24: float subnormal
    uint full = m | 0x800000u, q = full >> s, rem = full & ((1u << s) - 1u), half_ = 1u << (s - 1u);
    if (rem > half_ || (rem == half_ && (rest != 0u || (q & 1u) != 0u))) ++q;
    return uintBitsToFloat(sign | q);
}

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
#if defined(S_FLOATLIKE)
#if defined(SRC_F32)
    float v = x[idx];
#elif defined(SRC_F16)
    float v = halfBitsToFloat(uint(x[idx]));
#else
    float v = doubleBitsToFloat(x[idx]);
#endif
#if !defined(DST_F32) && !defined(DST_F16) && !defined(DST_F64) && !defined(DST_B)
    if (isnan(v) || isinf(v)) v = 0.0;  // undefined in ONNX; 0 as the CPU reference does
#endif
#if defined(DST_F32)
    y[idx] = v;
#elif defined(DST_F16)
    y[idx] = uint16_t(floatToHalfBits(v));
#elif defined(DST_F64)
    y[idx] = floatToDoubleBits(v);
#elif defined(DST_B)
    y[idx] = uint8_t(v != 0.0 ? 1 : 0);
#elif defined(DST_U32)
    y[idx] = v < 0.0 ? uint(int(v)) : uint(v);  // negative: wraps as the C cast does in practice
#elif defined(DST_U64)
    y[idx] = v < 0.0 ? uint64_t(int64_t(v)) : uint64_t(v);
#elif defined(DST_I64)
    y[idx] = int64_t(v);
#else
    y[idx] = D(int(v));  // truncates toward zero; narrow targets keep the low bits
#endif
#else  // integer source
    SI v = SI(x[idx]);
#if defined(DST_F32)
    y[idx] = float(v);
#elif defined(DST_F16)
    y[idx] = uint16_t(floatToHalfBits(float(v)));
#elif defined(DST_B)
    y[idx] = uint8_t(v != SI(0) ? 1 : 0);
#else
    y[idx] = D(v);
#endif
#endif
}
