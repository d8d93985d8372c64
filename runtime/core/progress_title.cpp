#include "runtime/core/progress_title.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace ascendsim::runtime {
namespace {
void say(const char* text) {
  const size_t n = std::strlen(text);
  // The title is a courtesy: a failed write changes nothing the run computes.
  if (::write(STDERR_FILENO, text, n) < 0) return;
}
}  // namespace

ProgressTitle::ProgressTitle() {
  const char* mode = std::getenv("ASCENDSIM_PROGRESS");
  enabled_ = mode && std::strcmp(mode, "title") == 0 && ::isatty(STDERR_FILENO);
}

void ProgressTitle::callEnded(spec::Picoseconds now) {
  if (!enabled_) return;
  ++calls_;
  furthest_ = std::max(furthest_, now);
  // The clock read every 64 calls only: a call costs a few hundred nanoseconds.
  if (shown_ && calls_ % 64 != 0) return;
  const auto wall = std::chrono::steady_clock::now();
  if (shown_ && wall - shownAt_ < std::chrono::milliseconds(500)) return;
  shownAt_ = wall;
  show();
}

void ProgressTitle::show() {
  if (!shown_) say("\033[22;0t");  // save the terminal's title
  shown_ = true;
  char text[160];
  std::snprintf(text, sizeof text, "\033]2;ascendsim: %.3f ms simulated, %llu calls\007",
                static_cast<double>(furthest_) / 1e9, static_cast<unsigned long long>(calls_));
  say(text);
}

void ProgressTitle::finish() {
  if (!shown_) return;
  say("\033[23;0t");  // the saved title back
  shown_ = false;
  enabled_ = false;
}

}  // namespace ascendsim::runtime
