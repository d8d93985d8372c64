# ascendc.cmake for AscendSim: builds Ascend C kernels for the host, so that CANN's samples
# (`include(${ASCENDC_CMAKE_DIR}/ascendc.cmake)` then `ascendc_library(kernels STATIC kernel.cpp)`)
# build unchanged. Each kernel source goes through ascendsim-ascendc-prep (launches `K<<<...>>>(...)`
# become calls of the simulator's launch function), then the host compiler, against
# kernel_operator.h and libascendcl.so of this installation.
cmake_minimum_required(VERSION 3.16)

# This file sits in <prefix>/tikcpp/ascendc_kernel_cmake, <prefix>/<arch>-linux/tikcpp/...,
# <prefix>/compiler/tikcpp/... or <prefix>/tools/tikcpp/... (where CANN's toolkits have kept it).
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

# host_intf_pub: what CANN's module gives the host programs of kernel-launch projects (they link
# it, often as $<BUILD_INTERFACE:host_intf_pub>): the toolkit's include directory and its lib64 as
# a link directory.
if(NOT TARGET host_intf_pub)
  add_library(host_intf_pub INTERFACE)
  target_include_directories(host_intf_pub INTERFACE "${_ascendsim_prefix}/include")
  target_link_directories(host_intf_pub INTERFACE "${_ascendsim_prefix}/lib64")
  target_link_libraries(host_intf_pub INTERFACE "${_ascendsim_prefix}/lib64/libascendcl.so")
endif()
# Host libraries of the toolkit that the vendor's kernel-launch templates link by name beside the
# kernel library (tiling_api, register, platform, ascendalog). Their own functions (host tiling,
# operator registration, platform queries, logging) are not provided by AscendSim; the names link
# the program against libascendcl.so, so a program that uses nothing of theirs links unchanged.
foreach(_toolkit_library tiling_api register platform ascendalog)
  if(NOT TARGET ${_toolkit_library})
    add_library(${_toolkit_library} INTERFACE IMPORTED GLOBAL)
    set_target_properties(${_toolkit_library} PROPERTIES
      INTERFACE_LINK_LIBRARIES "${_ascendsim_prefix}/lib64/libascendcl.so")
  endif()
endforeach()

# Runs each kernel source through ascendsim-ascendc-prep; sets OUT_SOURCES to the generated files
# and OUT_DIRS to the sources' directories. The launch headers aclrtlaunch_<kernel>.h go to
# HEADER_DIR: written once now, at configure time, so that a program including them compiles
# whatever the build order, and again whenever a kernel source changes.
function(_ascendsim_prepare_kernels name header_dir out_sources out_dirs)
  set(generated "")
  set(source_dirs "")
  file(MAKE_DIRECTORY "${header_dir}")
  foreach(src ${ARGN})
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(base "${src}" NAME_WE)
    # `#include "x.h"` in a kernel finds x.h beside it, as if it were compiled in place.
    get_filename_component(dir "${abs}" DIRECTORY)
    list(APPEND source_dirs "${dir}")
    set(out "${CMAKE_CURRENT_BINARY_DIR}/ascendc/${name}/${base}.host.cpp")
    file(MAKE_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/ascendc/${name}")
    set(prep "${ASCENDSIM_ASCENDC_PREFIX}/bin/ascendsim-ascendc-prep")
    # (A source generated at build time gets its headers when it is built.)
    if(EXISTS "${abs}")
      execute_process(COMMAND "${prep}" "${abs}" "${out}" "${header_dir}" "${out}.d" RESULT_VARIABLE prepared)
      if(NOT prepared EQUAL 0)
        message(FATAL_ERROR "ascendc.cmake: ascendsim-ascendc-prep failed on ${abs}")
      endif()
    endif()
    # The headers the kernel includes with quotes are rewritten too (their loops counted): the
    # depfile makes a change in one of them prepare the kernel again.
    set(depfile "")
    if(CMAKE_VERSION VERSION_GREATER_EQUAL 3.20 OR CMAKE_GENERATOR MATCHES "Ninja")
      set(depfile DEPFILE "${out}.d")
    endif()
    add_custom_command(OUTPUT "${out}"
      COMMAND "${prep}" "${abs}" "${out}" "${header_dir}" "${out}.d"
      DEPENDS "${abs}" "${prep}"
      ${depfile}
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
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  target_link_libraries(${name} PUBLIC "${ASCENDSIM_ASCENDC_PREFIX}/lib64/libascendcl.so")
endfunction()

# ascendc_library(NAME STATIC|SHARED|OBJECT SOURCES...), as CANN's: what links NAME gets the
# launch headers (<build>/include/NAME/aclrtlaunch_<kernel>.h, ACLRT_LAUNCH_KERNEL) and the
# toolkit's include directory (acl/*.h) on its include path, and lib64 as a link directory. The
# library is built in <build>/lib; `cmake --install` puts it in lib (or the install's libdir)
# and the launch headers in include/NAME, where the vendor's run scripts look for them (out/lib).
function(ascendc_library name type)
  string(TOUPPER "${type}" type)
  if(NOT type MATCHES "^(STATIC|SHARED|OBJECT)$")
    message(FATAL_ERROR "ascendc_library(${name}): type ${type} is not STATIC, SHARED or OBJECT")
  endif()
  set(header_dir "${CMAKE_BINARY_DIR}/include/${name}")
  _ascendsim_prepare_kernels(${name} "${header_dir}" generated source_dirs ${ARGN})
  add_library(${name} ${type} ${generated})
  _ascendsim_kernel_target(${name} "${source_dirs}")
  target_include_directories(${name} INTERFACE "${header_dir}" "${ASCENDSIM_ASCENDC_PREFIX}/include")
  target_link_directories(${name} PUBLIC "${ASCENDSIM_ASCENDC_PREFIX}/lib64")
  if(type STREQUAL "OBJECT")
    return()
  endif()
  set_target_properties(${name} PROPERTIES
    ARCHIVE_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/lib" LIBRARY_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/lib")
  include(GNUInstallDirs)
  install(TARGETS ${name} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(DIRECTORY "${header_dir}" DESTINATION include)
endfunction()

# The companions CANN's module offers for kernel targets: ascendc_X(NAME [PRIVATE|PUBLIC|INTERFACE]
# ITEMS...), the scope optional (CANN's take one; the kernels' own compilation is what they
# change either way).
macro(_ascendsim_drop_scope items)
  if(${items})
    list(GET ${items} 0 _first)
    if(_first MATCHES "^(PRIVATE|PUBLIC|INTERFACE)$")
      list(REMOVE_AT ${items} 0)
    endif()
  endif()
endmacro()
function(ascendc_include_directories name)
  set(items ${ARGN})
  _ascendsim_drop_scope(items)
  target_include_directories(${name} PRIVATE ${items})
endfunction()
function(ascendc_compile_definitions name)
  set(items ${ARGN})
  _ascendsim_drop_scope(items)
  target_compile_definitions(${name} PRIVATE ${items})
endfunction()
function(ascendc_compile_options name)
  set(items ${ARGN})
  _ascendsim_drop_scope(items)
  # What follows -forward-options-to-host-compiler is for the host compiler: it is the only one.
  list(REMOVE_ITEM items -forward-options-to-host-compiler)
  target_compile_options(${name} PRIVATE ${items})
endfunction()

# ascendc_fatbin_library(NAME SOURCES...): the kernels as a binary the program loads at run time
# (aclrtBinaryLoadFromFile, aclrtBinaryGetFunction, aclrtLaunchKernelWithConfig), where CANN's
# samples look for it: installed as <install prefix>/fatbin/NAME/NAME.o (a shared object the
# runtime opens; every kernel defined in the sources is found by its name).
function(ascendc_fatbin_library name)
  _ascendsim_prepare_kernels(${name} "${CMAKE_BINARY_DIR}/include/${name}" generated source_dirs ${ARGN})
  add_library(${name} MODULE ${generated})
  _ascendsim_kernel_target(${name} "${source_dirs}")
  set_target_properties(${name} PROPERTIES PREFIX "" SUFFIX ".o"
    LIBRARY_OUTPUT_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}/fatbin/${name}")
  install(TARGETS ${name} LIBRARY DESTINATION fatbin/${name})
endfunction()
