#pragma once
// Measures copies (and device kernels) on the simulated machine, as nvbandwidth or bandwidthTest
// do on a real one.
// Copies of one measurement start together; each is timed from its submission to its last byte
// (task launch and DMA setup included, so small copies show their latency).

#include <memory>
#include <string>
#include <vector>

#include "models/system/simulated_system.h"
#include "runtime/trace/trace_recorder.h"
#include "spec/system_spec.h"

namespace ascendsim::tools {

struct CopyRequest {
  int engine;  // the device whose DMA moves it (or whose AI Cores run `kernel`)
  models::MemoryPlace src, dst;
  uint64_t bytes;
  models::KernelWork kernel = {};  // named: a kernel on the engine's AI Cores instead of a copy
};

class BandwidthRunner {
 public:
  models::SimulatedSystem& system() { return system_; }
  BandwidthRunner(const spec::SystemSpec& sys, const std::string& tracePath);
  ~BandwidthRunner();
  // Runs the copies at once; returns how long each took.
  std::vector<spec::Picoseconds> runTogether(const std::vector<CopyRequest>& copies);
  const spec::SystemSpec& spec() const { return sys_; }

 private:
  spec::SystemSpec sys_;
  models::SimulatedSystem system_;
  std::vector<std::unique_ptr<models::StreamQueue>> streams_;
  runtime::TraceRecorder trace_;
  uint64_t nextTask_ = 1;
};

}  // namespace ascendsim::tools
