#version 450
// Element-wise math functions (Exp, Erf, Elu, trigonometry, ...): the op and its attributes
// are specialization constants, so one pipeline per (op, attributes) runs only its branch.
// Integer variants serve Neg, Abs and Sign.
#include "common.glsl"
#include "types.glsl"
#include "unary_math.glsl"  // push constants, specialization constants: shaders/kernels/unary_math.toml

layout(std430, binding = 0) writeonly buffer Out { T y[]; };
layout(std430, binding = 1) readonly buffer In { T x[]; };

#if T_IS_FLOAT
// asin, acos, atan to ~2e-7 (Cephes' single-precision fits): Vulkan lets GLSL's be far
// coarser (lavapipe's asin is off by 4e-4).
float asinKernel(float a) {  // |a| <= 0.5
    float z = a * a;
    return ((((4.2163199048e-2 * z + 2.4181311049e-2) * z + 4.5470025998e-2) * z + 7.4953002686e-2) * z + 1.6666752422e-1) *
               z * a + a;
}

float asinAccurate(float v) {
    float a = abs(v);
    float r = a > 0.5 ? 1.5707963267948966 - 2.0 * asinKernel(sqrt(0.5 * (1.0 - a))) : asinKernel(a);
    return v < 0.0 ? -r : r;
}

float acosAccurate(float v) {  // no cancellation near +-1: acos(x) = 2 asin(sqrt((1 - x) / 2))
    if (v > 0.5) return 2.0 * asinKernel(sqrt(0.5 * (1.0 - v)));
    if (v < -0.5) return 3.14159265358979 - 2.0 * asinKernel(sqrt(0.5 * (1.0 + v)));
    return 1.5707963267948966 - asinKernel(v);
}

float atanAccurate(float v) {
    float a = abs(v), r = 0.0;
    if (a > 2.414213562373095) {  // tan(3 pi / 8)
        r = 1.5707963267948966;
        a = -1.0 / a;
    } else if (a > 0.4142135623730950) {  // tan(pi / 8)
        r = 0.7853981633974483;
        a = (a - 1.0) / (a + 1.0);
    }
    float z = a * a;
    r += (((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z * a + a;
    return v < 0.0 ? -r : r;
}

float expm1Approx(float v) {  // exp(v) - 1 without losing all digits for tiny |v|
    return abs(v) < 1e-5 ? v + 0.5 * v * v : exp(v) - 1.0;
}

float applyFloat(float v) {
    // NaN in, NaN out (max, min, clamp and sign would drop it: common.glsl), except where ONNX
    // defines the op by a comparison that is false for NaN: ThresholdedRelu and Shrink give 0.
    if (isNaN(v) && OP != 18u && OP != 19u) return v;
    switch (int(OP)) {
        case 0: return -v;
        case 1: return abs(v);
        case 2: return sign(v);
        case 3: return exp(v);
        case 4: return log(v);
        case 5: return sqrt(v);
        case 6: return 1.0 / v;
        case 7: return floor(v);
        case 8: return ceil(v);
        case 9: return roundEven(v);
        case 10: return erfApprox(v);
        case 11: return v >= 0.0 ? v : ALPHA * expm1Approx(v);                       // Elu
        case 12: return GAMMA * (v > 0.0 ? v : ALPHA * expm1Approx(v));              // Selu
        case 13: return max(v, 0.0) + min(0.0, ALPHA * expm1Approx(v / ALPHA));      // Celu
        case 14: return max(v, 0.0) + log(1.0 + exp(-abs(v)));                       // Softplus, no overflow
        case 15: return v / (1.0 + abs(v));                                          // Softsign
        case 16: return clamp(ALPHA * v + BETA, 0.0, 1.0);                           // HardSigmoid
        case 17: return v * clamp(v / 6.0 + 0.5, 0.0, 1.0);                          // HardSwish
        case 18: return v > ALPHA ? v : 0.0;                                         // ThresholdedRelu
        case 19: return v < -ALPHA ? v + BETA : (v > ALPHA ? v - BETA : 0.0);        // Shrink (lambd, bias)
        case 20: return sin(v);
        case 21: return cos(v);
        case 22: return tan(v);
        case 23: return abs(v) > 1.0 ? uintBitsToFloat(0x7fc00000u) : asinAccurate(v);
        case 24: return abs(v) > 1.0 ? uintBitsToFloat(0x7fc00000u) : acosAccurate(v);
        case 25: return atanAccurate(v);
        case 26: return sinh(v);
        case 27: return cosh(v);
        case 28: return sign(v) * log(abs(v) + sqrt(v * v + 1.0));  // asinh, odd by construction
        case 29: return log(v + sqrt(v * v - 1.0));                 // acosh
        case 30: return 0.5 * log((1.0 + v) / (1.0 - v));           // atanh
        case 31: {  // Mish: x tanh(softplus(x)); softplus >= 0, so tanh has no inf/inf
            float e = exp(-2.0 * (max(v, 0.0) + log(1.0 + exp(-abs(v)))));
            return v * (1.0 - e) / (1.0 + e);
        }
    }
    return v;
}
#else
ACC applyInt(ACC v) {
#if ACC_IS_UNSIGNED
    if (OP == 0) return ACC(0) - v;
    if (OP == 2) return v > ACC(0) ? ACC(1) : ACC(0);
    return v;
#else
    if (OP == 0) return -v;
    if (OP == 1) return v < ACC(0) ? -v : v;
    if (OP == 2) return v > ACC(0) ? ACC(1) : (v < ACC(0) ? ACC(-1) : ACC(0));
    return v;
#endif
}
#endif

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
#if T_IS_FLOAT
    y[idx] = T(applyFloat(float(x[idx])));
#else
    y[idx] = T(applyInt(ACC(x[idx])));
#endif
}
