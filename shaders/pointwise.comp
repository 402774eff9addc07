#version 450
// A fused element-wise program (passes/pointwise_fusion.cpp, ops/pointwise.cpp): the chain or
// DAG of element-wise nodes between its inputs and outputs runs per element in registers, so
// intermediates never reach memory and the whole group is one dispatch. Registers: 0-3 the
// inputs (read at their broadcast offsets), 4-19 the steps' results (step k writes 4 + k),
// 20-27 the immediates. Every step and register number is a specialization constant: the
// driver folds the program to straight-line code, one pipeline per distinct program.
#include "common.glsl"
#include "types.glsl"
#include "pointwise.glsl"  // push constants, specialization constants: shaders/kernels/pointwise.toml

layout(std430, binding = 0) writeonly buffer Out0 { T y0[]; };
#if OUTPUTS > 1
layout(std430, binding = 1) writeonly buffer Out1 { T y1[]; };
#endif
// The inputs follow the outputs (ops::Dispatch::bindings lists them in binding order).
layout(std430, binding = OUTPUTS + 0) readonly buffer In0 { T x0[]; };
layout(std430, binding = OUTPUTS + 1) readonly buffer In1 { T x1[]; };
layout(std430, binding = OUTPUTS + 2) readonly buffer In2 { T x2[]; };
layout(std430, binding = OUTPUTS + 3) readonly buffer In3 { T x3[]; };

// ONNX Pow as binary.comp computes it (GLSL's pow is undefined for negative bases and zero).
float powOnnxPointwise(float u, float v) {
    if (v == 0.0) return 1.0;
    if (u == 0.0) return v > 0.0 ? 0.0 : uintBitsToFloat(0x7f800000u);
    if (u > 0.0) return pow(u, v);
    if (v != floor(v)) return uintBitsToFloat(0x7fc00000u);
    float m = pow(-u, v);
    return mod(v, 2.0) == 1.0 ? -m : m;
}

// tanh without inf/inf for large |x| and without cancellation near 0 (common.glsl's activate).
float tanhPointwise(float x) {
    float ax = abs(x), x2 = x * x;
    float series = x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))));
    float e = exp(-2.0 * ax);
    float closed = sign(x) * (1.0 - e) / (1.0 + e);
    return ax < 0.0625 ? series : closed;
}

// One step: ops::PointwiseOp in src/ops/pointwise.h, operands already read from registers.
float applyStep(uint op, float a, float b, float c) {
    switch (op) {
        case 0u: return a + b;
        case 1u: return a - b;
        case 2u: return a * b;
        case 3u: return a / b;
        case 4u: return powOnnxPointwise(a, b);
        case 5u: return maxNaN(a, b);
        case 6u: return minNaN(a, b);
        case 7u: return -a;
        case 8u: return abs(a);
        case 9u: return sqrt(a);
        case 10u: return exp(a);
        case 11u: return log(a);
        case 12u: return isNaN(a) ? a : erfApprox(a);
        case 13u: return isNaN(a) ? a : tanhPointwise(a);
        case 14u: return 1.0 / (1.0 + exp(-a));
        case 15u: return isNaN(a) ? a : max(a, 0.0);
        case 16u: return 1.0 / a;
        case 17u: return a >= 0.0 || isNaN(a) ? a : a * b;                                 // LeakyRelu, b: slope
        case 18u: return isNaN(a) ? a : 0.5 * a * (1.0 + erfApprox(a * 0.70710678118654752));  // Gelu
        case 19u: {                                                                       // Gelu, tanh form
            float u = 0.7978845608028654 * (a + 0.044715 * a * a * a);
            return a / (1.0 + exp(-2.0 * u));
        }
        case 20u: return a * (1.0 / (1.0 + exp(-a)));                                     // Silu
        case 21u: return isNaN(a) ? a : clamp(fma(b, a, c), 0.0, 1.0);                    // HardSigmoid, b alpha, c beta
        case 22u: return isNaN(a) ? a : a * clamp(fma(a, 1.0 / 6.0, 0.5), 0.0, 1.0);      // HardSwish
        case 23u: return isNaN(a) ? a : min(max(a, b), c);                                // Clip, b min, c max
        case 24u: return floor(a);
        case 25u: return ceil(a);
    }
    return a;
}

float r[28];

#define RUN_STEP(k)                                                                                  \
    if (NUM_STEPS > k) {                                                                             \
        r[4 + k] = applyStep(STEP##k & 255u, r[(STEP##k >> 8) & 31u], r[(STEP##k >> 13) & 31u],          \
                        r[(STEP##k >> 18) & 31u]);                                                   \
    }

void main() {
    uint idx = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    if (idx >= p.count) return;
    uint rem = idx, i0 = 0, i1 = 0, i2 = 0, i3 = 0;
    for (int d = int(p.rank) - 1; d >= 0; --d) {
        uint c = rem % p.dims[d];
        rem /= p.dims[d];
        i0 += c * p.stride[0][d];
        i1 += c * p.stride[1][d];
        i2 += c * p.stride[2][d];
        i3 += c * p.stride[3][d];
    }
    for (int k = 0; k < 28; ++k) r[k] = 0.0;
    r[0] = float(x0[i0]);
    if (NUM_INPUTS > 1) r[1] = float(x1[i1]);
    if (NUM_INPUTS > 2) r[2] = float(x2[i2]);
    if (NUM_INPUTS > 3) r[3] = float(x3[i3]);
    r[20] = IMM0; r[21] = IMM1; r[22] = IMM2; r[23] = IMM3;
    r[24] = IMM4; r[25] = IMM5; r[26] = IMM6; r[27] = IMM7;
    RUN_STEP(0) RUN_STEP(1) RUN_STEP(2) RUN_STEP(3) RUN_STEP(4) RUN_STEP(5) RUN_STEP(6) RUN_STEP(7)
    RUN_STEP(8) RUN_STEP(9) RUN_STEP(10) RUN_STEP(11) RUN_STEP(12) RUN_STEP(13) RUN_STEP(14) RUN_STEP(15)
    y0[idx] = T(r[OUT0]);
#if OUTPUTS > 1
    y1[idx] = T(r[OUT1]);
#endif
}
