# ctest script: a real run's trace and report -> `ascendsim view` -> headless Chromium. Checks that
# the expected tracks are listed and that the timeline drew every slice of the trace, by count
# and by name, counted from trace.json here (from the DOM after the page's script ran), and keeps
# a screenshot as the test's artifact. Skipped where Chromium is not installed.
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
# What the trace holds, counted here from trace.json itself (one event per line, as the Chrome
# JSON sink writes it): every complete event ("ph":"X") is a slice, and at the first view (the
# whole run) the canvas draws each one, alone or with the others in its pixel column, so the number
# of slices drawn must equal the number of X events, and every slice name in the trace must be among
# the names drawn.
file(STRINGS ${WORK_DIR}/trace.json slices REGEX "\"ph\":\"X\"")
list(LENGTH slices expected_slices)
if(expected_slices LESS 10)
  message(FATAL_ERROR "the run's trace has only ${expected_slices} slices")
endif()
if(NOT dom MATCHES "data-drawn=\"([0-9]+)\"")
  message(FATAL_ERROR "the viewer drew no slices")
endif()
if(NOT CMAKE_MATCH_1 EQUAL expected_slices)
  message(FATAL_ERROR "the viewer drew ${CMAKE_MATCH_1} slices; the trace has ${expected_slices}")
endif()
if(NOT dom MATCHES "data-names=\"([^\"]*)\"")
  message(FATAL_ERROR "the viewer listed no drawn names")
endif()
# The names as drawn, '|' between them, with the DOM's escapes undone.
set(drawn_names "|${CMAKE_MATCH_1}|")
foreach(escape "&gt;=>" "&lt;=<" "&quot;=\"" "&amp;=&")
  string(REGEX MATCH "^([^=]*)=(.*)$" pair "${escape}")
  string(REPLACE "${CMAKE_MATCH_1}" "${CMAKE_MATCH_2}" drawn_names "${drawn_names}")
endforeach()
set(trace_names "")
foreach(line IN LISTS slices)
  if(line MATCHES "\"name\":\"([^\"]*)\"")
    list(APPEND trace_names "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(REMOVE_DUPLICATES trace_names)
list(LENGTH trace_names distinct)
if(distinct LESS 3)
  message(FATAL_ERROR "the trace's slices have only ${distinct} names")
endif()
foreach(name IN LISTS trace_names)
  string(FIND "${drawn_names}" "|${name}|" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "the trace's slice '${name}' was not drawn (drawn: ${drawn_names})")
  endif()
endforeach()
message(STATUS "the viewer drew ${expected_slices} of ${expected_slices} slices, ${distinct} names")
run(${chrome} --screenshot=${WORK_DIR}/viewer.png file://${WORK_DIR}/trace.html)
message(STATUS "viewer drawn in Chromium; screenshot: ${WORK_DIR}/viewer.png")
