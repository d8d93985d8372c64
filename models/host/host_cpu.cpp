#include "models/host/host_cpu.h"

#include <algorithm>

namespace ascendsim::models {

HostCpu::HostCpu(const spec::HostSpec& spec, ResourceTable& table)
    : table_(table), rate_(spec.cpuCopyBandwidth), cap_(spec.cpuCopyEngines) {
  // Thread 0's engine exists from the start, so a trace lists it even before any pageable copy.
  stagingEngine(0);
}

Resource& HostCpu::stagingEngine(int thread) {
  const size_t t = static_cast<size_t>(std::max(thread, 0));
  const size_t index = cap_ == 0 ? t : t % cap_;
  while (engines_.size() <= index) {
    const size_t n = engines_.size();
    engines_.push_back(
        &table_.add(n == 0 ? std::string("host.cpu-copy") : "host.cpu-copy." + std::to_string(n)));
  }
  return *engines_[index];
}

}  // namespace ascendsim::models
