# ascendsim calibrate on measurements it cannot fit must fail: exit 1, the reason printed, and no
# calibrated machine written. Arguments: ASCENDSIM, CSV, EXPECT (a regular expression the output
# must match), WORK_DIR.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
execute_process(COMMAND ${ASCENDSIM} calibrate ${CSV} --config atlas-800t-a2 -o ${WORK_DIR}/calibrated.yaml
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 1)
  message(FATAL_ERROR "calibrate exited with ${rc}, not 1: ${err}")
endif()
if(NOT out MATCHES "${EXPECT}")
  message(FATAL_ERROR "the output does not say '${EXPECT}'")
endif()
if(EXISTS ${WORK_DIR}/calibrated.yaml)
  message(FATAL_ERROR "a failed fit wrote ${WORK_DIR}/calibrated.yaml")
endif()
message("calibration refused")
