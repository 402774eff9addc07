#version 450
// C = A B in float16 with float32 sums, one BM x BN tile of C a workgroup, written against
// GL_NV_cooperative_matrix (what Debian 12's glslc compiles) with workgroup scope, which glslc
// lets through and the engine's KHR translation keeps: VK_NV_cooperative_matrix2's
// workgroup-scope matrices, which the driver distributes over the workgroup's warps, staging
// the operands itself. No bounds checks: M, N, K multiples of BM, BN, BK * UNROLL (the probe's
// products are padded to them). A, B and C row-major with leading dimensions lda, ldb, ldc.
// Defines: BM, BN, BK, WG (invocations), UNROLL (K slices per loop iteration), SCOPE
// (gl_ScopeWorkgroup unless given).
#ifndef SCOPE
#define SCOPE gl_ScopeWorkgroup
#endif
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_control_flow_attributes : require
layout(local_size_x = WG) in;
layout(push_constant) uniform P { uint M, N, K, lda, ldb, ldc; } p;
layout(std430, binding = 0) readonly buffer A { float16_t a[]; };
layout(std430, binding = 1) readonly buffer B { float16_t b[]; };
layout(std430, binding = 2) writeonly buffer C { float16_t c[]; };
#define ACC fcoopmatNV<32, SCOPE, BM, BN>
void main() {
    const uint m0 = gl_WorkGroupID.y * BM, n0 = gl_WorkGroupID.x * BN;
    ACC acc = ACC(0.0);
    for (uint k0 = 0u; k0 < p.K; k0 += BK * UNROLL) {
        [[unroll]] for (uint u = 0u; u < UNROLL; ++u) {
            const uint k = k0 + u * BK;
            fcoopmatNV<16, SCOPE, BM, BK> ma;
            fcoopmatNV<16, SCOPE, BK, BN> mb;
            coopMatLoadNV(ma, a, m0 * p.lda + k, p.lda, false);
            coopMatLoadNV(mb, b, k * p.ldb + n0, p.ldb, false);
            acc = coopMatMulAddNV(ma, mb, acc);
        }
    }
    fcoopmatNV<16, SCOPE, BM, BN> out16 = fcoopmatNV<16, SCOPE, BM, BN>(acc);
    coopMatStoreNV(out16, c, m0 * p.ldc + n0, p.ldc, false);
}
