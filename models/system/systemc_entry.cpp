// libsystemc's own main() refers to sc_main. AscendSim drives the kernel from the runtime and
// never lets that main() run, but the symbol must exist for programs to link. This object is
// linked into libascendcl.so and into test programs (not archived, so it is never dropped).

#include <systemc>

extern "C" __attribute__((visibility("default"))) int sc_main(int, char*[]) {
  SC_REPORT_ERROR("ascendsim", "sc_main is not an entry point of AscendSim");
  return 1;
}
