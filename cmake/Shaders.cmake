# Build-time shader compilation. Every kernel family is declared once, in
# shaders/kernels/<family>.toml; cmake/kernel_declarations.py turns the declarations into the
# variant list (included here), the C++ side of each interface (kernels/families/<family>.h:
# push-constant struct, specialization ids, constants, typed variant ids) and the GLSL side
# (kernels/families/<family>.glsl, included by the shader), and the table of embedded SPIR-V
# (kernels/kernel_table.cpp, indexed by kernels::KernelId; src/core/kernel_table.h). Each
# variant is compiled by glslc to SPIR-V in C initializer form.

find_program(GLSLC glslc REQUIRED)
find_package(Python3 3.11 COMPONENTS Interpreter REQUIRED)  # tomllib
set(VKINFER_KERNELS_DIR ${CMAKE_BINARY_DIR}/generated/kernels)
file(GLOB VKINFER_KERNEL_DECLARATIONS ${CMAKE_SOURCE_DIR}/shaders/kernels/*.toml)
set_property(DIRECTORY ${CMAKE_SOURCE_DIR} APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${VKINFER_KERNEL_DECLARATIONS} ${CMAKE_SOURCE_DIR}/cmake/kernel_declarations.py)
execute_process(
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_SOURCE_DIR}/cmake/kernel_declarations.py ${CMAKE_SOURCE_DIR}/shaders/kernels
            ${VKINFER_KERNELS_DIR}
    RESULT_VARIABLE _declarations_rc ERROR_VARIABLE _declarations_error)
if(NOT _declarations_rc EQUAL 0)
    message(FATAL_ERROR "kernel declarations (shaders/kernels/*.toml): ${_declarations_error}")
endif()
set(VKINFER_SHADER_DIR ${CMAKE_SOURCE_DIR}/shaders)
file(GLOB VKINFER_SHADER_INCLUDES ${VKINFER_SHADER_DIR}/*.glsl)
# glslc does not create its output folder: without this, a build of the library alone (tests,
# tools and examples off) failed with "cannot open output file".
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/shaders)

# A second build tree of the same source (scripts/sanitize-and-fuzz.sh's sanitized one) can take
# the SPIR-V another tree has compiled instead of compiling every variant again: the SPIR-V does
# not depend on the C++ compiler or its flags, and glslc is a fifth of the sanitized build's time
# on two cores. cmake/copy_spirv.cmake refuses a variant older than a file that tree's glslc
# named in its depfile (its shader source, the shared includes it uses, its family's generated
# interface, which the declarations rewrite only when it changes), so a stale tree fails the
# build instead of embedding old kernels.
set(VKINFER_SPIRV_FROM "" CACHE PATH
    "the shaders/ folder of a built tree of this source whose SPIR-V to copy instead of running glslc (empty: compile)")
if(VKINFER_SPIRV_FROM)
    file(GLOB VKINFER_SPIRV_FROM_INTERFACES ${VKINFER_SPIRV_FROM}/../generated/kernels/families/*.glsl)
endif()

# vkinfer_shader(<variant name> <source.comp> [DEFINES A=1 B ...])
function(vkinfer_shader name source)
    cmake_parse_arguments(S "" "" "DEFINES" ${ARGN})
    set(out ${CMAKE_BINARY_DIR}/shaders/${name}.inc)
    if(VKINFER_SPIRV_FROM)
        set(from ${VKINFER_SPIRV_FROM}/${name}.inc)
        set(newer_than ${VKINFER_SHADER_DIR}/${source} ${VKINFER_SHADER_INCLUDES} ${VKINFER_SPIRV_FROM_INTERFACES})
        string(REPLACE ";" "|" newer_than_arg "${newer_than}")
        add_custom_command(
            OUTPUT ${out}
            COMMAND ${CMAKE_COMMAND} -DFROM=${from} -DTO=${out} -DNEWER_THAN=${newer_than_arg}
                    -P ${CMAKE_SOURCE_DIR}/cmake/copy_spirv.cmake
            DEPENDS ${from} ${newer_than} ${CMAKE_SOURCE_DIR}/cmake/copy_spirv.cmake
            COMMENT "copy ${name} from ${VKINFER_SPIRV_FROM}"
            VERBATIM)
        set_property(GLOBAL APPEND PROPERTY VKINFER_SHADER_OUTPUTS ${out})
        return()
    endif()
    set(defs)
    foreach(d ${S_DEFINES})
        list(APPEND defs -D${d})
    endforeach()
    # glslc names the files a variant includes (its depfile), so a variant is compiled again
    # when its source, a shared include or its own family's interface changes, not when another
    # family's does: depending on every interface recompiled every variant (552 today) for one
    # declaration's edit (about ten minutes on two cores).
    add_custom_command(
        OUTPUT ${out}
        COMMAND ${GLSLC} --target-env=vulkan1.2 -O -mfmt=c -fshader-stage=compute
                -I${VKINFER_SHADER_DIR} -I${VKINFER_KERNELS_DIR}/families ${defs} ${VKINFER_SHADER_DIR}/${source} -o ${out}
                -MD -MF ${out}.d
        DEPENDS ${VKINFER_SHADER_DIR}/${source}
        DEPFILE ${out}.d
        COMMENT "glslc ${source} -> ${name}"
        VERBATIM)
    set_property(GLOBAL APPEND PROPERTY VKINFER_SHADER_OUTPUTS ${out})
endfunction()

include(${VKINFER_KERNELS_DIR}/variants.cmake)

# The embedded table: compiled once every variant's SPIR-V exists.
get_property(_shader_outputs GLOBAL PROPERTY VKINFER_SHADER_OUTPUTS)
set(VKINFER_SHADER_TABLE ${VKINFER_KERNELS_DIR}/kernel_table.cpp)
set_source_files_properties(${VKINFER_SHADER_TABLE} PROPERTIES OBJECT_DEPENDS "${_shader_outputs}")
# Every variant's SPIR-V and nothing else: what a tree built with VKINFER_SPIRV_FROM copies.
add_custom_target(vkinfer_spirv DEPENDS ${_shader_outputs})
