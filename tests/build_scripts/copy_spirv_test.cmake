# cmake -DSCRIPT=<cmake/copy_spirv.cmake> -DWORK=<empty folder> -P copy_spirv_test.cmake
# The sanitized tree's SPIR-V copy (cmake/copy_spirv.cmake) against file times set by hand: it
# copies a variant whose depfile's files are all older than it although another family's
# interface is newer, refuses one whose own family's interface is newer, and without a depfile
# judges by NEWER_THAN. Each case fails this script with what went wrong.
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# Writes WORK/NAME and sets its modification time (copy_spirv compares to the second).
function(stamp name when)
    file(WRITE "${WORK}/${name}" "${name}\n")
    execute_process(COMMAND touch -d "${when}" "${WORK}/${name}" RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
        message(FATAL_ERROR "touch -d '${when}' ${WORK}/${name} failed")
    endif()
endfunction()

# Runs copy_spirv on WORK/v.inc; `expect` is COPY or REFUSE.
function(copy_case expect what newer_than)
    file(REMOVE "${WORK}/out.inc")
    execute_process(COMMAND "${CMAKE_COMMAND}" "-DFROM=${WORK}/v.inc" "-DTO=${WORK}/out.inc"
                            "-DNEWER_THAN=${newer_than}" -P "${SCRIPT}"
                    RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
    if(expect STREQUAL "COPY")
        if(NOT rc EQUAL 0 OR NOT EXISTS "${WORK}/out.inc")
            message(FATAL_ERROR "${what}: refused, should have copied:\n${err}")
        endif()
        file(READ "${WORK}/out.inc" copied)
        if(NOT copied STREQUAL "v.inc\n")
            message(FATAL_ERROR "${what}: copied '${copied}', not the variant")
        endif()
    elseif(rc EQUAL 0)
        message(FATAL_ERROR "${what}: copied, should have refused")
    elseif(NOT err MATCHES "is older than")
        message(FATAL_ERROR "${what}: refused for another reason:\n${err}")
    endif()
    message(STATUS "${what}: ${expect} as it should")
endfunction()

stamp(source.comp "2020-01-01 00:00:00")
stamp(own_family.glsl "2020-01-01 00:00:00")
stamp(v.inc "2020-01-02 00:00:00")
stamp(other_family.glsl "2020-01-03 00:00:00")
# As glslc writes it, with a line continuation to read past.
file(WRITE "${WORK}/v.inc.d" "${WORK}/v.inc: ${WORK}/source.comp \\\n ${WORK}/own_family.glsl\n")
set(all "${WORK}/source.comp|${WORK}/own_family.glsl|${WORK}/other_family.glsl")

copy_case(COPY "another family's newer interface, outside the depfile" "${all}")
stamp(own_family.glsl "2020-01-04 00:00:00")
copy_case(REFUSE "its own family's interface newer, on the depfile's second line" "${all}")
stamp(own_family.glsl "2020-01-01 00:00:00")
stamp(source.comp "2020-01-04 00:00:00")
copy_case(REFUSE "its source newer" "${all}")
stamp(source.comp "2020-01-01 00:00:00")
file(REMOVE "${WORK}/v.inc.d")
copy_case(REFUSE "no depfile: another family's newer interface among NEWER_THAN" "${all}")
copy_case(COPY "no depfile, every NEWER_THAN file older" "${WORK}/source.comp|${WORK}/own_family.glsl")
