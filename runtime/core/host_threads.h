#pragma once
// The host threads that call the runtime, each with its own simulated clock, and the order in
// which their calls reach the simulation. Calls are taken in order of simulated time, then of
// thread creation, never in the order the OS happens to run the threads, so a program gives the
// same trace and report on every run:
// - a call waits for its turn: every other thread that may still act earlier in simulated time
//   (a thread between calls whose clock is behind, a wait that ends or times out earlier) acts
//   first; a thread that sleeps outside AscendCL (join(), a mutex, sleep()) or has been busy
//   outside it for longer than ASCENDSIM_ORDER_PATIENCE seconds of CPU time is not waited for;
// - a thread waiting for the machine simulates it only up to the earliest moment another thread
//   may act, and stops as soon as the wait of another thread ends, which then goes first.
// A wait that nothing can end (nothing left to simulate, no other thread able to act) is a
// deadlock. Everything here runs under the runtime's lock; a call in progress registers its lock
// so waits and user callbacks can release it.

#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "models/system/simulated_system.h"
#include "runtime/core/host_thread.h"

namespace ascendsim::runtime {

class HostThreads {
 public:
  // The calling thread's record, made at its first call with its clock at `now`.
  HostThread& current(spec::Picoseconds now);
  // The calling thread's record if it has one; read without the lock (only by that thread).
  static HostThread* self();
  // Makes the calling thread the stand-in for thread `tid` of process `pid` (a program sharing
  // a served machine), ordered by `index`, its clock at `now`, its calls shown on `track`; it
  // sets `waitingOutside` while it waits in MPI.
  HostThread& enroll(uint32_t index, spec::Picoseconds now, pid_t pid, pid_t tid, HostTrack track,
                     const MpiWaits* waitingOutside, uint64_t reportId);
  // A thread the program has just created (pthread id `child`): it starts at its parent's clock
  // and is numbered after every thread made so far.
  void adopt(uint64_t child, const HostThread& parent);
  // The calling thread has started running (its kernel id is known from now on).
  void started(HostThread& t);
  // The thread has ended; its clock is kept for the thread that joins it.
  void remove(uint64_t pthreadId);
  // The clock thread `pthreadId` ended at, if it ended as a known thread (once).
  std::optional<spec::Picoseconds> takeExitClock(uint64_t pthreadId);
  size_t size() const { return threads_.size(); }
  template <typename Visit>
  void forEach(Visit visit) {
    for (auto& entry : threads_) visit(entry.second);
  }

  // Brackets one API call of the calling thread, which holds `lock`.
  void beginCall(std::unique_lock<std::mutex>& lock, HostThread& t);
  void endCall(HostThread& t);
  // Whether the calling thread is inside an API call (threads it creates then are the runtime's).
  static bool insideCall();
  // While one lives, threads the calling thread creates are the runtime's own (a served machine's
  // acceptor and connections), not the program's: they are not numbered or waited for.
  struct InternalThreads {
    InternalThreads();
    ~InternalThreads();
    InternalThreads(const InternalThreads&) = delete;
    InternalThreads& operator=(const InternalThreads&) = delete;
  };
  // Threads the runtime itself runs (the signal watcher), never AscendCL callers.
  void addInternalThread() { ++internalThreads_; }
  // Wakes waiting threads: something they wait for may have changed.
  void changed() { changed_.notify_all(); }

  // Waits until `t`'s call may run: no other thread may act earlier in simulated time, and the
  // machine has been simulated up to `t`'s clock. `system` may be null (before aclInit).
  void awaitTurn(HostThread& t, models::SimulatedSystem* system);

  enum class WaitEnd { Done, TimedOut, Deadlock };
  // Blocks `t` until `done()` holds, simulating `system` as far as the other threads allow.
  // With a deadline, it times out once the machine and every other thread are past it; without
  // one, it reports a deadlock when nothing is left to simulate and no other thread of the process
  // could still act (every AscendCL thread blocked in a wait that cannot end, and no other thread
  // showing a sign of life, a call, CPU time or being about to act, for
  // ASCENDSIM_DEADLOCK_PATIENCE seconds, 2 by default).
  WaitEnd waitFor(HostThread& t, models::SimulatedSystem& system, const std::function<bool()>& done,
                  spec::Picoseconds deadline = kNoDeadline);
  // Runs user code (a callback) without the lock: it may call AscendCL itself.
  void runUnlocked(HostThread& t, const std::function<void()>& fn);

 private:
  // Where a thread stands in the order of calls: simulated time, then creation order.
  struct Turn {
    spec::Picoseconds time;
    uint32_t index;
    bool operator<(const Turn& o) const { return time != o.time ? time < o.time : index < o.index; }
  };
  static constexpr Turn kNever{kNoDeadline, UINT32_MAX};

  // The earliest turn at which a thread other than `t` may act; `unsure` is set when a thread
  // that is behind may be asleep but has not been seen asleep long enough to tell.
  Turn earliestOther(const HostThread& t, models::SimulatedSystem* system, bool& unsure);
  bool sleepsOutside(const HostThread& t, HostThread& other, bool& unsure);
  // Whether a wait of another thread has ended and that thread has not resumed yet.
  bool anotherWaitEnded(const HostThread& t) const;
  // Another thread whose wait has ended and whose turn comes before `t`'s.
  bool earlierWaitEnded(const HostThread& t, models::SimulatedSystem& system) const;
  bool othersMayAct(const HostThread& t) const;
  // Whether a thread other than `t` is sure to act soon, however long a loaded machine keeps it
  // from a CPU: its wait has ended and it has still to resume, it is in a call or taking the lock
  // for one, or it has been created and not started yet.
  bool anotherAboutToAct(const HostThread& t) const;
  // Keeps in `runnable` the threads other than `t`, outside AscendCL in this process, that are
  // runnable (busy, or waiting for a CPU) now; `first`: fills it with them instead.
  void keepRunnable(const HostThread& t, std::set<uint64_t>& runnable, bool first) const;
  // CPU time, in ns, that the process has used outside the threads blocked in a wait here.
  int64_t cpuOutsideWaitsNs() const;
  // Sleeps until another thread changes something, or briefly when `unsure`; true if woken.
  bool sleep(bool unsure);

  std::map<uint64_t, HostThread> threads_;
  std::map<uint64_t, spec::Picoseconds> exitClocks_;
  uint32_t nextIndex_ = 0;
  std::condition_variable changed_;  // a thread called, blocked, resumed or exited
  size_t internalThreads_ = 0;
};

}  // namespace ascendsim::runtime
