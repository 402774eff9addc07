# Sanitizer and fuzzing builds (both need clang for libFuzzer; VKINFER_SANITIZE alone also
# works with GCC).
#
#   -DVKINFER_SANITIZE=address,undefined   everything in the tree built with these sanitizers
#   -DVKINFER_FUZZ=ON                      the libFuzzer targets of tests/fuzz; implies
#                                          VKINFER_SANITIZE=address,undefined unless it is set
#
# Every target of the tree gets the flags (the library, the tools, the tests), so one tree
# serves both the sanitized test run and the fuzzers (scripts/sanitize-and-fuzz.sh).
# -fno-sanitize-recover=all makes any UBSan report fatal, so a test or fuzz run fails on it.
if(VKINFER_FUZZ)
    if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
        message(FATAL_ERROR "VKINFER_FUZZ needs clang (libFuzzer): add -DCMAKE_CXX_COMPILER=clang++")
    endif()
    if(NOT VKINFER_SANITIZE)
        set(VKINFER_SANITIZE "address,undefined" CACHE STRING "Sanitizers (-fsanitize=...)" FORCE)
    endif()
endif()

if(VKINFER_SANITIZE)
    message(STATUS "vkinfer: building with -fsanitize=${VKINFER_SANITIZE}")
    # Line tables are enough for symbolized reports and cost far less build time than -g.
    set(debug_info -g)
    if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
        set(debug_info -gline-tables-only)
    endif()
    add_compile_options(-fsanitize=${VKINFER_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer ${debug_info})
    add_link_options(-fsanitize=${VKINFER_SANITIZE})
endif()

if(VKINFER_FUZZ)
    # Coverage instrumentation for libFuzzer everywhere; only the fuzz targets link its main.
    add_compile_options(-fsanitize=fuzzer-no-link)
endif()
