#pragma once
// Exit codes of the ascendsim command (documented in docs/cli.md).

namespace ascendsim::tools {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;    // the simulated program or workload failed
constexpr int kExitUsage = 2;      // bad command line
constexpr int kExitBadConfig = 3;  // the machine configuration is invalid

}  // namespace ascendsim::tools
