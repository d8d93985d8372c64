#pragma once
// How long the runtime waits for a sign of life from other threads before it calls a wait that
// only they could end a deadlock: ASCENDSIM_DEADLOCK_PATIENCE seconds, 2 by default (`ascendsim
// exec --shared` makes it 10 for the job unless it is set). Declared once for the waits of the
// program's threads (runtime/core/host_threads.cpp) and the grace a data channel or queue call of
// a served program's thread gives threads not known yet (runtime/api/tdt_wait.h).

#include <chrono>
#include <cstdint>
#include <cstdlib>

namespace ascendsim::runtime {

// The positive number of seconds the environment variable `name` holds, else `fallback`.
inline double secondsFromEnv(const char* name, double fallback) {
  if (const char* text = std::getenv(name); text && *text) {
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (end && *end == '\0' && seconds > 0) return seconds;
  }
  return fallback;
}

// Read at each use: a program may set it after it has started.
inline std::chrono::milliseconds deadlockPatience() {
  return std::chrono::milliseconds(
      static_cast<int64_t>(secondsFromEnv("ASCENDSIM_DEADLOCK_PATIENCE", 2.0) * 1000));
}

}  // namespace ascendsim::runtime
