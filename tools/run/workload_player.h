#pragma once
// Replays a workload through the public AscendCL API (libascendcl.so), exactly as a program would.

#include <string>

#include "tools/run/workload.h"

namespace ascendsim::tools {

// Runs `w`; returns an empty string on success, else what failed (with the step's location).
std::string playWorkload(const Workload& w);

}  // namespace ascendsim::tools
