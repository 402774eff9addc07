// IEEE 754 half <-> float conversion on the CPU (for .npy/.pb files and fp16 weights).
#pragma once

#include <cstdint>
#include <cstring>

namespace vkinfer {

inline float halfToFloat(uint16_t h) {
    uint32_t sign = (h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1f;
    uint32_t mant = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {  // subnormal: normalize
            exp = 127 - 15 + 1;
            while (!(mant & 0x400u)) {
                mant <<= 1;
                --exp;
            }
            mant &= 0x3ffu;
            bits = sign | (exp << 23) | (mant << 13);
        }
    } else if (exp == 31) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else {
        bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// Round to nearest even.
inline uint16_t floatToHalf(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000u;
    uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0));
    if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to inf
    if (absx < 0x38800000u) {  // subnormal or zero in half
        if (absx < 0x33000000u) return static_cast<uint16_t>(sign);
        uint32_t e = absx >> 23;
        uint32_t m = (absx & 0x7fffffu) | 0x800000u;
        // value = m * 2^(e-150); the half subnormal unit is 2^-24.
        uint32_t s = 150 - 24 - e;  // right shift to units of 2^-24
        uint32_t q = m >> s;
        uint32_t rem = m & ((1u << s) - 1);
        uint32_t halfway = 1u << (s - 1);
        if (rem > halfway || (rem == halfway && (q & 1))) ++q;
        return static_cast<uint16_t>(sign | q);
    }
    uint32_t e = ((absx >> 23) - 127 + 15);
    uint32_t m = absx & 0x7fffffu;
    uint32_t q = (e << 10) | (m >> 13);
    uint32_t rem = m & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1))) ++q;
    return static_cast<uint16_t>(sign | q);
}

}  // namespace vkinfer
