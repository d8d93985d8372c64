#pragma once
// The host CPU as the machine graph sees it: the cores that stage pageable copies through the
// runtime's pinned bounce buffer. The thread that calls a pageable copy does its staging, so each
// host thread has its own copy engine, unless `host.cpu_copy_engines` caps how many work at once.
// Cores are numbered in the order threads first stage (thread numbers can be sparse: a served
// job's are its processes' ranks shifted past their threads).

#include <map>
#include <string>
#include <vector>

#include "models/resource/resource.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

class HostCpu {
 public:
  HostCpu(const spec::HostSpec& spec, ResourceTable& table);
  // The core that stages copies for host thread `thread` (0 is the main thread; a negative
  // number, a thread not known, is taken for it): the k-th thread to stage gets core k, or core
  // k mod host.cpu_copy_engines.
  Resource& stagingEngine(int thread);
  double copyRate() const { return rate_; }

 private:
  ResourceTable& table_;
  double rate_;
  uint32_t cap_;  // 0: one engine per thread
  std::vector<Resource*> engines_;
  std::map<int, Resource*> byThread_;
};

}  // namespace ascendsim::models
