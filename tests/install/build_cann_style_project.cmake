# ctest script: install AscendSim into a fresh prefix, then build examples/cann_style_project
# against that prefix with its unmodified CANN-style CMake file, and run the program.
# Also checks set_env.sh and find_package(AscendSim).
# Variables: BUILD_DIR (AscendSim's build tree), SOURCE_DIR, WORK_DIR, CXX_COMPILER, and SANITIZER_FLAGS (the
# sanitizer build's compiler flags, which every project built here must share to load its
# libascendcl.so; CMake takes them from CFLAGS, CXXFLAGS and LDFLAGS at a project's first configure).
file(REMOVE_RECURSE "${WORK_DIR}")
if(SANITIZER_FLAGS)
  set(ENV{CFLAGS} "${SANITIZER_FLAGS}")
  set(ENV{CXXFLAGS} "${SANITIZER_FLAGS}")
  set(ENV{LDFLAGS} "-fsanitize=address,undefined")
  # The projects are samples written as users write them (the vendor's aclnnAdd sample among
  # them), not ours: their own leaks at exit are not the runtime's, whose leaks the rest of the
  # sanitizer suite checks. Every other error still stops them.
  set(ENV{ASAN_OPTIONS} "detect_leaks=0:abort_on_error=1")
endif()
set(prefix "${WORK_DIR}/prefix")

set(RUN_TIMEOUT 600)
include(${CMAKE_CURRENT_LIST_DIR}/../run_checked.cmake)

run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
foreach(f include/acl/acl.h include/acl/acl_base.h include/acl/acl_rt.h
          include/acl/error_codes/rt_error_codes.h include/acl/acl_tdt.h lib64/libacl_tdt_channel.so include/aclnn/acl_meta.h include/aclnnop/aclnn_add.h
          include/acl/acl_tdt_queue.h lib64/libacl_tdt_queue.so
          include/acl/acl_prof.h lib64/libmsprofiler.so lib64/libacl_dvpp.so include/acl/ops/acl_dvpp.h
          lib64/libascendcl.so lib64/libnnopbase.so lib64/libopapi.so lib64/libopapi_math.so bin/ascendsim set_env.sh
          share/cmake/AscendSim/AscendSimConfig.cmake share/doc/ascendsim/runtime.md
          share/doc/ascendsim/images/viewer.png share/ascendsim/workloads/pipeline.yaml
          share/ascendsim/workloads/all-to-host.yaml share/ascendsim/workloads/eight-from-host-16gib.yaml)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "install is missing ${f}")
  endif()
endforeach()
# An installed multi-NPU workload runs from the prefix: eight NPUs copy 256 MiB each to the host
# (32 tasks: the runtime splits copies into 64 MiB tasks).
run(${CMAKE_COMMAND} -E env ASCENDSIM_SUMMARY=1 "${prefix}/bin/ascendsim" run --timing-only
    --config atlas-800t-a2 --workload "${prefix}/share/ascendsim/workloads/all-to-host.yaml")
if(NOT "${last_output}${last_error}" MATCHES "D2H +32 +2147483648")
  message(FATAL_ERROR "the installed all-to-host workload printed: ${last_output}${last_error}")
endif()

# 0. The toolkit's layout that vendor projects assume: the Ascend C kernel module at every path a
# CANN version has kept it (tikcpp/, <arch>-linux/tikcpp/, compiler/tikcpp/, tools/tikcpp/), and
# runtime/include and runtime/lib64/stub (the headers and the libraries runtime-only samples link).
foreach(f tikcpp/ascendc_kernel_cmake/ascendc.cmake compiler/tikcpp/ascendc_kernel_cmake/ascendc.cmake
          tools/tikcpp/ascendc_kernel_cmake/ascendc.cmake runtime/include/acl/acl.h
          runtime/lib64/libascendcl.so runtime/lib64/stub/libascendcl.so lib64/stub/libacl_rt.so)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "install is missing ${f}")
  endif()
endforeach()
# A runtime-only sample's build: headers from runtime/include, libraries from runtime/lib64/stub
# (as their NPU_HOST_LIB), then run against lib64.
separate_arguments(sanitizer UNIX_COMMAND "${SANITIZER_FLAGS}")
run(${CXX_COMPILER} ${sanitizer} -std=c++17 "${SOURCE_DIR}/examples/cann_style_project/main.cpp"
    -I "${prefix}/runtime/include" -L "${prefix}/runtime/lib64/stub" -lascendcl -o "${WORK_DIR}/runtime_only_app")
run(${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${prefix}/lib64" "${WORK_DIR}/runtime_only_app")
if(NOT last_output MATCHES "round trip ok")
  message(FATAL_ERROR "the program built against runtime/ printed: ${last_output}")
endif()

# 0b. libacl_dvpp.so by name: a program linking only -lacl_dvpp (from runtime/lib64/stub, as the
# vendor's media samples link it) gets DVPP buffers from the device's memory: 128-byte aligned,
# ALIGN_UP(1000, 32) + 32 = 1056 bytes of HBM taken (pyACL's and AscendCL's documented rule) and
# given back by acldvppFree; a copy in and out of it keeps its bytes.
file(WRITE "${WORK_DIR}/dvpp_app.cpp" [[
#include <cstdint>
#include <cstdio>
#include <cstring>
#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
int main() {
  if (aclInit(nullptr) || aclrtSetDevice(0)) return 1;
  size_t free0 = 0, free1 = 0, free2 = 0, total = 0;
  aclrtGetMemInfo(ACL_HBM_MEM, &free0, &total);
  void* dvpp = nullptr;
  if (acldvppMalloc(&dvpp, 1000) != ACL_SUCCESS) return 2;
  aclrtGetMemInfo(ACL_HBM_MEM, &free1, &total);
  char in[1000], out[1000];
  for (int i = 0; i < 1000; ++i) in[i] = static_cast<char>(i * 7);
  if (aclrtMemcpy(dvpp, 1000, in, 1000, ACL_MEMCPY_HOST_TO_DEVICE) ||
      aclrtMemcpy(out, 1000, dvpp, 1000, ACL_MEMCPY_DEVICE_TO_HOST))
    return 3;
  const int freed = acldvppFree(dvpp);
  aclrtGetMemInfo(ACL_HBM_MEM, &free2, &total);
  std::printf("dvpp: aligned %d, took %zu, freed %d, back %d, data %s\n",
              reinterpret_cast<uintptr_t>(dvpp) % 128 == 0, free0 - free1, freed, free2 == free0,
              std::memcmp(in, out, 1000) == 0 ? "ok" : "differs");
  aclrtResetDevice(0);
  aclFinalize();
  return 0;
}
]])
run(${CXX_COMPILER} ${sanitizer} -std=c++17 "${WORK_DIR}/dvpp_app.cpp" -I "${prefix}/runtime/include"
    -L "${prefix}/runtime/lib64/stub" -lacl_dvpp -o "${WORK_DIR}/dvpp_app")
run(${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${prefix}/lib64" "${WORK_DIR}/dvpp_app")
if(NOT last_output MATCHES "dvpp: aligned 1, took 1056, freed 0, back 1, data ok")
  message(FATAL_ERROR "the program linking libacl_dvpp.so printed: ${last_output}")
endif()

# 1. The CANN-style project, pointed at the prefix and nothing else.
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/examples/cann_style_project" -B "${WORK_DIR}/app" -DASCEND_HOME=${prefix})
run(${CMAKE_COMMAND} --build "${WORK_DIR}/app")
run(${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${prefix}/lib64" "${WORK_DIR}/app/cann_style_app")
if(NOT last_output MATCHES "round trip ok")
  message(FATAL_ERROR "unexpected output: ${last_output}")
endif()

# 1b. The vendor's operator sample (aclnnAdd) with its unmodified CMake file, which finds the
# toolkit through ASCEND_CUSTOM_PATH (set_env.sh sets it) and links libascendcl, libnnopbase and
# libopapi by path.
run(bash -c "source '${prefix}/set_env.sh' && cmake -S '${SOURCE_DIR}/examples/aclnn_add' -B '${WORK_DIR}/aclnn' -DCMAKE_BUILD_TYPE=Release && cmake --build '${WORK_DIR}/aclnn' && ASCENDSIM_SUMMARY=0 '${WORK_DIR}/aclnn/bin/opapi_test'")
if(NOT last_output MATCHES "float16 aclnnAdd result\\[7\\] is: 10.601562" OR NOT last_output MATCHES "all elements checked")
  message(FATAL_ERROR "the aclnnAdd sample printed: ${last_output}")
endif()

# 1c. Ascend C kernels built as CANN's samples build them (ascendc.cmake through ASCENDC_CMAKE_DIR,
# ascendc_library, <<<>>> launches): right results over 8 blocks, an out-of-bounds read and a trap
# reported with CANN's AI Core exception codes.
foreach(f include/kernel_operator.h include/kernel_operator_list_tensor_intf.h include/ascendsim/ascendc_more.h bin/ascendsim-ascendc-prep tikcpp/ascendc_kernel_cmake/ascendc.cmake bin/setenv.bash)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "install is missing ${f}")
  endif()
endforeach()
run(bash -c "source '${prefix}/bin/setenv.bash' && cmake -S '${SOURCE_DIR}/examples/ascendc_kernels' -B '${WORK_DIR}/ascendc' && cmake --build '${WORK_DIR}/ascendc' && ASCENDSIM_SUMMARY=0 '${WORK_DIR}/ascendc/ascendc_kernels_app'")
foreach(expected "ScaledSum: 8 blocks" "scaled sum over 8 blocks: 65536 elements ok"
                 "add-relu over 16 blocks with queues: 65536 elements ok" "spin: timed from its loop tests" "out of bounds: 507035 .*kernel ReadsTooFar, block 0: out-of-bounds access at 0x[0-9a-f]+ \\(npu0\\+0x"
                 "trap: 507035 .*kernel Traps trapped in block 1" "ascendc kernels ok")
  if(NOT last_output MATCHES "${expected}")
    message(FATAL_ERROR "the Ascend C kernels printed: ${last_output}")
  endif()
endforeach()

# 1c'. A kernel's simulated time does not depend on the optimisation level the kernels were
# compiled at: the same sources built at -O0 and at -O2 give the same times to the last printed
# digit (the scalar code is timed from its loop tests, counted in the source, not from what the
# host compiler made of it; the vector instructions and copies are counted as the API calls them).
# Spin's million iterations take 1000001 tests of 4 instructions at 1.65 GHz: over 2.42 ms.
set(times "")
foreach(level O0 O2)
  run(bash -c "source '${prefix}/bin/setenv.bash' && cmake -S '${SOURCE_DIR}/examples/ascendc_kernels' -B '${WORK_DIR}/ascendc_${level}' '-DCMAKE_CXX_FLAGS=${SANITIZER_FLAGS} -${level}' && cmake --build '${WORK_DIR}/ascendc_${level}' --target ascendc_kernels_app && ASCENDSIM_SUMMARY=0 '${WORK_DIR}/ascendc_${level}/ascendc_kernels_app'")
  if(NOT last_output MATCHES "simulated times: add-relu [0-9.]+ ms, spin [0-9.]+ ms" OR NOT last_output MATCHES "spin: timed from its loop tests")
    message(FATAL_ERROR "the Ascend C kernels built at -${level} printed: ${last_output}")
  endif()
  string(REGEX MATCH "simulated times: [^\n]*" line "${last_output}")
  list(APPEND times "${line}")
endforeach()
list(GET times 0 at_o0)
list(GET times 1 at_o2)
if(NOT at_o0 STREQUAL at_o2)
  message(FATAL_ERROR "the same kernels take different simulated times at -O0 (${at_o0}) and -O2 (${at_o2})")
endif()
message(STATUS "the same at -O0 and -O2: ${at_o0}")

# ascendc_library wrote a launch header for each kernel (<build>/include/<library>/aclrtlaunch_K.h)
# with CANN's macro and parameters: pointers as void*, arithmetic types as they are.
file(READ "${WORK_DIR}/ascendc/include/kernels/aclrtlaunch_ScaledSum.h" header)
foreach(expected "#define ACLRT_LAUNCH_KERNEL\\(kernel\\) aclrtlaunch_##kernel"
                 "uint32_t aclrtlaunch_ScaledSum\\(uint32_t blockDim, aclrtStream stream, void\\* x, void\\* y, void\\* z, float alpha, uint32_t count\\);")
  if(NOT header MATCHES "${expected}")
    message(FATAL_ERROR "aclrtlaunch_ScaledSum.h lacks ${expected}:\n${header}")
  endif()
endforeach()

# 1d. The same kernels from a binary loaded at run time (ascendc_fatbin_library, installed under
# fatbin/NAME/NAME.o as CANN's samples expect): on device, registered host and managed memory.
run(bash -c "source '${prefix}/bin/setenv.bash' && cmake --install '${WORK_DIR}/ascendc' --prefix '${WORK_DIR}/ascendc/out' && ASCENDSIM_SUMMARY=0 '${WORK_DIR}/ascendc/load_binary_app' '${WORK_DIR}/ascendc/out/fatbin/loaded_kernels/loaded_kernels.o'")
foreach(expected "unknown kernel: 507027" "too few arguments: 107000" "an argument of SIZE_MAX bytes: 107000" "on device memory: ok" "placeholder buffer of 0 bytes: 100000" "placeholder buffer of a plain argument: 107000"
                 "launch with a placeholder without buffer: 107000" "append after a placeholder buffer: 207000" "placeholder buffer after finalize: 207000" "with placeholder arguments: ok" "on registered host memory: ok" "on managed memory: ok"
                 "launch after unload: 107017" "arguments after unload: 107017" "loaded kernels ok")
  if(NOT last_output MATCHES "${expected}")
    message(FATAL_ERROR "the loaded kernels printed: ${last_output}")
  endif()
endforeach()

# 1e. The same program as a program of a served machine (ascendsim exec --shared): the program
# reads the binary, the server loads it and runs its kernels; the same codes and results (#29).
# (Not in a sanitizer build: ASan gives the server and the program small heap blocks at the same
# fixed addresses, so registering the program's heap buffer is refused there, as documented in
# docs/multiprocess.md; runtime.shared_machine.served_kernels covers the rest under ASan.)
if(NOT SANITIZER_FLAGS)
run(bash -c "source '${prefix}/bin/setenv.bash' && ASCENDSIM_SUMMARY=0 ASCENDSIM_PIPELINE=0 '${prefix}/bin/ascendsim' exec --shared -- '${WORK_DIR}/ascendc/load_binary_app' '${WORK_DIR}/ascendc/out/fatbin/loaded_kernels/loaded_kernels.o'")
foreach(expected "unknown kernel: 507027" "too few arguments: 107000" "an argument of SIZE_MAX bytes: 107000" "on device memory: ok" "placeholder buffer of 0 bytes: 100000" "placeholder buffer of a plain argument: 107000"
                 "launch with a placeholder without buffer: 107000" "append after a placeholder buffer: 207000" "placeholder buffer after finalize: 207000" "with placeholder arguments: ok" "on registered host memory: ok" "on managed memory: ok"
                 "launch after unload: 107017" "arguments after unload: 107017" "loaded kernels ok")
  if(NOT last_output MATCHES "${expected}")
    message(FATAL_ERROR "the loaded kernels on a served machine printed: ${last_output}")
  endif()
endforeach()
endif()

# 2. set_env.sh sets what CANN users rely on, and the installed ascendsim can run the program.
run(bash -c "source '${prefix}/set_env.sh' && test \"$ASCEND_HOME_PATH\" = '${prefix}' && ascendsim exec -- '${WORK_DIR}/app/cann_style_app'")

# 2a. msprof on PATH after set_env.sh, and where CANN keeps it, profiles the program: one
# PROF_* folder each with msprof's summary tables (docs/traces.md, "msprof").
run(bash -c "source '${prefix}/set_env.sh' && ASCENDSIM_SUMMARY=0 msprof --output='${WORK_DIR}/prof' '${WORK_DIR}/app/cann_style_app' && ASCENDSIM_SUMMARY=0 '${prefix}/tools/profiler/bin/msprof' --application='${WORK_DIR}/app/cann_style_app' --output='${WORK_DIR}/prof'")
file(GLOB tables "${WORK_DIR}/prof/PROF_*/mindstudio_profiler_output/api_statistic_*.csv")
list(LENGTH tables count)
if(NOT count EQUAL 2)
  message(FATAL_ERROR "the installed msprof left ${count} api_statistic tables, expected 2: ${tables}")
endif()

# 2b. The Python module from the prefix: `source set_env.sh; python3 -c "import acl; print(acl.init())"`.
# (Not in a sanitizer build: an uninstrumented python3 cannot load the instrumented module.)
if(EXISTS "${prefix}/lib64/python" AND EXISTS /usr/bin/python3 AND NOT SANITIZER_FLAGS)
  run(bash -c "source '${prefix}/set_env.sh' && ASCENDSIM_SUMMARY=0 /usr/bin/python3 -c 'print(__import__(\"acl\").init())'")
  if(NOT last_output MATCHES "^0")
    message(FATAL_ERROR "import acl from the prefix printed: ${last_output}")
  endif()
endif()

# 3. find_package(AscendSim) gives an imported target.
file(WRITE "${WORK_DIR}/pkg/CMakeLists.txt" "cmake_minimum_required(VERSION 3.16)\nproject(pkg CXX)\nfind_package(AscendSim REQUIRED)\nadd_executable(pkg_app ${SOURCE_DIR}/examples/cann_style_project/main.cpp)\ntarget_link_libraries(pkg_app AscendSim::ascendcl)\n")
run(${CMAKE_COMMAND} -S "${WORK_DIR}/pkg" -B "${WORK_DIR}/pkg/build" -DCMAKE_PREFIX_PATH=${prefix})
run(${CMAKE_COMMAND} --build "${WORK_DIR}/pkg/build")
run(${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${prefix}/lib64" "${WORK_DIR}/pkg/build/pkg_app")
message(STATUS "CANN-style project, set_env.sh and find_package(AscendSim) all work")
