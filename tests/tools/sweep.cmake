# ctest script for ascendsim sweep: two points (device link x8 and x16) of the latency ladder and
# the pipeline workload on the default machine; figures, resuming, shards and merge, the plot.
# Variables: ASCENDSIM, WORKLOAD, WORK_DIR.
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
include(${CMAKE_CURRENT_LIST_DIR}/../run_checked.cmake)

set(sweep ${ASCENDSIM} sweep --workload ${WORKLOAD} --set "devices[*].link.lanes=8,16" --jobs 2)
run(${sweep} --out ${WORK_DIR}/all.csv --json ${WORK_DIR}/all.json --plot H2D_GBps --against "devices[*].link.lanes")
file(STRINGS ${WORK_DIR}/all.csv rows)
list(LENGTH rows n)
if(NOT n EQUAL 3)
  message(FATAL_ERROR "expected a header and 2 points, got ${n} lines")
endif()
# H2D per copy: Gen4 x16 = 15.75 GB/s x 2 x (1 - 16/168 - 4/1538) x 256/276 = 26.37 GB/s; x8 =
# 15.75 x (1 - 16/203 - 4/1538) x 256/276 = 13.42 GB/s (the spec's ACK/FC interval is 203 symbols
# at x8, 168 at x16). Rows are in the grid's order: x8, then x16.
list(GET rows 1 x8)
list(GET rows 2 x16)
string(REPLACE "," ";" x8 "${x8}")
string(REPLACE "," ";" x16 "${x16}")
list(GET x8 4 h2d8)
list(GET x16 4 h2d16)
if(h2d16 LESS 26.2 OR h2d16 GREATER 26.4 OR h2d8 LESS 13.3 OR h2d8 GREATER 13.45)
  message(FATAL_ERROR "H2D GB/s: x8 ${h2d8}, x16 ${h2d16}; expected about 13.42 and 26.34")
endif()
if(NOT EXISTS ${WORK_DIR}/all.svg OR NOT EXISTS ${WORK_DIR}/all.json)
  message(FATAL_ERROR "no plot or JSON")
endif()
# Rerunning skips the points already done.
run(${sweep} --out ${WORK_DIR}/all.csv)
if(NOT "${last_output}${last_error}" MATCHES "2 already done, 0 to run")
  message(FATAL_ERROR "the rerun did not resume: ${last_output}${last_error}")
endif()
# Shards: each runs one point; merged they are the whole grid.
run(${sweep} --out ${WORK_DIR}/part0.csv --shard 0/2)
run(${sweep} --out ${WORK_DIR}/part1.csv --shard 1/2)
run(${ASCENDSIM} sweep merge ${WORK_DIR}/part0.csv ${WORK_DIR}/part1.csv --out ${WORK_DIR}/merged.csv)
file(STRINGS ${WORK_DIR}/merged.csv merged)
list(LENGTH merged m)
if(NOT m EQUAL 3)
  message(FATAL_ERROR "merged shards have ${m} lines, expected 3")
endif()
# Merged rows are ordered by value, numbers as numbers: 8 before 16.
list(GET merged 1 first)
if(NOT first MATCHES "^8,")
  message(FATAL_ERROR "merged rows out of order: ${merged}")
endif()
