// Element types for typed kernel variants (cmake: vkinfer_typed_shader ... TYPES f32 i32 ...):
// T is the tensor element type, ACC the type arithmetic runs in. 8-bit types need
// storageBuffer8BitAccess, 64-bit ones shaderInt64 (both on lavapipe and current GPUs).
#extension GL_EXT_shader_explicit_arithmetic_types : enable
#extension GL_EXT_shader_8bit_storage : enable
#extension GL_EXT_shader_16bit_storage : enable

#if defined(T_F32)
#define T float
#define ACC float
#define T_IS_FLOAT 1
#elif defined(T_F16)
#define T float16_t
#define ACC float
#define T_IS_FLOAT 1
#elif defined(T_I32)
#define T int
#define ACC int
#define T_IS_FLOAT 0
#elif defined(T_I64)
#define T int64_t
#define ACC int64_t
#define T_IS_FLOAT 0
#elif defined(T_U8)
#define T uint8_t
#define ACC int
#define T_IS_FLOAT 0
#elif defined(T_I8)
#define T int8_t
#define ACC int
#define T_IS_FLOAT 0
#endif

// Four float elements as one 16- or 8-byte word, for kernels that bind a float tensor twice
// (as T and as T4) to store or load aligned quads.
#if defined(T_F32)
#define T4 vec4
#elif defined(T_F16)
#define T4 f16vec4
#endif

// Wider integer types (Min/Max/Mod/... node tests use every ONNX integer type). 16-bit
// types need storageBuffer16BitAccess; narrow unsigned values fit ACC int exactly.
#if defined(T_I16)
#define T int16_t
#define ACC int
#define T_IS_FLOAT 0
#elif defined(T_U16)
#define T uint16_t
#define ACC int
#define T_IS_FLOAT 0
#elif defined(T_U32)
#define T uint
#define ACC uint
#define T_IS_FLOAT 0
#elif defined(T_U64)
#define T uint64_t
#define ACC uint64_t
#define T_IS_FLOAT 0
#endif

// ACC is unsigned (no negative values: integer Mod, Pow and Abs skip their sign handling).
#if defined(T_U32) || defined(T_U64)
#define ACC_IS_UNSIGNED 1
#else
#define ACC_IS_UNSIGNED 0
#endif
