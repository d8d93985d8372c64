#include "models/host/host_cpu.h"

#include <algorithm>

namespace ascendsim::models {

HostCpu::HostCpu(const spec::HostSpec& spec, ResourceTable& table)
    : table_(table), rate_(spec.cpuCopyBandwidth), cap_(spec.cpuCopyEngines) {
  // Thread 0's engine exists from the start, so a trace lists it even before any pageable copy.
  stagingEngine(0);
}

Resource& HostCpu::stagingEngine(int thread) {
  const int t = std::max(thread, 0);
  if (auto it = byThread_.find(t); it != byThread_.end()) return *it->second;
  const size_t k = byThread_.size();
  const size_t core = cap_ == 0 ? k : k % cap_;
  if (core == engines_.size()) {
    engines_.push_back(&table_.add(core == 0 ? std::string("host.cpu-copy")
                                             : "host.cpu-copy." + std::to_string(core)));
  }
  return *(byThread_[t] = engines_[core]);
}

}  // namespace ascendsim::models
