#include "models/dram/memory_timing.h"

namespace ascendsim::models {

std::unique_ptr<MemoryTiming> makeMemoryTiming(const spec::DramSpec& memory) {
  return kinds::Registry<MemoryTimingFactory>::instance().at("DRAM model", memory.model)(memory);
}

}  // namespace ascendsim::models
