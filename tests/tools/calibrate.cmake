# ascendsim calibrate against synthetic measurements (data/synthetic-copy-times.csv: 12 us + bytes
# at 24.9 GB/s), then the calibrated machine checked independently: the probe run on it must time
# a 256 MiB copy in each direction within 1.5 % of 12 us + 268435456 B / 24.9 GB/s = 10792.5 us.
# Arguments: ASCENDSIM, PROBE, CSV, WORK_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
execute_process(COMMAND ${ASCENDSIM} calibrate ${CSV} --config atlas-800t-a2 -o ${WORK_DIR}/calibrated.yaml
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "calibrate failed (${rc}): ${err}")
endif()
if(NOT out MATCHES "fitted efficiency 0\\.9[0-9]+, setup_latency [0-9]+ns")
  message(FATAL_ERROR "no fitted efficiency below 1 in the output")
endif()
# Both settings converged (neither clamped at a bound), and the fit is within the 5 % threshold.
if(NOT out MATCHES "note: efficiency converged: the time per byte agrees within 0\\.2 %\nnote: setup_latency converged")
  message(FATAL_ERROR "the output does not say that both settings converged")
endif()
execute_process(COMMAND ${ASCENDSIM} exec --config ${WORK_DIR}/calibrated.yaml --
  ${PROBE} --sizes 268435456 --repeat 1 --out ${WORK_DIR}/check.csv RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the probe failed on the calibrated machine: ${err}")
endif()
file(STRINGS ${WORK_DIR}/check.csv lines)
set(checked 0)
foreach(line IN LISTS lines)
  if(line MATCHES "^268435456,(h2d|d2h),(.*)$")
    set(seconds ${CMAKE_MATCH_2})
    # 10792.5 us +- 1.5 %
    if(seconds LESS 0.0106306 OR seconds GREATER 0.0109544)
      message(FATAL_ERROR "${CMAKE_MATCH_1}: ${seconds} s is not within 1.5 % of 0.0107925 s")
    endif()
    message("${CMAKE_MATCH_1} 256 MiB on the calibrated machine: ${seconds} s (measured 0.0107925 s)")
    math(EXPR checked "${checked} + 1")
  endif()
endforeach()
if(NOT checked EQUAL 2)
  message(FATAL_ERROR "expected two 256 MiB rows in check.csv, found ${checked}")
endif()
message("calibration ok")
