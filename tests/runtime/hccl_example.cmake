# ctest script: install AscendSim into a fresh prefix, build examples/hccl_allreduce, _allgather,
# _send_recv and _alltoallv there with their own Makefiles (as hicann/hccl's examples build:
# set_env.sh, make, make test) and check that each prints what the README of hicann/hccl's
# example of the same name shows for 8 NPUs: the device count, then the ranks' lines in order.
# Variables: BUILD_DIR (AscendSim's build tree), SOURCE_DIR, WORK_DIR, SANITIZER_FLAGS (a sanitizer
# build's compiler flags: the example is built with them added, to load the instrumented libraries).
file(REMOVE_RECURSE "${WORK_DIR}")
set(make_flags "")
if(SANITIZER_FLAGS)
  # The Makefile's own flags, and the sanitizer's.
  set(make_flags "CXXFLAGS='-std=c++14 -Werror -O2 -fPIE -pie ${SANITIZER_FLAGS}'")
  set(ENV{ASAN_OPTIONS} "detect_leaks=0:abort_on_error=1")
endif()
set(prefix "${WORK_DIR}/prefix")
set(RUN_TIMEOUT 300)
include(${CMAKE_CURRENT_LIST_DIR}/../run_checked.cmake)

run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(f include/hccl/hccl.h include/hccl/hccl_types.h include/hccl/hccl_comm.h lib64/libhccl.so
          lib64/libascendcl.so set_env.sh)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "install is missing ${f}")
  endif()
endforeach()

# Each example: its directory, and what hicann/hccl's README of the same example shows for 8 NPUs.
set(gathered "[ 0 1 2 3 4 5 6 7 ]")
set(expect_allreduce "")
set(expect_allgather "")
set(expect_alltoallv "")
set(expect_send_recv "")
foreach(rank RANGE 7)
  string(APPEND expect_allreduce "rankId: ${rank}, output: [ 0 8 16 24 32 40 48 56 ]\n")
  string(APPEND expect_allgather "rankId: ${rank}, output: ${gathered}\n")
  string(APPEND expect_alltoallv "rankId: ${rank}, output: ${gathered}\n")
  math(EXPR odd "${rank} % 2")
  if(odd)
    math(EXPR from "${rank} - 1")
    string(APPEND expect_send_recv "rankId: ${rank}, output: [ ${from} ${from} ${from} ${from} ${from} ${from} ${from} ${from} ]\n")
  endif()
endforeach()
foreach(example allreduce allgather send_recv alltoallv)
  file(COPY "${SOURCE_DIR}/examples/hccl_${example}/" DESTINATION "${WORK_DIR}/${example}")
  run(bash -c "source '${prefix}/set_env.sh' && cd '${WORK_DIR}/${example}' && make ${make_flags} && ASCENDSIM_CONFIG=atlas-800t-a2 ASCENDSIM_SUMMARY=0 make test")
  set(expected "Found 8 NPU device(s) available\n${expect_${example}}")
  string(FIND "${last_output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "examples/hccl_${example} printed:\n${last_output}\nexpected:\n${expected}")
  endif()
endforeach()

# examples/hccl_bandwidth, the table docs/collectives.md shows, on 2 ranks up to 64 KiB.
file(COPY "${SOURCE_DIR}/examples/hccl_bandwidth/" DESTINATION "${WORK_DIR}/bandwidth")
run(bash -c "source '${prefix}/set_env.sh' && cd '${WORK_DIR}/bandwidth' && make ${make_flags} && ASCENDSIM_CONFIG=atlas-800t-a2 ASCENDSIM_SUMMARY=0 ./hccl_bandwidth 2 64K")
# Both tables, each with a row for every size from 1 KiB to 64 KiB (time, algbw, busbw).
set(row "\n +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+")
if(NOT last_output MATCHES "all_reduce, 2 ranks\n[^\n]*${row}${row}${row}${row}\nall_gather, 2 ranks\n[^\n]*${row}${row}${row}${row}\n")
  message(FATAL_ERROR "hccl_bandwidth printed:\n${last_output}")
endif()
message(STATUS "the HCCL examples built against the prefix printed what they should")
