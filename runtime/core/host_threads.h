#pragma once
// The host threads that call the runtime, each with its own simulated clock, and how one of them
// waits: it simulates while the machine can make progress, sleeps while another thread may still
// act, and reports a deadlock when neither can happen. Everything here runs under the runtime's
// lock; a call in progress registers its lock so waits and user callbacks can release it.

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "models/system/simulated_system.h"
#include "runtime/core/host_thread.h"

namespace ascendsim::runtime {

class HostThreads {
 public:
  // The calling thread's record, made at its first call with its clock at `now`.
  HostThread& current(spec::Picoseconds now);
  void remove(std::thread::id id);
  template <typename Visit>
  void forEach(Visit visit) {
    for (auto& entry : threads_) visit(entry.second);
  }

  // Brackets one API call of the calling thread, which holds `lock`.
  void beginCall(std::unique_lock<std::mutex>& lock);
  void endCall();
  // Threads the runtime itself runs (the signal watcher), never AscendCL callers.
  void addInternalThread() { ++internalThreads_; }
  // Wakes waiting threads: something they wait for may have changed.
  void changed() { changed_.notify_all(); }

  // Blocks `t` until `done()` holds, simulating `system` when it can. Returns false on a deadlock:
  // nothing left to simulate and no other thread of the process that could still act (every
  // AscendCL thread blocked in a wait that cannot end, and no other thread showing a sign of
  // life, a call or CPU time, for ASCENDSIM_DEADLOCK_PATIENCE seconds, 2 by default).
  bool waitFor(HostThread& t, models::SimulatedSystem& system, const std::function<bool()>& done);
  // Runs user code (a callback) without the lock: it may call AscendCL itself.
  void runUnlocked(const std::function<void()>& fn);

 private:
  bool othersMayAct(const HostThread& t) const;

  std::map<std::thread::id, HostThread> threads_;
  std::condition_variable changed_;  // a thread submitted work, blocked, or exited
  size_t internalThreads_ = 0;
};

}  // namespace ascendsim::runtime
