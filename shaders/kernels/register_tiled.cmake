# Float convolutions with 8x8 outputs per invocation (conv2d_rt.comp), for GPUs: tile
# <BM>x<BN> = 8 WM x 8 WN. ops/conv/register_tiled.cpp picks the tile.
set(_rt_tiles "128x128:WM=16,WN=16" "64x128:WM=8,WN=16" "32x128:WM=4,WN=16" "16x128:WM=2,WN=16" "64x64:WM=8,WN=8" "32x64:WM=4,WN=8")
foreach(_tile ${_rt_tiles})
    string(REGEX REPLACE "[:,]" ";" _parts "${_tile}")
    list(GET _parts 0 _shape)
    list(SUBLIST _parts 1 -1 _dims)
    vkinfer_typed_shader(conv2d_rt${_shape} conv2d_rt.comp TYPES ${_float} DEFINES ${_dims} BK=8)
    vkinfer_typed_shader(conv2d_rt${_shape}_res conv2d_rt.comp TYPES ${_float} DEFINES ${_dims} BK=8 RESIDUAL)
    vkinfer_typed_shader(conv2d_rt${_shape}_splitk conv2d_rt.comp TYPES ${_float} DEFINES ${_dims} BK=8 SPLITK)
endforeach()

# conv2d_rtd<BM>_k<KW>[_res]: stride-1 float32 convs with the input window in shared memory
# (conv2d_rtd.comp), 8 rows x 32 pixels x BM channels per workgroup; KW a define (the taps
# along x index registers). ops/conv/register_direct.cpp picks the variant.
foreach(_wm 2 4 8)
    math(EXPR _bm "8 * ${_wm}")
    foreach(_kw 3 5)
        vkinfer_typed_shader(conv2d_rtd${_bm}_k${_kw} conv2d_rtd.comp TYPES f32 DEFINES WM=${_wm} TH=8 KW=${_kw})
        vkinfer_typed_shader(conv2d_rtd${_bm}_k${_kw}_res conv2d_rtd.comp TYPES f32 DEFINES WM=${_wm} TH=8 KW=${_kw} RESIDUAL)
    endforeach()
endforeach()
