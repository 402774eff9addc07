// Float16 <-> float32 as bit patterns with integer arithmetic, rounding to nearest even
// everywhere (GLSL leaves float16 rounding to the implementation): the Cast kernel and the
// copies that convert as they move (convert_elem.glsl) round alike, so folding a Cast into
// a copy changes no bit.
#ifndef VKINFER_HALF_BITS_GLSL
#define VKINFER_HALF_BITS_GLSL

// IEEE half bits -> float (exact, subnormals included).
float halfBitsToFloat(uint h) {
    uint sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0u) {
        if (m == 0u) return uintBitsToFloat(sign);
        int msb = findMSB(m);  // normalize: value = m * 2^-24
        return uintBitsToFloat(sign | (uint(msb - 24 + 127) << 23) | ((m << uint(23 - msb)) & 0x7fffffu));
    }
    if (e == 31u) return uintBitsToFloat(sign | 0x7f800000u | (m << 13));
    return uintBitsToFloat(sign | ((e + 112u) << 23) | (m << 13));
}

// float -> IEEE half bits, round to nearest even (as core/half.h floatToHalf).
uint floatToHalfBits(float f) {
    uint x = floatBitsToUint(f);
    uint sign = (x >> 16) & 0x8000u, a = x & 0x7fffffffu;
    if (a >= 0x7f800000u) return sign | 0x7c00u | (a > 0x7f800000u ? 0x200u : 0u);
    if (a >= 0x477ff000u) return sign | 0x7c00u;  // rounds past the largest half: inf
    if (a < 0x38800000u) {                        // half subnormal or zero
        if (a < 0x33000000u) return sign;
        uint s = 126u - (a >> 23);
        uint m = (a & 0x7fffffu) | 0x800000u;
        uint q = m >> s, rem = m & ((1u << s) - 1u), half_ = 1u << (s - 1u);
        if (rem > half_ || (rem == half_ && (q & 1u) != 0u)) ++q;
        return sign | q;
    }
    uint q = (((a >> 23) - 112u) << 10) | ((a & 0x7fffffu) >> 13), rem = a & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (q & 1u) != 0u)) ++q;
    return sign | q;
}

#endif
