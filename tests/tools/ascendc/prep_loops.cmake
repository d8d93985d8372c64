# ctest script (issue #33): ascendsim-ascendc-prep puts a count in every loop condition of a
# kernel source and of the headers it includes with quotes from beside it, so that the kernel's
# scalar time does not depend on how the host compiler built it. PREP (the tool), SOURCE_DIR
# (tests/tools/ascendc/loops), INCLUDE_DIR (runtime/include), CXX, WORK.
include(${CMAKE_CURRENT_LIST_DIR}/../../run_checked.cmake)
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/headers")
set(out "${WORK}/kernel.host.cpp")
run("${PREP}" "${SOURCE_DIR}/kernel.cpp" "${out}" "${WORK}/headers" "${WORK}/kernel.d")
file(READ "${out}" text)
set(test "::ascendsim::ascendc::loopTest\\(\\)")
foreach(expected
    "#line 1 \"${SOURCE_DIR}/kernel.cpp\""
    # a for loop's condition; an empty one; a constexpr function's loop (counted only when run)
    "for \\(uint32_t i = 0; ${test} && \\( i < n\\); \\+\\+i\\) x \\+= Helper\\(i\\);"
    "for \\(; ${test};\\) {"
    "for \\(int i = 0; ${test} && \\( i < n\\); \\+\\+i\\) s \\+= i;"
    # a range-based for counts at the start of its body; while and do-while in the condition
    "for \\(int v : values\\) { ${test};"
    "while \\( ${test} && \\(x > 100\\)\\) x /= 2;"
    "} while \\( ${test} && \\(x < 5\\)\\);"
    # std::for_each, a comment and a string are not loops
    "std::for_each\\(values, values \\+ 3"
    "// for \\(a comment\\) is left alone"
    "\"while \\(1\\) in a string\""
    # the header beside the source is included from its rewritten copy
    "#include \"${WORK}/kernel.host.cpp.includes/0_helper.h\"")
  if(NOT text MATCHES "${expected}")
    message(FATAL_ERROR "the prepared kernel lacks '${expected}':\n${text}")
  endif()
endforeach()
file(READ "${WORK}/kernel.host.cpp.includes/0_helper.h" helper)
file(READ "${WORK}/kernel.host.cpp.includes/1_two.h" two)
if(NOT helper MATCHES "^#line 1 \"${SOURCE_DIR}/sub/helper.h\"\n"
   OR NOT helper MATCHES "while \\( ${test} && \\(i--\\)\\) r \\+= Two\\(\\);"
   OR NOT helper MATCHES "#include \"${WORK}/kernel.host.cpp.includes/1_two.h\""
   OR NOT two MATCHES "for \\(int k = 0; ${test} && \\( k < 2\\); k\\+\\+\\) t\\+\\+;")
  message(FATAL_ERROR "the rewritten headers:\n${helper}\n${two}")
endif()
# The depfile names the source and both headers (a change in a header prepares the kernel again).
file(READ "${WORK}/kernel.d" deps)
if(NOT deps MATCHES "^${out}: ${SOURCE_DIR}/kernel.cpp ${SOURCE_DIR}/sub/helper.h ${SOURCE_DIR}/sub/two.h")
  message(FATAL_ERROR "the depfile: ${deps}")
endif()
# What comes out compiles, warnings as errors, at -O0 and at -O2 (the constexpr loop included).
foreach(level -O0 -O2)
  run("${CXX}" -std=c++17 ${level} -Wall -Wextra -Werror -fsyntax-only -I "${INCLUDE_DIR}" "${out}")
endforeach()
message(STATUS "loops counted in the source and its headers; the result compiles at -O0 and -O2")
