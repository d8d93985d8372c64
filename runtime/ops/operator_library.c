/* libnnopbase.so, libopapi.so and libopapi_math.so: the names CANN's operator samples link.
 * AscendSim keeps the operator API inside libascendcl.so, next to the runtime it launches on;
 * these libraries carry only a dependency on it, so that CANN build files link unchanged and
 * a program that loads one of them by name (ctypes, dlopen) finds every aclnn symbol. */
typedef int ascendsim_operator_library_forwards_to_libascendcl;
