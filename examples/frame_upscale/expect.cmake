# Runs DEMO with ARGS (a ;-list) and checks its exit status (EXPECT_RC) and that its output
# (stdout and stderr) matches EXPECT_OUTPUT: for tests that a run fails the way it should.
execute_process(COMMAND ${DEMO} ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc STREQUAL "${EXPECT_RC}")
    message(FATAL_ERROR "vkinfer_demo ${ARGS}: exit status ${rc}, expected ${EXPECT_RC}\n${out}\n${err}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_OUTPUT}")
    message(FATAL_ERROR "vkinfer_demo ${ARGS}: output lacks '${EXPECT_OUTPUT}'\n${out}\n${err}")
endif()
message(STATUS "vkinfer_demo ${ARGS}: exit status ${rc} as expected\n${out}${err}")
