#pragma once
// How far a long piece of work has got, on one line of stderr redrawn at most every half second
// ("ascendsim run: 45 % (120000 of 270000 steps)") and erased when the work ends; only on a
// terminal: a pipe or a log file gets nothing (no carriage returns in it). Safe to update from
// several threads.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace ascendsim::tools {

class ProgressLine {
 public:
  // `what` starts the line; `scale` divides the counts as shown, named `unit` ("MB", "steps").
  ProgressLine(std::string what, uint64_t total, double scale, std::string unit);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  void add(uint64_t done);  // `done` more of the total

 private:
  const std::string what_, unit_;
  const uint64_t total_;
  const double scale_;
  const bool terminal_;
  std::atomic<uint64_t> done_{0};
  std::mutex mutex_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point shownAt_{};
};

}  // namespace ascendsim::tools
