#pragma once
// How long the runtime waits for a sign of life from other threads before it calls a wait that
// only they could end a deadlock: ASCENDSIM_DEADLOCK_PATIENCE seconds, 2 by default (`ascendsim
// exec --shared` makes it 10 for the job unless it is set). Declared once for the waits of the
// program's threads (runtime/core/host_threads.cpp) and the grace a data channel or queue call of
// a served program's thread gives threads not known yet (runtime/api/tdt_wait.h).

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

namespace ascendsim::runtime {

// Whether `text` is a positive number of seconds, all of it ("0.5", "10"; not "", "0", "5s").
inline bool isPositiveSeconds(const char* text) {
  if (!text || !*text) return false;
  char* end = nullptr;
  const double seconds = std::strtod(text, &end);
  return end && *end == '\0' && seconds > 0;
}

// The positive number of seconds the environment variable `name` holds, else `fallback`. A value
// that is set but not such a number is ignored with one warning per variable on stderr, not taken
// silently for the default (`ascendsim exec --shared` refuses it before the job starts).
inline double secondsFromEnv(const char* name, double fallback) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  if (isPositiveSeconds(text)) return std::strtod(text, nullptr);
  static std::mutex warnedLock;
  static std::set<std::string> warned;
  std::lock_guard<std::mutex> hold(warnedLock);
  if (warned.insert(name).second)
    std::fprintf(stderr, "ascendsim: %s=\"%s\" is not a positive number of seconds; using %g\n",
                 name, text, fallback);
  return fallback;
}

// Read at each use: a program may set it after it has started.
inline std::chrono::milliseconds deadlockPatience() {
  return std::chrono::milliseconds(
      static_cast<int64_t>(secondsFromEnv("ASCENDSIM_DEADLOCK_PATIENCE", 2.0) * 1000));
}

}  // namespace ascendsim::runtime
