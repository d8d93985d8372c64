#pragma once
// Memory request traces in the formats the DRAM simulators of the field read, so the same trace
// runs on AscendSim's model and on theirs:
//  - DRAMSys "stl": `CYCLE: read 0xADDR` or `CYCLE: write 0xADDR [DATA]` (the time is ignored:
//    requests are issued as fast as the controller accepts them);
//  - Ramulator 2's load/store trace: `LD 0xADDR` or `ST 0xADDR`.
// Lines starting with '#' and empty lines are skipped. Addresses may be hex (0x...) or decimal.

#include <cstdint>
#include <string>
#include <vector>

namespace ascendsim::bench {

struct TraceRequest {
  uint64_t address = 0;
  bool write = false;
};

enum class TraceFormat { Detect, Stl, Ramulator };

// Reads `path`; on a malformed line returns false with `why` naming the file and line.
bool readTrace(const std::string& path, TraceFormat format, std::vector<TraceRequest>& out,
               std::string& why);

}  // namespace ascendsim::bench
