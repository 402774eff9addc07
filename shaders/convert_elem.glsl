// Element types of the copies that move bytes (copy_strided.comp, pad.comp): the same
// type in and out (ELEM, by size), or float32 <-> float16 converted on the way
// (CONVERT_F32_F16 / CONVERT_F16_F32: a Cast folded into the copy, passes/cast_folding.h).
// Floats travel as their bits; CONVERT(x) is the output element for input element x.
#ifndef VKINFER_CONVERT_ELEM_GLSL
#define VKINFER_CONVERT_ELEM_GLSL

#if defined(CONVERT_F32_F16)
#include "half_bits.glsl"
#define IN_ELEM uint
#define OUT_ELEM uint16_t
#define CONVERT(x) uint16_t(floatToHalfBits(uintBitsToFloat(x)))
#elif defined(CONVERT_F16_F32)
#include "half_bits.glsl"
#define IN_ELEM uint16_t
#define OUT_ELEM uint
#define CONVERT(x) floatBitsToUint(halfBitsToFloat(uint(x)))
#else
#define IN_ELEM ELEM
#define OUT_ELEM ELEM
#define CONVERT(x) (x)
#endif

#endif
