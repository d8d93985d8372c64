#include "models/system/simulated_system.h"

#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace ascendsim::models {
namespace {
bool gElaborated = false;  // SystemC's kernel is process-wide; so is this fact about it.
}

bool SimulatedSystem::elaborated() {
  return gElaborated;
}

SimulatedSystem::SimulatedSystem(const spec::SystemSpec& spec) : spec_(spec) {
  if (gElaborated) throw std::logic_error("the SystemC model can be elaborated once per process");
  gElaborated = true;
  // The banner would mix into the simulated program's own output.
  setenv("SYSC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  sc_core::sc_set_time_resolution(1, sc_core::SC_PS);
  graph_ = std::make_unique<MachineGraph>(spec_);
  router_ = std::make_unique<Router>(*graph_);
  clock_ = std::make_unique<MachineClock>("machine_clock");
  for (size_t i = 0; i < spec_.devices.size(); ++i) {
    const std::string& model = spec_.devices[i].dma.model;
    auto& timing = timings_[model];
    if (!timing) timing = makeTransferTiming(model, spec_, *graph_, *router_);
    const std::string name = spec_.devices[i].name + "_scheduler";
    devices_.push_back(std::make_unique<DeviceScheduler>(name.c_str(), spec_.devices[i],
                                                         static_cast<int>(i), *timing, *clock_));
  }
  // An event recorded on one device may release a wait on any device.
  for (auto& d : devices_) {
    d->setRecordObserver([this] {
      for (auto& other : devices_) other->wake();
    });
  }
  std::vector<DeviceScheduler*> schedulers;
  for (auto& d : devices_) schedulers.push_back(d.get());
  machineRun_ = std::make_unique<MachineRun>(std::move(schedulers));
  const char* runs = std::getenv("ASCENDSIM_PIECE_RUNS");
  setPieceRuns(!(runs && std::string(runs) == "0"));
  sc_core::sc_start(sc_core::SC_ZERO_TIME);  // finish elaboration; the kernel now waits for work
}

void SimulatedSystem::setPieceRuns(bool on) {
  for (auto& d : devices_) {
    d->setPieceRuns(on);
    d->setMachineRun(on ? machineRun_.get() : nullptr);
  }
}

uint64_t SimulatedSystem::piecesInRuns() const {
  uint64_t n = machineRun_->piecesInRuns();
  for (const auto& d : devices_) n += d->piecesInRuns();
  return n;
}

void SimulatedSystem::setTrafficObserver(MemoryTrafficObserver* observer) {
  for (auto& [model, timing] : timings_) timing->setTrafficObserver(observer);
}

void SimulatedSystem::addListener(TaskListener* listener) {
  for (auto& d : devices_) d->addListener(listener);
}

bool SimulatedSystem::runUntil(const std::function<bool()>& done) {
  while (!done()) {
    if (!sc_core::sc_pending_activity()) return false;
    sc_core::sc_start(sc_core::sc_time_to_pending_activity());
  }
  return true;
}

bool SimulatedSystem::runUntil(const std::function<bool()>& done, Picoseconds deadline) {
  while (!done()) {
    if (!sc_core::sc_pending_activity()) return false;
    const Picoseconds next =
        simNow() + static_cast<Picoseconds>(sc_core::sc_time_to_pending_activity().value());
    if (next > deadline) return false;
    sc_core::sc_start(sc_core::sc_time_to_pending_activity());
  }
  return true;
}

Picoseconds SimulatedSystem::nextEventTime() const {
  if (!sc_core::sc_pending_activity()) return std::numeric_limits<Picoseconds>::max();
  return simNow() + static_cast<Picoseconds>(sc_core::sc_time_to_pending_activity().value());
}

void SimulatedSystem::runTo(Picoseconds t) {
  while (sc_core::sc_pending_activity()) {
    const Picoseconds next =
        simNow() + static_cast<Picoseconds>(sc_core::sc_time_to_pending_activity().value());
    if (next > t) break;
    sc_core::sc_start(sc_core::sc_time_to_pending_activity());
  }
}

}  // namespace ascendsim::models
