#include "runtime/core/host_threads.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iterator>
#include <set>

#include "runtime/core/patience.h"
#include "runtime/core/thread_activity.h"

namespace ascendsim::runtime {
namespace {
thread_local std::unique_lock<std::mutex>* tActiveLock =
    nullptr;  // the calling thread's, in a call
thread_local HostThread* tSelf = nullptr;

// How much CPU time a thread outside AscendCL may spend, once others wait for its next call,
// before they stop waiting: ASCENDSIM_ORDER_PATIENCE seconds, 0.5 by default (5 under `ascendsim
// exec --shared`, which sets it: the CPU time of the same host work varies several times over on
// a loaded machine, and a rank passed in one run and not in another gives another trace). (A
// thread spinning on a flag that another thread's call will set would otherwise hold everyone back
// for ever.)
int64_t busyBudgetNs() {
  static const int64_t budget =
      static_cast<int64_t>(secondsFromEnv("ASCENDSIM_ORDER_PATIENCE", 0.5) * 1e9);
  return budget;
}

// A thread asleep outside AscendCL is taken to stay asleep once it has been seen asleep, without
// using CPU, for this long: long enough that a short wait for a lock inside the C library or the
// allocator is not taken for sleep (a runnable thread, or one just woken, uses CPU or reads as not
// sleeping). Paid once per sleep of a thread that others wait for. These wall-clock windows are
// an idle machine's: they stretch with cpuStarvation() (load, sanitizers), where a thread waits
// longer for a CPU or for a lock whose holder waits for one.
constexpr auto kAsleepAfter = std::chrono::milliseconds(30);
// A thread that wakes now and then (polling) is judged by its share of CPU over at least this long.
constexpr auto kPollerAfter = std::chrono::milliseconds(50);

// How long a thread that waits in an MPI call the caller has already left (so it is about to
// leave it too) may show no sign of life before it is taken for asleep.
constexpr auto kMpiLeaving = std::chrono::milliseconds(500);

std::chrono::steady_clock::duration stretched(std::chrono::milliseconds window) {
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(window * cpuStarvation());
}

// Threads of this process, as the kernel lists them.
size_t processThreads() {
  std::error_code ec;
  size_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/self/task", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

// CPU time this process has used, in ns.
int64_t processCpuNs() {
  timespec process{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &process);
  return static_cast<int64_t>(process.tv_sec) * 1000000000LL + process.tv_nsec;
}

spec::Picoseconds nextEventTime(const models::SimulatedSystem* system) {
  return system ? system->nextEventTime() : kNoDeadline;
}
}  // namespace

HostThread& HostThreads::current(spec::Picoseconds now) {
  const uint64_t id = static_cast<uint64_t>(pthread_self());
  auto it = threads_.find(id);
  if (it != threads_.end()) {
    if (it->second.tid == 0) started(it->second);  // numbered by its creator, running now
    return it->second;
  }
  HostThread& t = threads_[id];
  t.pthreadId = id;
  t.reportId = id;
  t.tid = currentTid();
  t.index = nextIndex_++;
  t.track.thread = t.index;
  t.now = now;
  tSelf = &t;
  return t;
}

HostThread& HostThreads::enroll(uint32_t index, spec::Picoseconds now, pid_t pid, pid_t tid,
                                HostTrack track, const MpiWaits* waitingOutside,
                                uint64_t reportId) {
  const uint64_t id = static_cast<uint64_t>(pthread_self());
  HostThread& t = threads_[id];
  t.pthreadId = id;
  t.reportId = reportId;
  t.tid = currentTid();
  t.index = index;
  t.now = now;
  t.remotePid = pid;
  t.remoteTid = tid;
  t.track = std::move(track);
  t.waitingOutside = waitingOutside;
  tSelf = &t;
  changed_.notify_all();
  return t;
}

HostThread* HostThreads::self() {
  return tSelf;
}

void HostThreads::adopt(uint64_t child, const HostThread& parent) {
  HostThread& t = threads_[child];
  t.pthreadId = child;
  t.reportId = child;
  t.index = nextIndex_++;
  t.track.thread = t.index;
  t.now = parent.now;
  changed_.notify_all();
}

void HostThreads::started(HostThread& t) {
  t.tid = currentTid();
  tSelf = &t;
}

void HostThreads::remove(uint64_t pthreadId) {
  auto it = threads_.find(pthreadId);
  if (it == threads_.end()) return;
  exitClocks_[pthreadId] = it->second.now;
  if (tSelf == &it->second) tSelf = nullptr;
  threads_.erase(it);
  changed_.notify_all();
}

std::optional<spec::Picoseconds> HostThreads::takeExitClock(uint64_t pthreadId) {
  auto it = exitClocks_.find(pthreadId);
  if (it == exitClocks_.end()) return std::nullopt;
  const spec::Picoseconds clock = it->second;
  exitClocks_.erase(it);
  return clock;
}

void HostThreads::beginCall(std::unique_lock<std::mutex>& lock, HostThread& t) {
  tActiveLock = &lock;
  t.entering = false;
  t.inCall = true;
}

void HostThreads::endCall(HostThread& t) {
  t.inCall = false;
  // Only a thread seen asleep from now on is asleep: a served program's thread still waits for
  // this call's reply, asleep in its own process, until the reply reaches it. Its CPU time is
  // what other threads judge it by (sleepsOutside); a thread alone is judged by none, and the
  // reading (a system call; for a served program's thread a read of /proc, a tenth of the
  // server's work for a call) is spared: a thread that comes later takes its first look as the
  // start instead (cpuSeen -1).
  if (threads_.size() > 1) {
    t.cpuSeen = t.remotePid ? threadCpuNs(t.remotePid, t.remoteTid) : ownCpuNs();
  } else {
    t.cpuSeen = -1;
  }
  t.cpuSeenAt = std::chrono::steady_clock::now();
  t.cpuWaitedFrom = -1;
  changed_.notify_all();
  tActiveLock = nullptr;
}

namespace {
thread_local int tMakingInternal = 0;
}  // namespace

HostThreads::InternalThreads::InternalThreads() {
  ++tMakingInternal;
}

HostThreads::InternalThreads::~InternalThreads() {
  --tMakingInternal;
}

bool HostThreads::insideCall() {
  return tActiveLock != nullptr || tMakingInternal > 0;
}

// ---------------------------------------------------------------- the order of calls

bool HostThreads::sleepsOutside(const HostThread& t, HostThread& other, bool& unsure) {
  if (other.tid == 0) return false;  // created, not started yet: it is about to run
  // A served program's thread is judged by what it does in its own process.
  const int64_t cpu = other.remotePid ? threadCpuNs(other.remotePid, other.remoteTid)
                                      : threadCpuNs(static_cast<pthread_t>(other.pthreadId));
  if (cpu < 0) return true;
  if (other.waitingOutside &&
      other.waitingOutside->awaitingServer.load(std::memory_order_acquire)) {
    unsure = true;  // its message is on its way to a server thread here
    return false;
  }
  // Waiting in MPI for other processes: in a call `t` has not reached yet (it entered more of
  // them), it waits for `t` and is not waited for; in one `t` has been through, it is about to
  // leave it too and is waited for as a busy thread is (processes that issue the same MPI calls,
  // as SPMD jobs do, then meet in the same order every run).
  if (other.waitingOutside && other.waitingOutside->waiting.load(std::memory_order_acquire)) {
    const uint32_t mine = t.waitingOutside ? t.waitingOutside->entered.load() : 0;
    if (other.waitingOutside->entered.load(std::memory_order_acquire) > mine) {
      other.passedAsleep = true;
      return true;
    }
    // Leaving: even asleep in MPI (MPI libraries that yield sleep while they wait), it is waited
    // for until it has shown no sign of life for kMpiLeaving, the bound for calls that do not in
    // fact end together (processes that make different MPI calls).
    const auto seen = std::chrono::steady_clock::now();
    if (cpu != other.cpuSeen) {
      other.cpuSeen = cpu;
      other.cpuSeenAt = seen;
    }
    if (seen - other.cpuSeenAt < stretched(kMpiLeaving)) {
      unsure = true;
      return false;
    }
  }
  // Busy with its own work: it has used its budget since another thread first had to wait for it
  // (not since its last call: a process spinning in an MPI collective until the others arrive
  // makes its call at once when they have, and is waited for).
  const auto now = std::chrono::steady_clock::now();
  if (other.cpuWaitedFrom < 0) {
    other.cpuWaitedFrom = cpu;
    other.waitedFromAt = now;
    other.looks = other.sleepingLooks = 0;
  }
  // Passed, it is passed as a sleeper is: a served program's thread resumes at the machine's
  // present (awaitTurn). It used to keep its clock, so its next call started there while the
  // tasks it queued went in at the machine's present, which had gone on without it.
  if (cpu - other.cpuWaitedFrom > busyBudgetNs()) {
    other.passedAsleep = true;
    return true;
  }
  // A thread that sleeps between glances at a flag (usleep in a loop) uses a little CPU at each
  // glance, so it is never seen idle for kAsleepAfter and used to be waited for until it had
  // spent its whole budget (half a second of CPU: tens of seconds of polling). One seen asleep at
  // nine looks in ten or more (at least 10 looks, over kPollerAfter), using under a tenth of the
  // time since others began to wait for it, is asleep. (A thread starved of CPU on a loaded
  // machine is runnable, not asleep, when looked at.) Where CPUs are scarce (cpuLoad() L above
  // 1) both bounds divide by L: a poller woken from its sleep waits longer for a CPU, so fewer
  // looks find it asleep, and a busy thread gets about 1/L of a CPU; a poller still uses far less
  // than that, so the two stay apart (under load a poller was waited for 33 s).
  const bool asleepNow =
      other.remotePid ? threadSleeps(other.remotePid, other.remoteTid) : threadSleeps(other.tid);
  ++other.looks;
  if (asleepNow) ++other.sleepingLooks;
  const auto waited = now - other.waitedFromAt;
  const double scarce = cpuLoad();
  const double waitedNs =
      static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count());
  if (asleepNow && waited >= stretched(kPollerAfter) && other.looks >= 10 &&
      10.0 * scarce * other.sleepingLooks >= 9.0 * other.looks &&
      10.0 * scarce * static_cast<double>(cpu - other.cpuWaitedFrom) < waitedNs) {
    other.passedAsleep = true;
    return true;
  }
  if (cpu != other.cpuSeen) {
    other.cpuSeen = cpu;
    other.cpuSeenAt = now;
    unsure = true;
    return false;
  }
  if (!asleepNow || now - other.cpuSeenAt < stretched(kAsleepAfter)) {
    unsure = true;
    return false;
  }
  other.passedAsleep = true;
  return true;
}

HostThreads::Turn HostThreads::earliestOther(const HostThread& t, models::SimulatedSystem* system,
                                             bool& unsure) {
  Turn earliest = kNever;
  for (auto& [id, other] : threads_) {
    if (&other == &t) continue;
    Turn turn = kNever;
    if (other.blocked) {
      if (other.waitingOn && (*other.waitingOn)()) {
        turn = {std::max(other.now, system ? system->now() : 0), other.index};  // resumes now
      } else if (other.deadline != kNoDeadline) {
        turn = {other.deadline, other.index};  // times out then, unless the machine ends it sooner
      }
    } else {
      turn = {other.now, other.index};
      const bool between = !other.inCall && !other.entering.load();
      if (between && turn < earliest && sleepsOutside(t, other, unsure)) turn = kNever;
    }
    earliest = std::min(earliest, turn);
  }
  return earliest;
}

bool HostThreads::earlierWaitEnded(const HostThread& t, models::SimulatedSystem& system) const {
  const spec::Picoseconds present = system.now();
  const Turn mine{std::max(t.now, present), t.index};
  return std::any_of(threads_.begin(), threads_.end(), [&](const auto& kv) {
    const HostThread& other = kv.second;
    return &other != &t && other.blocked && other.waitingOn && (*other.waitingOn)() &&
           Turn{std::max(other.now, present), other.index} < mine;
  });
}

bool HostThreads::anotherWaitEnded(const HostThread& t) const {
  return std::any_of(threads_.begin(), threads_.end(), [&](const auto& kv) {
    const HostThread& other = kv.second;
    return &other != &t && other.blocked && other.waitingOn && (*other.waitingOn)();
  });
}

int64_t HostThreads::cpuOutsideWaitsNs() const {
  int64_t cpu = processCpuNs();
  for (const auto& [id, thread] : threads_) {
    if (!thread.blocked) continue;
    const int64_t used = threadCpuNs(static_cast<pthread_t>(id));
    if (used > 0) cpu -= used;
  }
  return cpu;
}

bool HostThreads::anotherAboutToAct(const HostThread& t) const {
  return std::any_of(threads_.begin(), threads_.end(), [&](const auto& kv) {
    const HostThread& other = kv.second;
    if (&other == &t) return false;
    // Its wait has ended: it resumes once it has a CPU and the lock.
    if (other.blocked) return other.waitingOn && (*other.waitingOn)();
    // In a call (waiting for its turn), taking the lock for one, or created and not started yet.
    return other.inCall || other.entering.load() || other.tid == 0;
  });
}

void HostThreads::keepRunnable(const HostThread& t, std::set<uint64_t>& runnable,
                               bool first) const {
  auto awake = [](const HostThread& other) {
    return !other.blocked && !other.remotePid && other.tid != 0 && !threadSleeps(other.tid);
  };
  if (first) {
    runnable.clear();
    for (const auto& [id, other] : threads_) {
      if (&other != &t && awake(other)) runnable.insert(id);
    }
    return;
  }
  for (auto it = runnable.begin(); it != runnable.end();) {
    auto other = threads_.find(*it);
    it = other != threads_.end() && awake(other->second) ? std::next(it) : runnable.erase(it);
  }
}

bool HostThreads::othersMayAct(const HostThread& t) const {
  return std::any_of(threads_.begin(), threads_.end(), [&](const auto& kv) {
    const HostThread& other = kv.second;
    if (&other == &t) return false;
    // A blocked thread whose condition has come true is about to act; one with a deadline will.
    return !other.blocked || other.deadline != kNoDeadline ||
           (other.waitingOn && (*other.waitingOn)());
  });
}

bool HostThreads::sleep(bool unsure) {
  std::unique_lock<std::mutex>* lock = tActiveLock;
  const auto timeout = unsure ? std::chrono::milliseconds(2) : std::chrono::milliseconds(100);
  const bool woken = changed_.wait_for(*lock, timeout) == std::cv_status::no_timeout;
  tActiveLock = lock;
  return woken;
}

void HostThreads::awaitTurn(HostThread& t, models::SimulatedSystem* system) {
  // A served program's thread that others went past while it slept (in the program: a sleep, a
  // file or pipe another process fills) wakes no earlier than what they did meanwhile: what it
  // waited for happened first. (A program's own threads keep their clocks: their waits on each
  // other are seen at joins.)
  if (t.passedAsleep && t.remotePid && system) t.now = std::max(t.now, system->now());
  t.passedAsleep = false;
  const Turn mine{t.now, t.index};
  for (;;) {
    bool unsure = false;
    Turn others = earliestOther(t, system, unsure);
    // What the machine does up to this call happens first, unless it ends another thread's wait:
    // that thread resumes before anything else moves.
    if (system && !anotherWaitEnded(t)) {
      system->runUntil([&] { return anotherWaitEnded(t); }, std::min(others.time, t.now));
      if (anotherWaitEnded(t)) {
        changed_.notify_all();
        others = earliestOther(t, system, unsure);
      }
    }
    if (mine < others && nextEventTime(system) > t.now) return;
    sleep(unsure);
  }
}

HostThreads::WaitEnd HostThreads::waitFor(HostThread& t, models::SimulatedSystem& system,
                                          const std::function<bool()>& done,
                                          spec::Picoseconds deadline) {
  using Clock = std::chrono::steady_clock;
  t.blocked = true;
  t.waitingOn = &done;
  t.deadline = deadline;
  struct Resume {
    HostThread& t;
    ~Resume() {
      t.blocked = false;
      t.waitingOn = nullptr;
      t.deadline = kNoDeadline;
    }
  } resume{t};
  changed_.notify_all();  // others may be waiting for this thread's turn

  // (Only threads that are asleep count against the patience (patience.h): one that is runnable
  // or about to act shows life however long a loaded machine keeps it from a CPU, so the window is
  // not stretched with cpuStarvation() and a real deadlock is reported as soon under load as on an
  // idle machine.)
  const auto patience = deadlockPatience();
  // Time this thread has slept since the last sign of life: while it simulates it holds the lock,
  // and the others cannot call.
  Clock::duration quiet{};
  int64_t cpu = cpuOutsideWaitsNs();
  int64_t quietCpu = 0;         // CPU time used outside the waits here since then, in ns
  std::set<uint64_t> runnable;  // threads outside AscendCL runnable at every look since then
  bool firstLook = true;
  bool woken = false;
  for (;;) {
    bool unsure = false;
    const Turn others = earliestOther(t, &system, unsure);
    if (!anotherWaitEnded(t)) {
      system.runUntil([&] { return done() || anotherWaitEnded(t); },
                      std::min(others.time, deadline));
    }
    // Threads whose waits end at the same moment go on in their order (time, then index), so what
    // they do next (their trace events, their next calls) comes in the same order every run.
    if (done() && !earlierWaitEnded(t, system)) return WaitEnd::Done;
    if (anotherWaitEnded(t)) {
      changed_.notify_all();
    } else {
      const spec::Picoseconds next = nextEventTime(&system);
      const Turn now = earliestOther(t, &system, unsure);
      if (deadline != kNoDeadline && next > deadline && Turn{deadline, t.index} < now)
        return WaitEnd::TimedOut;
      // Nothing left to simulate and nobody to act: threads the runtime has not seen (no AscendCL
      // call yet), or that are busy outside it, may still act; the ones blocked in a wait that
      // cannot end may not. (The kernel's thread list is read only when the known threads cannot
      // act: every other thread's call wakes this loop.)
      if (deadline == kNoDeadline && next == kNoDeadline && !othersMayAct(t) &&
          processThreads() <= threads_.size() + internalThreads_) {
        return WaitEnd::Deadlock;
      }
    }
    const auto sleptFrom = Clock::now();
    woken = sleep(unsure);
    quiet += Clock::now() - sleptFrom;
    // Signs of life: a call; CPU time spent by threads that are not themselves waiting here (over
    // 1 ms, and over 1 % of a CPU since the last sign: a thread that glances at a flag a few times
    // a second does not count, a busy one given a tenth of a CPU by a loaded machine does); a
    // thread about to act (its wait ended, in a call or taking the lock for one); this thread's
    // own wait having ended meanwhile; and a thread outside AscendCL found runnable at every look
    // for the whole patience (starved of CPU, or busy). None for the whole patience means every
    // thread that could end this wait is stuck (asleep, in join(), ...). The waiting threads' own
    // looks around are not: several threads blocked for good, each looking every 100 ms, used to
    // keep each other alive on a slow machine. CPU time used to be compared per look, and the rest
    // not seen: at a look every 2 ms a starved thread never showed 1 ms, nor did one whose wait had
    // ended but that had no CPU yet to resume, so on a loaded machine (AddressSanitizer, ctest -j2,
    // builds) a collective whose other rank was still to act was called a deadlock. And the
    // patience counted this thread's own simulating (0.5 s for one copy under AddressSanitizer on a
    // busy CPU), when no other thread can call, and a wait ended by another thread's simulating
    // while this one slept.
    const int64_t nowCpu = cpuOutsideWaitsNs();
    if (nowCpu > cpu) quietCpu += nowCpu - cpu;  // (it drops when a thread starts waiting here)
    cpu = nowCpu;
    const int64_t quietNs = std::chrono::duration_cast<std::chrono::nanoseconds>(quiet).count();
    bool alive = woken || done() || nextEventTime(&system) != kNoDeadline ||
                 deadline != kNoDeadline || (quietCpu > 1000000 && quietCpu * 100 > quietNs) ||
                 anotherAboutToAct(t);
    if (!alive) {
      keepRunnable(t, runnable, firstLook);
      firstLook = false;
      alive = quiet > patience && !runnable.empty();
    }
    if (alive) {
      quiet = {};
      quietCpu = 0;
      firstLook = true;
    }
    if (quiet > patience) return WaitEnd::Deadlock;
  }
}

void HostThreads::runUnlocked(HostThread& t, const std::function<void()>& fn) {
  std::unique_lock<std::mutex>* lock = tActiveLock;
  t.inCall = false;  // user code: it may sleep, and is waited for as any thread outside AscendCL
  lock->unlock();
  auto relock = [&] {
    t.entering = true;  // waiting for the lock is about to act, not asleep outside AscendCL
    lock->lock();
    tActiveLock = lock;
    t.inCall = true;
    t.entering = false;
  };
  try {
    fn();
  } catch (...) {
    relock();
    throw;
  }
  relock();
}

}  // namespace ascendsim::runtime
