#include "tools/progress_line.h"

#include <unistd.h>

#include <cstdio>
#include <utility>

namespace ascendsim::tools {

ProgressLine::ProgressLine(std::string what, uint64_t total, double scale, std::string unit)
    : what_(std::move(what)),
      unit_(std::move(unit)),
      total_(total),
      scale_(scale > 0 ? scale : 1),
      terminal_(::isatty(STDERR_FILENO) != 0) {}

ProgressLine::~ProgressLine() {
  if (shown_) std::fprintf(stderr, "\r\033[K");  // (the work is done: the line goes)
}

void ProgressLine::add(uint64_t done) {
  const uint64_t now = done_ += done;
  if (!terminal_ || total_ == 0) return;
  const auto at = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mutex_);
  if (shown_ && at - shownAt_ < std::chrono::milliseconds(500)) return;
  std::fprintf(stderr, "\r\033[K%s: %3.0f %% (%.0f of %.0f %s)", what_.c_str(),
               100.0 * static_cast<double>(now) / static_cast<double>(total_),
               static_cast<double>(now) / scale_, static_cast<double>(total_) / scale_,
               unit_.c_str());
  std::fflush(stderr);
  shown_ = true;
  shownAt_ = at;
}

}  // namespace ascendsim::tools
