# Every kernel variant the engine embeds, one file per family in shaders/kernels/. Names are
# what ops::Dispatch::kernel refers to.
file(GLOB _kernel_lists ${CMAKE_CURRENT_LIST_DIR}/kernels/*.cmake)
list(SORT _kernel_lists)
foreach(_list ${_kernel_lists})
    include(${_list})
endforeach()
