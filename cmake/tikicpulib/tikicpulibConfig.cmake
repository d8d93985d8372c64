# tikicpulib for AscendSim: what the vendor templates' CPU-debug builds (`-r cpu`, cmake/cpu_lib.cmake)
# find with find_package(tikicpulib). Targets tikicpulib::<SoC> for every SoC (and for SOC_VERSION
# if the project set it): the installation's headers (kernel_operator.h, tikicpulib.h), the
# definition __CCE_KT_TEST__ that selects the CPU-debug code of a kernel and its host program, C++17,
# and libascendcl.so, whose AscendSim functions run the blocks (ICPU_RUN_KF). The names the templates
# link beside it: ascendcl (the same library), tiling_api, register, platform and ascendalog (as in
# ascendc.cmake) and c_sec, the toolkit's bounds-checked C string
# library, which AscendSim does not provide (a program calling memcpy_s and the like does not link).
# This file sits in <prefix>/tools/tikicpulib/lib/cmake or <prefix>/share/cmake/tikicpulib.
set(_tikicpulib_prefix "")
foreach(_up "../../../.." "../../..")
  get_filename_component(_candidate "${CMAKE_CURRENT_LIST_DIR}/${_up}" ABSOLUTE)
  if(NOT _tikicpulib_prefix AND EXISTS "${_candidate}/include/tikicpulib.h")
    set(_tikicpulib_prefix "${_candidate}")
  endif()
endforeach()
if(NOT _tikicpulib_prefix)
  set(tikicpulib_FOUND FALSE)
  set(tikicpulib_NOT_FOUND_MESSAGE "no AscendSim installation around ${CMAKE_CURRENT_LIST_DIR}")
  return()
endif()

set(_tikicpulib_socs Ascend910A Ascend910B Ascend910ProA Ascend910ProB Ascend910PremiumA
    Ascend910B1 Ascend910B2 Ascend910B3 Ascend910B4 Ascend910_9391 Ascend910_9392 Ascend910_9381
    Ascend910_9382 Ascend910_9372 Ascend910_9361 Ascend310P1 Ascend310P3 Ascend310B1 ${SOC_VERSION})
list(REMOVE_DUPLICATES _tikicpulib_socs)
foreach(_soc ${_tikicpulib_socs})
  if(NOT TARGET tikicpulib::${_soc})
    add_library(tikicpulib::${_soc} INTERFACE IMPORTED)
    set_target_properties(tikicpulib::${_soc} PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${_tikicpulib_prefix}/include"
      INTERFACE_COMPILE_DEFINITIONS "__CCE_KT_TEST__=1"
      INTERFACE_COMPILE_FEATURES cxx_std_17
      INTERFACE_LINK_DIRECTORIES "${_tikicpulib_prefix}/lib64"
      INTERFACE_LINK_LIBRARIES "${_tikicpulib_prefix}/lib64/libascendcl.so")
  endif()
endforeach()
# The toolkit's host libraries the templates link by name in every mode (as in ascendc.cmake).
foreach(_toolkit_library tiling_api register platform ascendalog)
  if(NOT TARGET ${_toolkit_library})
    add_library(${_toolkit_library} INTERFACE IMPORTED GLOBAL)
    set_target_properties(${_toolkit_library} PROPERTIES
      INTERFACE_LINK_LIBRARIES "${_tikicpulib_prefix}/lib64/libascendcl.so")
  endif()
endforeach()
if(NOT TARGET ascendcl)
  add_library(ascendcl INTERFACE IMPORTED)
  set_target_properties(ascendcl PROPERTIES INTERFACE_LINK_LIBRARIES "${_tikicpulib_prefix}/lib64/libascendcl.so")
endif()
if(NOT TARGET c_sec)
  add_library(c_sec INTERFACE IMPORTED)
endif()
set(tikicpulib_FOUND TRUE)
