#pragma once
// What a run does with the bytes it simulates moving: ASCENDSIM_DATA=full (the default) moves and
// computes every byte, as a program expects; timing-only moves none (copies, fills, reductions and
// operator arithmetic take their time and leave memory as it was), so a study of large transfers
// needs neither the memory nor the wall time the bytes would (docs/performance.md). Ascend C
// kernels still run their code, on whatever device memory holds.

#include <string>

namespace ascendsim::runtime {

enum class DataMode { Full, TimingOnly };

// The mode ASCENDSIM_DATA asks for, read once; `error` says what is wrong with a value that is
// neither (then the mode is Full, and aclInit refuses the run).
DataMode dataMode();
const std::string& dataModeError();
inline bool movesData() {
  return dataMode() == DataMode::Full;
}

}  // namespace ascendsim::runtime
