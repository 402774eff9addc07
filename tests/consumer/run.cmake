# Installs the build into a scratch prefix, builds tests/consumer against it with
# find_package(vkinfer), and runs the result; then runs the installed command-line tool from
# the prefix with no library path set (its RPATH must find libvkinfer.so). Variables:
# BUILD_DIR, SRC_DIR, WORK_DIR, MODEL, CLI (ON when the tool is built).
file(REMOVE_RECURSE ${WORK_DIR})
foreach(step
        "${CMAKE_COMMAND};--install;${BUILD_DIR};--prefix;${WORK_DIR}/prefix"
        "${CMAKE_COMMAND};-S;${SRC_DIR};-B;${WORK_DIR}/build;-G;Ninja;-DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix"
        "${CMAKE_COMMAND};--build;${WORK_DIR}/build"
        "${WORK_DIR}/build/consumer;${MODEL}")
    execute_process(COMMAND ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    message("${out}")
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "step failed (${rc}): ${step}\n${err}")
    endif()
endforeach()

if(CLI)
    # `env -u` so that nothing but the RPATH can point the loader at the library.
    foreach(step
            "env;-u;LD_LIBRARY_PATH;${WORK_DIR}/prefix/bin/vkinfer;--version"
            "env;-u;LD_LIBRARY_PATH;${WORK_DIR}/prefix/bin/vkinfer;plan;${MODEL};--shape;input=1x3x8x8")
        execute_process(COMMAND ${step} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
        message("${out}")
        if(NOT rc EQUAL 0)
            message(FATAL_ERROR "installed CLI failed (${rc}): ${step}\n${err}")
        endif()
    endforeach()
    message("installed CLI ran from ${WORK_DIR}/prefix/bin")
endif()
