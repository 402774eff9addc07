// Shared by every kernel: workgroup size and the fused activation come from
// specialization constants (ids 0-2 and 3-5, see src/ops/lower_context.h).
#extension GL_GOOGLE_include_directive : enable

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;

layout(constant_id = 3) const uint ACT_KIND = 0;  // graph::ActKind
layout(constant_id = 4) const float ACT_ALPHA = 0.0;
layout(constant_id = 5) const float ACT_BETA = 0.0;

// NaN propagates as in PyTorch and NumPy (Relu(NaN), max(NaN, x) and a pooling window with a
// NaN are NaN), but GLSL's max, min and clamp are undefined for NaN and implementations return
// the other operand (lavapipe, NVIDIA). The test is on the bits: a compiler that assumes no
// NaNs may fold isnan(x) to false, and x != x to false.
bool isNaN(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
float maxNaN(float a, float b) { return isNaN(a) ? a : (isNaN(b) ? b : max(a, b)); }
float minNaN(float a, float b) { return isNaN(a) ? a : (isNaN(b) ? b : min(a, b)); }

// erf with ~1 ulp error in float arithmetic (N. Juffa's minimax fit): GLSL has no erf, and
// the classic 7.1.26 fit (1.5e-7 absolute) loses relative accuracy near 0, where GELU needs it.
float erfApprox(float a) {
    float t = abs(a), s = a * a, r;
    if (t > 0.927734375) {
        r = fma(-1.72853470e-5, t, 3.83197126e-4);
        float u = fma(-3.88396438e-3, t, 2.42546219e-2);
        r = fma(r, s, u);
        r = fma(r, t, -1.06777877e-1);
        r = fma(r, t, -6.34846687e-1);
        r = fma(r, t, -1.28717512e-1);
        r = fma(r, t, -t);
        r = 1.0 - exp(r);
        return a < 0.0 ? -r : r;
    }
    r = -5.96761703e-4;
    r = fma(r, s, 4.99119423e-3);
    r = fma(r, s, -2.67681349e-2);
    r = fma(r, s, 1.12819925e-1);
    r = fma(r, s, -3.76125336e-1);
    r = fma(r, s, 1.28379166e-1);
    return fma(r, a, a);
}

float activate(float x) {
    if (ACT_KIND != 0u && isNaN(x)) return x;  // every activation maps NaN to NaN
    if (ACT_KIND == 1u) return max(x, 0.0);
    if (ACT_KIND == 2u) return min(max(x, ACT_ALPHA), ACT_BETA);  // ONNX Clip order
    if (ACT_KIND == 3u) return 1.0 / (1.0 + exp(-x));
#ifdef T_F16
    // Kernels that store float16: tanh without branches. Its error near 0 (about 6e-8
    // absolute) is far below float16's rounding, and the branches below, divergent within a
    // warp, made the tensor-core epilogues of ESPCN's layers a third slower (run 30).
    if (ACT_KIND == 4u) return 1.0 - 2.0 / (exp(2.0 * x) + 1.0);
#endif
    if (ACT_KIND == 4u) {  // tanh without inf/inf for large |x|
        // Near 0, 1 - e cancels (relative error ~1e-7 / |x|, 5% at |x| = 1e-6): use the
        // Taylor series there (next term 62/2835 x^9: ~5e-12 relative at |x| = 1/16). Both
        // are computed and one selected: as a branch, divergent within a warp, it slowed
        // the float16 epilogues by a third on the H200.
        float ax = abs(x), x2 = x * x;
        float series = x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))));
        float e = exp(-2.0 * ax);
        float closed = sign(x) * (1.0 - e) / (1.0 + e);
        return ax < 0.0625 ? series : closed;
    }
    if (ACT_KIND == 5u) return x >= 0.0 ? x : x * ACT_ALPHA;
    if (ACT_KIND == 6u) return x * (1.0 / (1.0 + exp(-x)));  // as Mul(x, Sigmoid(x)): -inf gives NaN
    if (ACT_KIND == 7u) return 0.5 * x * (1.0 + erfApprox(x * 0.70710678118654752));  // Gelu
    if (ACT_KIND == 8u) {  // Gelu, tanh approximation: 0.5 x (1 + tanh(u)) = x sigmoid(2u), no inf/inf
        float u = 0.7978845608028654 * (x + 0.044715 * x * x * x);
        return x / (1.0 + exp(-2.0 * u));
    }
    if (ACT_KIND == 9u) return clamp(fma(ACT_ALPHA, x, ACT_BETA), 0.0, 1.0);            // HardSigmoid
    if (ACT_KIND == 10u) return x * clamp(fma(x, 1.0 / 6.0, 0.5), 0.0, 1.0);             // HardSwish
    return x;
}
vec4 activate4(vec4 v) { return vec4(activate(v.x), activate(v.y), activate(v.z), activate(v.w)); }

// PRelu (ACT_KIND 11) has a slope per output channel. The kernels that fuse it (the
// convolutions) read it from their bias table, which then holds M biases followed by the M
// slopes (ops/conv/conv.cpp packs it): activateAt(v, SLOPE_OF(float(bias[M + oc]))).
// SLOPE_OF reads the table only for PRelu (?: evaluates one side), so other kinds never index
// past the M biases.
#define SLOPE_OF(expr) (ACT_KIND == 11u ? (expr) : 0.0)
float activateAt(float x, float slope) {
    if (ACT_KIND == 11u) return x >= 0.0 || isNaN(x) ? x : x * slope;
    return activate(x);
}
vec4 activate4At(vec4 v, vec4 slope) {
    return vec4(activateAt(v.x, slope.x), activateAt(v.y, slope.y), activateAt(v.z, slope.z), activateAt(v.w, slope.w));
}
