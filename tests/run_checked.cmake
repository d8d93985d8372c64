# Shared by the ctest scripts (cmake -P): run a command, fail the test with its output if it fails.
# run(cmd args...) leaves its stdout in last_output and its stderr in last_error.
# RUN_TIMEOUT (seconds, default 300) bounds each command so a hang fails the test instead of CI.
if(NOT DEFINED RUN_TIMEOUT)
  set(RUN_TIMEOUT 300)
endif()
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err TIMEOUT ${RUN_TIMEOUT})
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
  set(last_error "${err}" PARENT_SCOPE)
endfunction()
