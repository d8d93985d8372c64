#pragma once
// Where and when the transfer and kernel models touch a memory: what the DRAM statistics replay.

#include <cstdint>

#include "spec/units.h"

namespace ascendsim::models {

class MemoryTrafficObserver {
 public:
  static constexpr int kHostMemory = -1;
  virtual ~MemoryTrafficObserver() = default;
  // `memory`: kHostMemory, or the index of the device whose memory it is. The access's bytes flow
  // evenly over [start, end).
  virtual void memoryAccess(int memory, uint64_t address, uint64_t bytes, bool write,
                            spec::Picoseconds start, spec::Picoseconds end) = 0;
};

}  // namespace ascendsim::models
