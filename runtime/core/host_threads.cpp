#include "runtime/core/host_threads.h"

#include <pthread.h>

#include <algorithm>

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

bool HostThreads::waitFor(HostThread& t, models::SimulatedSystem& system, const std::function<bool()>& done) {
  for (;;) {
    if (system.runUntil(done)) return true;
    if (!othersMayAct(t)) return false;
    t.blocked = true;
    t.waitingOn = &done;
    changed_.notify_all();
    std::unique_lock<std::mutex>* lock = tActiveLock;
    changed_.wait(*lock);
    tActiveLock = lock;
    t.blocked = false;
    t.waitingOn = nullptr;
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
