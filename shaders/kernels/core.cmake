# Every kernel variant the engine embeds. Names are what ops::Dispatch::kernel refers to.
set(_gemm_big TM=4 TN=4 WM=16 WN=16 BK=16)      # 64 x 64 tile
set(_gemm_small_m TM=2 TN=4 WM=8 WN=32 BK=16)   # 16 x 128 tile, for few output channels
# The float kernels come in float32 and float16 variants (<name>_f32, <name>_f16: tensors,
# weights and bias stored in that type, arithmetic in float32; see shaders/types.glsl and
# ops::typedKernel). float16 serves PlanOptions::precision = Float16 (passes/precision.cpp).
set(_float f32 f16)
vkinfer_typed_shader(conv2d_t64x64 conv2d.comp TYPES ${_float} DEFINES ${_gemm_big})
vkinfer_typed_shader(conv2d_t64x64_res conv2d.comp TYPES ${_float} DEFINES ${_gemm_big} RESIDUAL)
vkinfer_typed_shader(conv2d_t16x128 conv2d.comp TYPES ${_float} DEFINES ${_gemm_small_m})
vkinfer_typed_shader(conv2d_t16x128_res conv2d.comp TYPES ${_float} DEFINES ${_gemm_small_m} RESIDUAL)
vkinfer_typed_shader(conv2d_t64x64_splitk conv2d.comp TYPES ${_float} DEFINES ${_gemm_big} SPLITK)
vkinfer_typed_shader(conv_splitk_reduce conv_splitk_reduce.comp TYPES ${_float})
vkinfer_typed_shader(conv_splitk_reduce_res conv_splitk_reduce.comp TYPES ${_float} DEFINES RESIDUAL)
vkinfer_typed_shader(conv2d_direct conv2d_direct.comp TYPES ${_float})
vkinfer_typed_shader(conv2d_direct_res conv2d_direct.comp TYPES ${_float} DEFINES RESIDUAL)
vkinfer_typed_shader(gemm_t64x64 gemm.comp TYPES ${_float} DEFINES ${_gemm_big})
vkinfer_typed_shader(gemm_t64x64_c gemm.comp TYPES ${_float} DEFINES ${_gemm_big} HAS_C)
vkinfer_typed_shader(gemm_t16x128 gemm.comp TYPES ${_float} DEFINES ${_gemm_small_m})
vkinfer_typed_shader(gemm_t16x128_c gemm.comp TYPES ${_float} DEFINES ${_gemm_small_m} HAS_C)
vkinfer_typed_shader(pool2d pool2d.comp TYPES ${_float})
vkinfer_typed_shader(global_pool global_pool.comp TYPES ${_float})
vkinfer_typed_shader(binary binary.comp TYPES ${_float})
vkinfer_typed_shader(unary unary.comp TYPES ${_float})
vkinfer_typed_shader(channel_affine channel_affine.comp TYPES ${_float})
vkinfer_shader(copy_words copy_words.comp)
vkinfer_shader(copy_strided_b32 copy_strided.comp DEFINES ELEM=uint)
vkinfer_shader(copy_strided_b16 copy_strided.comp DEFINES ELEM=uint16_t)
vkinfer_shader(copy_strided_b8 copy_strided.comp DEFINES ELEM=uint8_t)
vkinfer_typed_shader(resize resize.comp TYPES ${_float})
# Image bridging (interleaved execution): host image <-> model tensor.
vkinfer_shader(image_to_tensor_sampled image_to_tensor.comp DEFINES SAMPLED)
vkinfer_shader(image_to_tensor_rgba8 image_to_tensor.comp DEFINES FORMAT=rgba8)
vkinfer_shader(image_to_tensor_rgba16f image_to_tensor.comp DEFINES FORMAT=rgba16f)
vkinfer_shader(tensor_to_image tensor_to_image.comp)
vkinfer_shader(tensor_to_image_rgba8 tensor_to_image.comp DEFINES FORMAT=rgba8)
vkinfer_shader(tensor_to_image_rgba16f tensor_to_image.comp DEFINES FORMAT=rgba16f)
