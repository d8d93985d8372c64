#pragma once
// The elaborated SystemC model of a whole machine, and the loop that advances simulated time on
// behalf of host threads. SystemC elaborates once per process, so there is at most one.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/dma/transfer_timing.h"
#include "models/machine/machine_graph.h"
#include "models/machine/router.h"
#include "models/sched/device_scheduler.h"
#include "models/sched/machine_clock.h"
#include "models/sched/machine_run.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

class SimulatedSystem {
 public:
  explicit SimulatedSystem(const spec::SystemSpec& spec);
  SimulatedSystem(const SimulatedSystem&) = delete;
  SimulatedSystem& operator=(const SimulatedSystem&) = delete;

  const spec::SystemSpec& spec() const { return spec_; }
  DeviceScheduler& device(size_t index) { return *devices_.at(index); }
  size_t deviceCount() const { return devices_.size(); }
  // Who hears about every memory access of every device's copies and kernels.
  void setTrafficObserver(MemoryTrafficObserver* observer);
  // The machine's components and the way between them: topology questions go to the router.
  MachineGraph& graph() { return *graph_; }
  Router& router() { return *router_; }
  void addListener(TaskListener* listener);
  // Copies that settle into a steady state on a way nobody else uses move the rest of their
  // pieces in one step (the same timing, far fewer steps). On unless ASCENDSIM_PIECE_RUNS=0.
  void setPieceRuns(bool on);
  // Pieces moved within runs rather than one by one, so far.
  uint64_t piecesInRuns() const;

  Picoseconds now() const { return simNow(); }
  // Simulates until `done()` holds. Returns false when nothing is left to simulate first: the
  // condition can then only change through the host (or never: a deadlock).
  bool runUntil(const std::function<bool()>& done);
  // As runUntil, but stops before anything later than `deadline`: returns false if `done()` does
  // not hold by then (nothing after the moment it holds is simulated).
  bool runUntil(const std::function<bool()>& done, Picoseconds deadline);
  // Simulates everything that happens up to and including time `t`.
  void runTo(Picoseconds t);
  // When the next thing happens; the largest Picoseconds value when nothing is left to simulate.
  Picoseconds nextEventTime() const;

  // Whether a SimulatedSystem was already elaborated in this process.
  static bool elaborated();

 private:
  spec::SystemSpec spec_;
  std::unique_ptr<MachineGraph> graph_;
  std::unique_ptr<Router> router_;
  // One timing object per `dma.model` in use; each device's scheduler uses its own device's.
  std::map<std::string, std::unique_ptr<TransferTiming>> timings_;
  std::unique_ptr<MachineClock> clock_;
  std::vector<std::unique_ptr<DeviceScheduler>> devices_;
  std::unique_ptr<MachineRun> machineRun_;  // after devices_: gone before them
};

}  // namespace ascendsim::models
