# ctest script: install AscendSim into a fresh prefix, copy the vendor-style kernel-launch project
# (PROJECT) into WORK_DIR and run its own run.sh there, as a user would after sourcing the
# toolkit's set_env.sh: `bash run.sh -v Ascend910B4`, then its CPU-debug build `bash run.sh -r cpu
# -v Ascend910B4`. Nothing in the project is edited.
# Variables: BUILD_DIR (AscendSim's build tree), PROJECT, WORK_DIR, SANITIZER_FLAGS (as in
# build_cann_style_project.cmake: a sanitizer build's projects must share its flags).
file(REMOVE_RECURSE "${WORK_DIR}")
if(SANITIZER_FLAGS)
  set(ENV{CFLAGS} "${SANITIZER_FLAGS}")
  set(ENV{CXXFLAGS} "${SANITIZER_FLAGS}")
  set(ENV{LDFLAGS} "-fsanitize=address,undefined")
  set(ENV{ASAN_OPTIONS} "detect_leaks=0:abort_on_error=1")
endif()
set(prefix "${WORK_DIR}/prefix")
set(RUN_TIMEOUT 600)
include(${CMAKE_CURRENT_LIST_DIR}/../run_checked.cmake)

run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")
file(COPY "${PROJECT}/" DESTINATION "${WORK_DIR}/project")
set(project "${WORK_DIR}/project")

# A SoC the script does not know is refused before anything is built.
execute_process(COMMAND bash -c "source '${prefix}/set_env.sh' && bash run.sh -v Ascend999"
                WORKING_DIRECTORY "${project}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT out MATCHES "-v takes one of")
  message(FATAL_ERROR "run.sh -v Ascend999 was not refused (${rc}): ${out}${err}")
endif()

run(bash -c "cd '${project}' && source '${prefix}/set_env.sh' && bash run.sh -v Ascend910B4")
# The kernel library and its launch headers where the template's install rules put them (out/lib,
# out/include/<library>), the program in out/bin.
foreach(f out/lib/libascendc_kernels_npu.so out/include/ascendc_kernels_npu/aclrtlaunch_add_custom.h
          out/include/ascendc_kernels_npu/aclrtlaunch_scaled_add_custom.h out/bin/ascendc_kernels_bbit
          output/output_z.bin output/output_scaled.bin)
  if(NOT EXISTS "${project}/${f}")
    message(FATAL_ERROR "after run.sh, ${f} is missing:\n${last_output}")
  endif()
endforeach()
# x[i] = 0.5 (i mod 97), y[i] = 0.25 (i mod 13), 16384 elements over 8 blocks: every sum is a
# multiple of 0.25 far below 2^24, exact in float32, so all 16384 must match the host's arithmetic.
# add_custom: z[100] = 0.5 x 3 + 0.25 x 9 = 3.75; z[16383] = 0.5 x 87 + 0.25 x 3 = 44.25.
# scaled_add_custom (alpha 3 from the tiling structure): z[100] = 3 x 1.5 + 2.25 = 6.75;
# z[16383] = 3 x 43.5 + 0.75 = 131.25.
foreach(expected "add_custom: z\\[0\\]=0 z\\[100\\]=3.75 z\\[16383\\]=44.25, 16384 of 16384 elements exact"
                 "scaled_add_custom: z\\[0\\]=0 z\\[100\\]=6.75 z\\[16383\\]=131.25, 16384 of 16384 elements exact"
                 "test pass" "[0-9a-f]+  output/output_z.bin")
  if(NOT last_output MATCHES "${expected}")
    message(FATAL_ERROR "run.sh printed, without '${expected}':\n${last_output}")
  endif()
endforeach()
string(REGEX MATCHALL "[0-9a-f]+  output/[a-z_]+\\.bin" npu_sums "${last_output}")

# The CPU-debug build of the same project (-r cpu: cmake/cpu_lib.cmake, find_package(tikicpulib),
# ICPU_RUN_KF in main.cpp): the same results, the same output bytes.
run(bash -c "cd '${project}' && source '${prefix}/set_env.sh' && bash run.sh -r cpu -v Ascend910B4")
if(NOT EXISTS "${project}/out/lib/libascendc_kernels_cpu.so")
  message(FATAL_ERROR "run.sh -r cpu did not build the CPU-debug kernel library:\n${last_output}")
endif()
foreach(expected "add_custom: z\\[0\\]=0 z\\[100\\]=3.75 z\\[16383\\]=44.25, 16384 of 16384 elements exact"
                 "scaled_add_custom: z\\[0\\]=0 z\\[100\\]=6.75 z\\[16383\\]=131.25, 16384 of 16384 elements exact"
                 "test pass")
  if(NOT last_output MATCHES "${expected}")
    message(FATAL_ERROR "run.sh -r cpu printed, without '${expected}':\n${last_output}")
  endif()
endforeach()
string(REGEX MATCHALL "[0-9a-f]+  output/[a-z_]+\\.bin" cpu_sums "${last_output}")
if(NOT npu_sums OR NOT npu_sums STREQUAL cpu_sums)
  message(FATAL_ERROR "the CPU-debug outputs differ from the simulated NPU's: ${cpu_sums} against ${npu_sums}")
endif()
message(STATUS "the vendor-style kernel-launch project built and ran unchanged (npu and cpu): ${last_output}")
