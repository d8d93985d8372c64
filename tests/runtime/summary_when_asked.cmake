# ctest script (issue #33): the run summary only when asked, and never glued to the program's
# last line. PROGRAM (summary_program: "result: 42" without a newline, then aclFinalize),
# ASCENDSIM (the CLI), WORK.
include(${CMAKE_CURRENT_LIST_DIR}/../run_checked.cmake)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
unset(ENV{ASCENDSIM_SUMMARY})

# 1. Run directly: the program's output and nothing of the simulator's.
run(sh -c "\"$1\" 2>&1" sh "${PROGRAM}")
if(NOT last_output STREQUAL "result: 42")
  message(FATAL_ERROR "run directly, the program printed more than its own output: '${last_output}'")
endif()

# 2. ASCENDSIM_SUMMARY=1: the table on stderr, starting on a line of its own after "result: 42"
# (stdout and stderr into one pipe: the program's stdout is flushed before the table).
run(sh -c "ASCENDSIM_SUMMARY=1 \"$1\" 2>&1" sh "${PROGRAM}")
if(NOT last_output MATCHES "^result: 42\nAscendSim report \\([^)]*\\): 1 copies and memsets over")
  message(FATAL_ERROR "ASCENDSIM_SUMMARY=1 did not give the table on its own line: '${last_output}'")
endif()

# 3. Under ascendsim exec: the table, on stderr; with ASCENDSIM_SUMMARY=0 none.
run("${ASCENDSIM}" exec -- "${PROGRAM}")
if(NOT last_output STREQUAL "result: 42" OR NOT last_error MATCHES "^\nAscendSim report .*1 copies and memsets")
  message(FATAL_ERROR "ascendsim exec: stdout '${last_output}', stderr '${last_error}'")
endif()
run(${CMAKE_COMMAND} -E env ASCENDSIM_SUMMARY=0 "${ASCENDSIM}" exec -- "${PROGRAM}")
if(NOT last_error STREQUAL "")
  message(FATAL_ERROR "ascendsim exec with ASCENDSIM_SUMMARY=0 printed on stderr: '${last_error}'")
endif()

# 4. ASCENDSIM_SUMMARY=FILE: the table in the file, nothing on stderr.
run(${CMAKE_COMMAND} -E env "ASCENDSIM_SUMMARY=${WORK}/summary.txt" "${PROGRAM}")
file(READ "${WORK}/summary.txt" table)
if(NOT last_error STREQUAL "" OR NOT table MATCHES "^AscendSim report .*1 copies and memsets")
  message(FATAL_ERROR "ASCENDSIM_SUMMARY=FILE: stderr '${last_error}', file '${table}'")
endif()
message(STATUS "the summary only when asked, on its own lines")
