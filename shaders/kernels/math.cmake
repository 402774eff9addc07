# Math operator families: src/ops/{unary,elementwise,compare,cast,reduce,softmax,normalization}.cpp.
# Typed variants (vkinfer_typed_shader) are named <kernel>_<type>, see ops::typedKernel.

# unary.cpp: Exp, Erf, Elu, trigonometry, ... (integer variants: Neg, Abs, Sign).
vkinfer_typed_shader(unary_math unary_math.comp TYPES f32 f16 i32 i64)

# elementwise.cpp: broadcasting arithmetic beyond float32 and float16 (binary.comp serves
# those, with fused activations), Mod, PRelu; float64 Max/Min on bit patterns.
vkinfer_typed_shader(eltwise eltwise.comp TYPES f32 f16 i32 i64 i8 u8 i16 u16 u32 u64)
vkinfer_shader(minmax_f64 minmax_f64.comp)

# compare.cpp: comparisons and logical ops (bool output); Where by element size.
vkinfer_typed_shader(compare compare.comp TYPES f32 f16 i32 i64 i8 u8 i16 u16 u32 u64)
vkinfer_shader(where_b8 where.comp DEFINES ELEM=uint8_t)
vkinfer_shader(where_b16 where.comp DEFINES ELEM=uint16_t)
vkinfer_shader(where_b32 where.comp DEFINES ELEM=uint)
vkinfer_shader(where_b64 where.comp DEFINES ELEM=uvec2)

# cast.cpp: one variant per (source, destination) pair, named cast_<src>_<dst> (dst "b" is
# bool). Every pair of the common types; the wide integer types to and from f32/i32/i64 and
# to bool; float64 to and from the float types. Other pairs go through int64 or float32.
set(_cast_core f32 f16 i8 u8 i32 i64)
set(_cast_wide i16 u16 u32 u64)
foreach(_s ${_cast_core})
    foreach(_d ${_cast_core} b)
        if(NOT _s STREQUAL _d)
            string(TOUPPER "${_s};${_d}" _u)
            list(GET _u 0 _su)
            list(GET _u 1 _du)
            vkinfer_shader(cast_${_s}_${_d} cast.comp DEFINES SRC_${_su} DST_${_du})
        endif()
    endforeach()
endforeach()
foreach(_w ${_cast_wide})
    string(TOUPPER ${_w} _wu)
    foreach(_c f32 i32 i64)
        string(TOUPPER ${_c} _cu)
        vkinfer_shader(cast_${_w}_${_c} cast.comp DEFINES SRC_${_wu} DST_${_cu})
        vkinfer_shader(cast_${_c}_${_w} cast.comp DEFINES SRC_${_cu} DST_${_wu})
    endforeach()
    vkinfer_shader(cast_${_w}_b cast.comp DEFINES SRC_${_wu} DST_B)
endforeach()
foreach(_f f32 f16)
    string(TOUPPER ${_f} _fu)
    vkinfer_shader(cast_f64_${_f} cast.comp DEFINES SRC_F64 DST_${_fu})
    vkinfer_shader(cast_${_f}_f64 cast.comp DEFINES SRC_${_fu} DST_F64)
endforeach()

# reduce.cpp: Reduce* and ArgMax/ArgMin.
vkinfer_typed_shader(reduce reduce.comp TYPES f32 f16 i32 i64)
vkinfer_typed_shader(argreduce argreduce.comp TYPES f32 f16 i32 i64 u8)

# softmax.cpp
vkinfer_typed_shader(softmax softmax.comp TYPES f32 f16)

# normalization.cpp: Layer/InstanceNormalization (norm_stats also writes Mean, InvStdDev);
# BatchNormalization with statistics in buffers, and training mode's batch statistics.
vkinfer_typed_shader(norm norm.comp TYPES f32 f16)
vkinfer_typed_shader(norm_stats norm.comp TYPES f32 f16 DEFINES STATS)
vkinfer_typed_shader(batchnorm batchnorm.comp TYPES f32 f16)
vkinfer_typed_shader(batchnorm_stats batchnorm_stats.comp TYPES f32 f16)
