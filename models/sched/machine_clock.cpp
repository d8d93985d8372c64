#include "models/sched/machine_clock.h"

#include <algorithm>

namespace ascendsim::models {

MachineClock::MachineClock(sc_core::sc_module_name name) : sc_core::sc_module(name) {
  SC_METHOD(run);
  sensitive << event_;
  dont_initialize();
}

int MachineClock::add(std::function<void()> dispatch) {
  dispatch_.push_back(std::move(dispatch));
  due_.push_back(kNever);
  return static_cast<int>(dispatch_.size()) - 1;
}

void MachineClock::wakeAt(int device, Picoseconds when) {
  const Picoseconds now = simNow();
  when = std::max(when, now);
  Picoseconds& due = due_[static_cast<size_t>(device)];
  due = std::min(due, when);
  if (when < notified_) {
    notified_ = when;
    event_.notify(toScTime(when - now));
  }
}

void MachineClock::run() {
  const Picoseconds now = simNow();
  notified_ = kNever;
  // Every scheduler due now, in device order, until none is (one may wake another at this instant).
  for (bool any = true; any;) {
    any = false;
    for (size_t d = 0; d < due_.size(); ++d) {
      if (due_[d] > now) continue;
      due_[d] = kNever;
      dispatch_[d]();
      any = true;
    }
  }
  const Picoseconds next = *std::min_element(due_.begin(), due_.end());
  if (next != kNever && next < notified_) {
    notified_ = next;
    event_.notify(toScTime(next - now));
  }
}

}  // namespace ascendsim::models
