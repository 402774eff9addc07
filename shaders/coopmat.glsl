// 16x16x16 matrix tiles for the cooperative-matrix kernels: float16 A (16 x 16, row-major
// from shared memory) times float16 B (16 x 16) accumulated in float32, per warp of 32
// invocations. Three ways to spell the same operations:
//   CM_NV        GL_NV_cooperative_matrix (Debian 12's glslc; NVIDIA's tensor cores)
//   CM_KHR       GL_KHR_cooperative_matrix (newer toolchains; not compiled here)
//   CM_EMULATE   plain GLSL on any device: a "fragment" of A or B is its place in shared
//                memory, an accumulator 8 floats per invocation. Slow; it exists so that the
//                kernels' tiling, indexing and epilogues are tested on lavapipe, where no
//                device offers cooperative matrices.
// A warp is 32 consecutive invocations (gl_LocalInvocationIndex / 32): the NV path is only
// chosen where the subgroup size is 32 (kernel selection checks it), and the emulation
// treats the 32 as a logical warp whatever the real subgroup size.
// The kernel declares the operand tiles `shared As[]`, `Bs[]` (float16_t, or uvec4 holding 8
// halves: define CM_UNIT 8 and the accessors CM_A(h), CM_B(h) returning half h as a float)
// and `shared float Cs[]` (per-warp staging of one accumulator, CM_CS_STRIDE floats a row).
// CM_STAGE_COLUMNS(acc, warp) stages column-major instead (element (r, c) at c * CM_CS_STRIDE
// + r), for epilogues that take a column's 16 values as consecutive floats.
// With CM_CS_WORDS defined, Cs is a uvec4 array (four floats a word: a kernel that stages in
// the shared words of its operand tiles once they are spent); either way CM_STAGED(i) reads
// staged float i.
// CM_WARP_SYNC() orders a warp's staging stores before its reads (and the reads before the
// next stores): a subgroup barrier where a warp is a subgroup, a workgroup barrier emulated.
// Offsets and strides given to CM_LOAD_* are in halves. CM_LOAD_B reads B row-major (k, n at
// offset + k * stride + n); with CM_B_COLUMN_MAJOR defined, column-major (offset + n * stride
// + k), for kernels that stage B with the reduction contiguous; CM_LOAD_B_COLUMNS reads one B
// column-major whatever CM_B_COLUMN_MAJOR says (attention's k^T, staged key by key).
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_control_flow_attributes : require

// CM_UNROLL before the loops over fragments, accumulators and register-staged words, so that
// every fragment index is a constant. glslc keeps such loops rolled, with the fragment arrays
// in function memory indexed by the loop counters; so compiled, every tensor-core kernel ran
// at about 35 TFLOP/s on the H200 whatever its tiles, and unrolled the same GEMM ran at 143
// (docs/BENCHMARKS.md). The emulation keeps its loops rolled: unrolled, lavapipe took tens of
// seconds per pipeline.
#if defined(CM_EMULATE)
#define CM_UNROLL
#else
#define CM_UNROLL [[unroll]]
#endif

#define CM_CS_STRIDE 20u   // floats per staged row: 16 + 4 so that rows start on other banks
#define CM_CS_WARP (16u * CM_CS_STRIDE)
#ifdef CM_B_COLUMN_MAJOR
#define CM_B_COLUMNS true
#else
#define CM_B_COLUMNS false
#endif
#ifndef CM_UNIT
#define CM_UNIT 1u
#define CM_A(h) float(As[h])
#define CM_B(h) float(Bs[h])
#endif

#ifdef CM_CS_WORDS
#define CM_CS_UNIT 4u
#define CM_STAGED(i) uintBitsToFloat(Cs[(i) >> 2][(i) & 3u])
#define CM_STAGE_AT(i, v) Cs[(i) >> 2][(i) & 3u] = floatBitsToUint(v)
#else
#define CM_CS_UNIT 1u
#define CM_STAGED(i) Cs[i]
#define CM_STAGE_AT(i, v) Cs[i] = (v)
#endif

#if defined(CM_NV)
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#define CM_FRAG_A fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define CM_FRAG_B fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define CM_ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define CM_ZERO(acc) acc = CM_ACC(0.0)
#define CM_LOAD_A(frag, offset, stride) coopMatLoadNV(frag, As, (offset) / CM_UNIT, (stride) / CM_UNIT, false)
#define CM_LOAD_B(frag, offset, stride) coopMatLoadNV(frag, Bs, (offset) / CM_UNIT, (stride) / CM_UNIT, CM_B_COLUMNS)
#define CM_LOAD_B_COLUMNS(frag, offset, stride) coopMatLoadNV(frag, Bs, (offset) / CM_UNIT, (stride) / CM_UNIT, true)
#define CM_MULADD(acc, a, b) acc = coopMatMulAddNV(a, b, acc)
#define CM_STAGE(acc, warp) coopMatStoreNV(acc, Cs, (warp) * CM_CS_WARP / CM_CS_UNIT, CM_CS_STRIDE / CM_CS_UNIT, false)
#define CM_STAGE_COLUMNS(acc, warp) coopMatStoreNV(acc, Cs, (warp) * CM_CS_WARP / CM_CS_UNIT, CM_CS_STRIDE / CM_CS_UNIT, true)
#define CM_WARP_SYNC() subgroupMemoryBarrierShared(); subgroupBarrier()
#elif defined(CM_KHR)
#extension GL_KHR_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_basic : require
#define CM_FRAG_A coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define CM_FRAG_B coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>
#define CM_ACC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define CM_ZERO(acc) acc = CM_ACC(0.0)
#define CM_LOAD_A(frag, offset, stride) \
    coopMatLoad(frag, As, (offset) / CM_UNIT, (stride) / CM_UNIT, gl_CooperativeMatrixLayoutRowMajor)
#ifdef CM_B_COLUMN_MAJOR
#define CM_B_LAYOUT gl_CooperativeMatrixLayoutColumnMajor
#else
#define CM_B_LAYOUT gl_CooperativeMatrixLayoutRowMajor
#endif
#define CM_LOAD_B(frag, offset, stride) coopMatLoad(frag, Bs, (offset) / CM_UNIT, (stride) / CM_UNIT, CM_B_LAYOUT)
#define CM_LOAD_B_COLUMNS(frag, offset, stride) \
    coopMatLoad(frag, Bs, (offset) / CM_UNIT, (stride) / CM_UNIT, gl_CooperativeMatrixLayoutColumnMajor)
#define CM_MULADD(acc, a, b) acc = coopMatMulAdd(a, b, acc)
#define CM_STAGE(acc, warp) \
    coopMatStore(acc, Cs, (warp) * CM_CS_WARP / CM_CS_UNIT, CM_CS_STRIDE / CM_CS_UNIT, gl_CooperativeMatrixLayoutRowMajor)
#define CM_STAGE_COLUMNS(acc, warp) \
    coopMatStore(acc, Cs, (warp) * CM_CS_WARP / CM_CS_UNIT, CM_CS_STRIDE / CM_CS_UNIT, gl_CooperativeMatrixLayoutColumnMajor)
#define CM_WARP_SYNC() subgroupMemoryBarrierShared(); subgroupBarrier()
#elif defined(CM_EMULATE)
// Loops kept rolled: unrolled, the 16-long sums of every accumulator element made each
// kernel's pipeline take tens of seconds to compile on lavapipe.
struct CmFrag {  // element (r, c) at offset + r * rowStride + c * colStride, in halves
    uint offset;
    uint rowStride;
    uint colStride;
};
// Invocation `lane` of a warp holds accumulator elements lane + 32 * t, t = 0..7: element e
// is row e / 16, column e % 16.
#define CM_FRAG_A CmFrag
#define CM_FRAG_B CmFrag
#define CM_ACC float[8]
#define CM_ZERO(acc) \
    for (uint cm_t = 0u; cm_t < 8u; ++cm_t) acc[cm_t] = 0.0
#define CM_LOAD_A(frag, off, str) frag = CmFrag(off, str, 1u)
#ifdef CM_B_COLUMN_MAJOR
#define CM_LOAD_B(frag, off, str) frag = CmFrag(off, 1u, str)
#else
#define CM_LOAD_B(frag, off, str) frag = CmFrag(off, str, 1u)
#endif
#define CM_LOAD_B_COLUMNS(frag, off, str) frag = CmFrag(off, 1u, str)
#define CM_MULADD(acc, a, b)                                                                    \
    [[dont_unroll]] for (uint cm_t = 0u; cm_t < 8u; ++cm_t) {                                   \
        uint cm_e = (gl_LocalInvocationIndex % 32u) + 32u * cm_t, cm_r = cm_e / 16u, cm_c = cm_e % 16u; \
        float cm_s = acc[cm_t];                                                                 \
        [[dont_unroll]] for (uint cm_k = 0u; cm_k < 16u; ++cm_k)                                \
            cm_s += CM_A(a.offset + cm_r * a.rowStride + cm_k * a.colStride) *                \
                    CM_B(b.offset + cm_k * b.rowStride + cm_c * b.colStride);                   \
        acc[cm_t] = cm_s;                                                                       \
    }
#define CM_STAGE(acc, warp)                                                                     \
    for (uint cm_t = 0u; cm_t < 8u; ++cm_t) {                                                   \
        uint cm_e = (gl_LocalInvocationIndex % 32u) + 32u * cm_t;                               \
        CM_STAGE_AT((warp) * CM_CS_WARP + (cm_e / 16u) * CM_CS_STRIDE + cm_e % 16u, acc[cm_t]); \
    }
#define CM_STAGE_COLUMNS(acc, warp)                                                             \
    for (uint cm_t = 0u; cm_t < 8u; ++cm_t) {                                                   \
        uint cm_e = (gl_LocalInvocationIndex % 32u) + 32u * cm_t;                               \
        CM_STAGE_AT((warp) * CM_CS_WARP + (cm_e % 16u) * CM_CS_STRIDE + cm_e / 16u, acc[cm_t]); \
    }
// A logical warp need not be one subgroup here: the whole workgroup waits.
#define CM_WARP_SYNC() barrier()
#else
#error define CM_NV, CM_KHR or CM_EMULATE
#endif

// Half h of a word of 8 halves (the accessors of CM_UNIT 8 kernels).
float cmHalf(uvec4 v, uint h) {
    uint w = (h & 7u) >> 1;
    uint word = w == 0u ? v.x : w == 1u ? v.y : w == 2u ? v.z : v.w;
    return unpackHalf2x16(word)[h & 1u];
}
