#version 450
// The probe's interface without cooperative matrices (one output a thread, bounds unchecked as
// gemm_wg.comp's): runs anywhere, so cm2_gemm_probe's timing and check are tested on lavapipe.
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 16, local_size_y = 16) in;
layout(push_constant) uniform P { uint M, N, K, lda, ldb, ldc; } p;
layout(std430, binding = 0) readonly buffer A { float16_t a[]; };
layout(std430, binding = 1) readonly buffer B { float16_t b[]; };
layout(std430, binding = 2) writeonly buffer C { float16_t c[]; };
void main() {
    const uint m = gl_GlobalInvocationID.y, n = gl_GlobalInvocationID.x;
    float s = 0.0;
    for (uint k = 0u; k < p.K; ++k) s += float(a[m * p.lda + k]) * float(b[k * p.ldb + n]);
    c[m * p.ldc + n] = float16_t(s);
}
