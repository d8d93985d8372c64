# ascendc.cmake for AscendSim: builds Ascend C kernels for the host, so that CANN's samples
# (`include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)` then `ascendc_library(kernels STATIC kernel.cpp)`)
# build unchanged. Each kernel source goes through ascendsim-ascendc-prep (launches `K<<<...>>>(...)`
# become calls of the simulator's launch function), then the host compiler, against
# kernel_operator.h and libascendcl.so of this installation.
cmake_minimum_required(VERSION 3.16)

# This file sits in <prefix>/tikcpp/ascendc_kernel_cmake or <prefix>/<arch>-linux/tikcpp/...
set(_ascendsim_prefix "")
foreach(_up "../.." "../../..")
  get_filename_component(_candidate "${CMAKE_CURRENT_LIST_DIR}/${_up}" ABSOLUTE)
  if(NOT _ascendsim_prefix AND EXISTS "${_candidate}/include/kernel_operator.h")
    set(_ascendsim_prefix "${_candidate}")
  endif()
endforeach()
if(NOT _ascendsim_prefix)
  message(FATAL_ERROR "ascendc.cmake: no AscendSim installation around ${CMAKE_CURRENT_LIST_DIR}")
endif()
set(ASCENDSIM_ASCENDC_PREFIX "${_ascendsim_prefix}" CACHE INTERNAL "AscendSim installation of ascendc.cmake")
if(NOT ASCEND_CANN_PACKAGE_PATH)
  set(ASCEND_CANN_PACKAGE_PATH "${_ascendsim_prefix}")
endif()
if(NOT CMAKE_CXX_COMPILER_LOADED)
  enable_language(CXX)
endif()

# Runs each kernel source through ascendsim-ascendc-prep; sets OUT_SOURCES to the generated files
# and OUT_DIRS to the sources' directories.
function(_ascendsim_prepare_kernels name out_sources out_dirs)
  set(generated "")
  set(source_dirs "")
  foreach(src ${ARGN})
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(base "${src}" NAME_WE)
    # `#include "x.h"` in a kernel finds x.h beside it, as if it were compiled in place.
    get_filename_component(dir "${abs}" DIRECTORY)
    list(APPEND source_dirs "${dir}")
    set(out "${CMAKE_CURRENT_BINARY_DIR}/ascendc/${name}/${base}.host.cpp")
    file(MAKE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/ascendc/${name}")
    add_custom_command(OUTPUT "${out}"
      COMMAND "${ASCENDSIM_ASCENDC_PREFIX}/bin/ascendsim-ascendc-prep" "${abs}" "${out}"
      DEPENDS "${abs}" "${ASCENDSIM_ASCENDC_PREFIX}/bin/ascendsim-ascendc-prep"
      COMMENT "Ascend C kernel ${src} for the simulator")
    list(APPEND generated "${out}")
  endforeach()
  list(REMOVE_DUPLICATES source_dirs)
  set(${out_sources} ${generated} PARENT_SCOPE)
  set(${out_dirs} ${source_dirs} PARENT_SCOPE)
endfunction()

function(_ascendsim_kernel_target name source_dirs)
  target_include_directories(${name} PRIVATE ${source_dirs} "${ASCENDSIM_ASCENDC_PREFIX}/include" "${CMAKE_CURRENT_SOURCE_DIR}")
  target_compile_features(${name} PRIVATE cxx_std_17)
  # Every basic block the kernel's scalar code runs is counted by the runtime (its timing).
  target_compile_options(${name} PRIVATE -fsanitize-coverage=trace-pc)
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(${name} PUBLIC "${ASCENDSIM_ASCENDC_PREFIX}/lib64/libascendcl.so")
endfunction()

# ascendc_library(NAME STATIC|SHARED|OBJECT SOURCES...)
function(ascendc_library name type)
  _ascendsim_prepare_kernels(${name} generated source_dirs ${ARGN})
  add_library(${name} ${type} ${generated})
  _ascendsim_kernel_target(${name} "${source_dirs}")
endfunction()

# The companions CANN's module offers for kernel targets.
function(ascendc_include_directories name)
  target_include_directories(${name} PRIVATE ${ARGN})
endfunction()
function(ascendc_compile_definitions name)
  target_compile_definitions(${name} PRIVATE ${ARGN})
endfunction()
function(ascendc_compile_options name)
  target_compile_options(${name} PRIVATE ${ARGN})
endfunction()

# ascendc_fatbin_library(NAME SOURCES...): the kernels as a binary the program loads at run time
# (aclrtBinaryLoadFromFile, aclrtBinaryGetFunction, aclrtLaunchKernelWithConfig), where CANN's
# samples look for it: installed as <install prefix>/fatbin/NAME/NAME.o (a shared object the
# runtime opens; every kernel defined in the sources is found by its name).
function(ascendc_fatbin_library name)
  _ascendsim_prepare_kernels(${name} generated source_dirs ${ARGN})
  add_library(${name} MODULE ${generated})
  _ascendsim_kernel_target(${name} "${source_dirs}")
  set_target_properties(${name} PROPERTIES PREFIX "" SUFFIX ".o"
    LIBRARY_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/fatbin/${name}")
  install(TARGETS ${name} LIBRARY DESTINATION fatbin/${name})
endfunction()
