#pragma once
// One SystemC process runs every device's scheduler when it is due. Schedulers due at the same
// instant run in device order, whatever order they asked to be woken in, so that what happens at
// one instant does not depend on the history of SystemC's event queue (two runs that reach the
// same state by different paths, piece by piece or in runs, go on alike).

#include <functional>
#include <limits>
#include <systemc>
#include <vector>

#include "models/task/sim_time.h"

namespace ascendsim::models {

using spec::Picoseconds;

class MachineClock : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(MachineClock);
  explicit MachineClock(sc_core::sc_module_name name);

  // Adds a device whose `dispatch` runs when it is due; returns its index.
  int add(std::function<void()> dispatch);
  // Device `device` is due at `when` (the earliest asked wins; the past means now).
  void wakeAt(int device, Picoseconds when);

 private:
  void run();
  static constexpr Picoseconds kNever = std::numeric_limits<Picoseconds>::max();
  std::vector<std::function<void()>> dispatch_;
  std::vector<Picoseconds> due_;
  Picoseconds notified_ = kNever;  // when the event is due
  sc_core::sc_event event_;
};

}  // namespace ascendsim::models
