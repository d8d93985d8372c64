# Runs threads_program RUNS times with each thread count in COUNTS and checks that every run with
# the same count writes the same trace and report, byte for byte (issue #16 item 14: before the
# calls of host threads were ordered by simulated time, 5 runs gave 5 different traces).
# cmake -DPROGRAM=... -DWORK=dir -DCOUNTS=1,4,16 -DRUNS=5 -P threads_reproducible.cmake
include(${CMAKE_CURRENT_LIST_DIR}/../run_checked.cmake)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
set(ENV{ASCENDSIM_SUMMARY} 0)
string(REPLACE "," ";" COUNTS "${COUNTS}")
foreach(count ${COUNTS})
  unset(first_trace)
  foreach(run RANGE 1 ${RUNS})
    set(trace ${WORK}/t${count}-${run}.json)
    set(report ${WORK}/r${count}-${run}.json)
    set(ENV{ASCENDSIM_TRACE} ${trace})
    set(ENV{ASCENDSIM_REPORT} ${report})
    run(${PROGRAM} ${count})
    file(SHA256 ${trace} trace_hash)
    file(SHA256 ${report} report_hash)
    if(NOT DEFINED first_trace)
      set(first_trace ${trace_hash})
      set(first_report ${report_hash})
    elseif(NOT trace_hash STREQUAL first_trace OR NOT report_hash STREQUAL first_report)
      message(FATAL_ERROR "${count} threads: run ${run} differs from run 1 (${trace} vs ${WORK}/t${count}-1.json, "
                          "${report} vs ${WORK}/r${count}-1.json)")
    endif()
  endforeach()
  message(STATUS "${count} thread(s): ${RUNS} runs, identical trace and report")
endforeach()
