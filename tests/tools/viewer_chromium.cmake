# ctest script: a real run's trace and report -> `ascendsim view` -> headless Chromium. Checks that
# the expected tracks and a known event are drawn (from the DOM after the page's script ran) and
# keeps a screenshot as the test's artifact. Skipped where Chromium is not installed.
# Variables: ASCENDSIM, PROGRAM, WORK_DIR.
include(${CMAKE_CURRENT_LIST_DIR}/chromium.cmake)
if(NOT CHROMIUM)
  return()
endif()

set(RUN_TIMEOUT 120)
include(${CMAKE_CURRENT_LIST_DIR}/../run_checked.cmake)

run(${CMAKE_COMMAND} -E env ASCENDSIM_SUMMARY=0 ${ASCENDSIM} exec --trace ${WORK_DIR}/trace.json
    --report ${WORK_DIR}/report.json -- ${PROGRAM})
run(${ASCENDSIM} view ${WORK_DIR}/trace.json --report ${WORK_DIR}/report.json -o ${WORK_DIR}/trace.html)
list(APPEND chrome --window-size=1400,1000)
run(${chrome} --dump-dom file://${WORK_DIR}/trace.html)
set(dom "${last_output}")
foreach(expected "track: Thread 0 (main)" "track: Stream 2" "track: DMA channel 0" "counter: npu0.link.down"
                 "process: npu0 (Ascend 910B4)")
  string(FIND "${dom}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the viewer did not list '${expected}'")
  endif()
endforeach()
if(NOT dom MATCHES "data-drawn=\"([0-9]+)\"" OR CMAKE_MATCH_1 LESS 10)
  message(FATAL_ERROR "the viewer drew too few slices")
endif()
if(NOT dom MATCHES "data-names=\"[^\"]*MEMCPY_ASYNC")
  message(FATAL_ERROR "the viewer did not draw a MEMCPY_ASYNC task")
endif()
run(${chrome} --screenshot=${WORK_DIR}/viewer.png file://${WORK_DIR}/trace.html)
file(SIZE ${WORK_DIR}/viewer.png png_size)
if(png_size LESS 20000)
  message(FATAL_ERROR "the screenshot is suspiciously small (${png_size} bytes)")
endif()
message(STATUS "viewer drawn in Chromium; screenshot: ${WORK_DIR}/viewer.png")
