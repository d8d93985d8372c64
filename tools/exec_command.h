#pragma once
// `ascendsim exec [--config FILE] -- PROGRAM [ARGS...]`: runs a dynamically linked AscendCL
// program on the simulator.

#include <CLI/CLI.hpp>
#include <string>

namespace ascendsim::tools {

// Where AscendSim's libascendcl.so is: beside an installed ascendsim (<prefix>/bin/../lib64), else
// the build tree this ascendsim was built in.
std::string ascendclLibraryDirectory();
// Puts that directory first on LD_LIBRARY_PATH, so programs started from here run on the simulator.
void useSimulatorLibrary();

}  // namespace ascendsim::tools
