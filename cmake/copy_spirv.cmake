# cmake -DFROM=<variant.inc> -DTO=<variant.inc> -DNEWER_THAN=<a|b|...> -P copy_spirv.cmake
# Copies one variant's compiled SPIR-V from another build tree (Shaders.cmake, VKINFER_SPIRV_FROM),
# but only if it was compiled after every file it is made from was last changed: otherwise that
# tree has not been rebuilt since a shader changed, and copying would embed the old kernel.
# The files the variant was made from: those its tree's glslc named in its depfile (FROM.d:
# its source, the shared includes and its own family's interface), else all NEWER_THAN, so that
# an edit to one family's declaration does not refuse every other family's variants.
if(EXISTS "${FROM}.d")
    file(READ "${FROM}.d" deps)
    string(REGEX REPLACE "\\\\\n" " " deps "${deps}")
    string(REGEX REPLACE "^[^:]*:" "" deps "${deps}")
    string(STRIP "${deps}" deps)
    separate_arguments(sources UNIX_COMMAND "${deps}")
else()
    string(REPLACE "|" ";" sources "${NEWER_THAN}")
endif()
file(TIMESTAMP "${FROM}" from_time "%Y%m%d%H%M%S" UTC)
foreach(source IN LISTS sources)
    file(TIMESTAMP "${source}" source_time "%Y%m%d%H%M%S" UTC)
    if(source_time STRGREATER from_time)
        message(FATAL_ERROR "${FROM} is older than ${source}: build that tree first "
                            "(cmake --build <it> --target vkinfer_spirv), or configure this one "
                            "with -DVKINFER_SPIRV_FROM= to compile the kernels here")
    endif()
endforeach()
file(COPY_FILE "${FROM}" "${TO}" ONLY_IF_DIFFERENT)
