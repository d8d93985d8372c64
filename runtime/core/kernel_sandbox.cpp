#include "runtime/core/kernel_sandbox.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>

namespace ascendsim::runtime::sandbox {
namespace {
thread_local const std::string* tKernel = nullptr;
std::atomic<bool> gStopAll{false};
std::atomic<bool> gBlockRunning{false};
std::atomic<pthread_t> gBlockThread{};

double seconds(const char* name, double fallback, std::string& error) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text, &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v) || v < 0 || v > 1e9) {
    if (error.empty()) {
      error = std::string(name) + " is '" + text +
              "': a number of seconds, at least 0 (0: no limit) and at most 1e9";
    }
    return fallback;
  }
  return v;
}
}  // namespace

KernelScope::KernelScope(const std::string& name) : outer_(tKernel) {
  tKernel = &name;
}

KernelScope::~KernelScope() {
  tKernel = outer_;
}

const std::string* runningKernel() {
  return tKernel;
}

int interruptSignal() {
  return SIGRTMIN + 3;
}

void blockStarted() {
  gBlockThread.store(pthread_self());
  gBlockRunning.store(true);
}

void blockEnded() {
  gBlockRunning.store(false);
}

void stopKernels() {
  gStopAll.store(true);
  // Told twice: at once (it stops at its next instruction the simulator sees) and after the grace
  // (it is abandoned where it is).
  for (int i = 0; i < 2 && gBlockRunning.load(); ++i) {
    pthread_kill(gBlockThread.load(), interruptSignal());
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

bool kernelsStopped() {
  return gStopAll.load();
}

namespace {
bool gLibraryReady = false;  // (zero-initialised before any constructor runs)
// The engine's constructors run after those of the libraries it needs (the C++ library's).
__attribute__((constructor)) void markLibraryReady() {
  gLibraryReady = true;
}
}  // namespace

bool libraryReady() {
  return gLibraryReady;
}

int refuseEarly(const char* api) {
  static const char text[] =
      " called before AscendSim's libraries were initialised (from a preinit function or a "
      "library constructor the loader runs before theirs): refused with ACL_ERROR_UNINITIALIZE; "
      "call it from main, or from a constructor of a library that links libascendcl.so\n";
  const char* parts[] = {"ascendsim: ", api ? api : "an AscendCL call", text};
  for (const char* part : parts) {
    size_t n = 0;
    while (part[n]) ++n;
    if (::write(2, part, n) < 0) break;
  }
  return 100001;  // ACL_ERROR_UNINITIALIZE
}

const KernelLimits& kernelLimits() {
  static const KernelLimits limits = [] {
    KernelLimits l;
    l.simulatedSeconds = seconds("ASCENDSIM_KERNEL_TIMEOUT", l.simulatedSeconds, l.error);
    l.wallSeconds = seconds("ASCENDSIM_KERNEL_WALL_TIMEOUT", l.wallSeconds, l.error);
    return l;
  }();
  return limits;
}

}  // namespace ascendsim::runtime::sandbox
