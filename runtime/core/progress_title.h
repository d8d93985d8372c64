#pragma once
// How far a program run by `ascendsim exec` has got, in the terminal's title ("ascendsim: 12.3 ms
// simulated, 45000 calls"): the program owns the terminal's lines, so a progress line redrawn
// under its output would garble it, while the title is out of its way. Only when
// ASCENDSIM_PROGRESS=title (exec sets it when its stderr is a terminal) and stderr is a
// terminal; redrawn at most twice a second; the terminal's own title is saved first and put back
// at the end (xterm's title stack, which terminals without one ignore).

#include <chrono>
#include <cstdint>

#include "spec/units.h"

namespace ascendsim::runtime {

class ProgressTitle {
 public:
  ProgressTitle();
  // After each call: `now` is the simulated time the calling thread has reached.
  void callEnded(spec::Picoseconds now);
  // The run's end: the terminal's title as it was.
  void finish();

 private:
  void show();
  bool enabled_ = false, shown_ = false;
  uint64_t calls_ = 0;
  spec::Picoseconds furthest_ = 0;
  std::chrono::steady_clock::time_point shownAt_{};
};

}  // namespace ascendsim::runtime
