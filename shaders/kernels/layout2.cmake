# Data movement, shape and index families (src/ops/{gather,pad,...}.cpp), ConvTranspose,
# and the pooling forms pool2d.comp does not cover. ELEM variants move 1-, 2- or 4-byte
# elements (8-byte ones as two words).
foreach(_b 8 16 32)
    if(_b EQUAL 32)
        set(_elem uint)
    else()
        set(_elem uint${_b}_t)
    endif()
    vkinfer_shader(gather_b${_b} gather.comp DEFINES ELEM=${_elem})
    vkinfer_shader(gather_elements_b${_b} gather_elements.comp DEFINES ELEM=${_elem})
    vkinfer_shader(pad_b${_b} pad.comp DEFINES ELEM=${_elem})
endforeach()
vkinfer_typed_shader(scatter_elements scatter_elements.comp TYPES f32 f16 i32 i64)
vkinfer_typed_shader(scatter_nd scatter_nd.comp TYPES f32 f16 i32 i64)
vkinfer_typed_shader(conv_transpose conv_transpose.comp TYPES f32 f16)
vkinfer_typed_shader(pool_nd pool_nd.comp TYPES f32 f16 u8)
vkinfer_typed_shader(pool_nd_idx pool_nd.comp TYPES f32 f16 u8 DEFINES WITH_INDICES)
vkinfer_typed_shader(resize_general resize_general.comp TYPES f32 f16)
