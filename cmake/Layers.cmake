# The library is built layer by layer (docs/ARCHITECTURE.md, "Layers"): one object library per
# layer, compiled seeing the headers of its own layer and of the layers below it that it may
# use, and nothing else. Headers are found through a folder per layer in the build tree that
# holds links to that layer's source folders (build/layers/<layer>/<folder> -> src/<folder>),
# so `#include "runtime/session_impl.h"` from src/ops does not compile: the dependency
# direction is the build's, not a convention. libvkinfer is the objects of every layer.

# vkinfer_layer(<layer> FOLDERS <src folders> [USES <lower layers>] [LIBS <libraries>]
#               [SOURCES <extra sources>])
# Defines vkinfer_<layer> (OBJECT: every .cpp under the folders) and vkinfer_<layer>_headers
# (INTERFACE: its headers and those of the layers it uses, transitively).
function(vkinfer_layer layer)
    cmake_parse_arguments(L "" "" "FOLDERS;USES;LIBS;SOURCES" ${ARGN})
    set(root ${CMAKE_BINARY_DIR}/layers/${layer})
    file(MAKE_DIRECTORY ${root})
    set(sources ${L_SOURCES})
    foreach(folder ${L_FOLDERS})
        if(NOT IS_SYMLINK ${root}/${folder})
            file(CREATE_LINK ${CMAKE_SOURCE_DIR}/src/${folder} ${root}/${folder} SYMBOLIC)
        endif()
        file(GLOB_RECURSE found CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/${folder}/*.cpp)
        list(APPEND sources ${found})
    endforeach()
    add_library(vkinfer_${layer}_headers INTERFACE)
    target_include_directories(vkinfer_${layer}_headers INTERFACE ${root})
    foreach(lower ${L_USES})
        target_link_libraries(vkinfer_${layer}_headers INTERFACE vkinfer_${lower}_headers)
    endforeach()
    target_link_libraries(vkinfer_${layer}_headers INTERFACE ${L_LIBS})
    add_library(vkinfer_${layer} OBJECT ${sources})
    target_link_libraries(vkinfer_${layer} PUBLIC vkinfer_${layer}_headers)
    target_compile_options(vkinfer_${layer} PRIVATE ${VKINFER_WARNINGS})
    set_property(GLOBAL APPEND PROPERTY VKINFER_LAYERS ${layer})
endfunction()
