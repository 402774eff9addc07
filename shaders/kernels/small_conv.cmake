# Convolutions too small to fill a GPU with output tiles (conv2d_small.comp): the reduction
# split across the invocations of a workgroup. ops/conv/small_grid.cpp decides where.
vkinfer_typed_shader(conv2d_small conv2d_small.comp TYPES ${_float})
vkinfer_typed_shader(conv2d_small_res conv2d_small.comp TYPES ${_float} DEFINES RESIDUAL)
