#include "runtime/core/host_threads.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>

namespace ascendsim::runtime {
namespace {
thread_local std::unique_lock<std::mutex>* tActiveLock = nullptr;  // the calling thread's, in a call
}

HostThread& HostThreads::current(spec::Picoseconds now) {
  const std::thread::id id = std::this_thread::get_id();
  auto it = threads_.find(id);
  if (it != threads_.end()) return it->second;
  HostThread& t = threads_[id];
  t.id = id;
  t.pthreadId = static_cast<uint64_t>(pthread_self());
  t.index = static_cast<uint32_t>(threads_.size() - 1);
  t.now = now;
  return t;
}

void HostThreads::remove(std::thread::id id) {
  threads_.erase(id);
  changed_.notify_all();
}

void HostThreads::beginCall(std::unique_lock<std::mutex>& lock) { tActiveLock = &lock; }

void HostThreads::endCall() {
  changed_.notify_all();
  tActiveLock = nullptr;
}

bool HostThreads::othersMayAct(const HostThread& t) const {
  return std::any_of(threads_.begin(), threads_.end(), [&](const auto& kv) {
    const HostThread& other = kv.second;
    if (kv.first == t.id) return false;
    // A blocked thread whose condition has come true is about to act.
    return !other.blocked || (other.waitingOn && (*other.waitingOn)());
  });
}

namespace {
// Threads of this process, as the kernel lists them.
size_t processThreads() {
  std::error_code ec;
  size_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", ec); !ec && it != std::filesystem::directory_iterator();
       it.increment(ec)) {
    ++n;
  }
  return n;
}

// CPU time the other threads of the process used, in ns.
int64_t othersCpuNs() {
  timespec process{}, self{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &process);
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &self);
  return (process.tv_sec - self.tv_sec) * 1000000000LL + (process.tv_nsec - self.tv_nsec);
}

// How long other threads may show no sign of life before a wait that only they could end is
// called a deadlock: ASCENDSIM_DEADLOCK_PATIENCE seconds, 2 by default.
std::chrono::milliseconds patience() {
  if (const char* text = std::getenv("ASCENDSIM_DEADLOCK_PATIENCE"); text && *text) {
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (end && *end == '\0' && seconds > 0) return std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000));
  }
  return std::chrono::milliseconds(2000);
}
}  // namespace

bool HostThreads::waitFor(HostThread& t, models::SimulatedSystem& system, const std::function<bool()>& done) {
  using Clock = std::chrono::steady_clock;
  const auto patienceLimit = patience();
  auto quietSince = Clock::now();
  int64_t cpu = othersCpuNs();
  for (;;) {
    if (system.runUntil(done)) return true;
    // Threads the runtime has not seen (no AscendCL call yet), or that are busy outside it, may
    // still act; the ones blocked in a wait that cannot end may not. (The kernel's thread list is
    // read only when the known threads cannot act: every other thread's call wakes this loop.)
    if (!othersMayAct(t) && processThreads() <= threads_.size() + internalThreads_) return false;
    t.blocked = true;
    t.waitingOn = &done;
    changed_.notify_all();
    std::unique_lock<std::mutex>* lock = tActiveLock;
    const bool woken = changed_.wait_for(*lock, std::chrono::milliseconds(100)) == std::cv_status::no_timeout;
    tActiveLock = lock;
    t.blocked = false;
    t.waitingOn = nullptr;
    // A call, or CPU time spent by another thread, is a sign of life; none for the whole patience
    // means every thread that could end this wait is stuck (asleep, in join(), ...).
    const int64_t nowCpu = othersCpuNs();
    if (woken || nowCpu - cpu > 1000000) quietSince = Clock::now();
    cpu = nowCpu;
    if (Clock::now() - quietSince > patienceLimit) return false;
  }
}

void HostThreads::runUnlocked(const std::function<void()>& fn) {
  std::unique_lock<std::mutex>* lock = tActiveLock;
  lock->unlock();
  try {
    fn();
  } catch (...) {
    lock->lock();
    tActiveLock = lock;
    throw;
  }
  lock->lock();
  tActiveLock = lock;
}

}  // namespace ascendsim::runtime
