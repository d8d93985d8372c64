#pragma once
// Shared by the data channels (acl_tdt.cpp) and the data queues (acl_tdt_queue.cpp): waiting in
// simulated time for room or data, and one DMA copy on a service's own stream, waited for.

#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "runtime/core/errors.h"
#include "runtime/core/service_port.h"

namespace ascendsim::runtime::api {

constexpr int64_t kTdtPsPerMs = 1000000000;

// Whether the process `pid` has ended (exited, or killed and not yet reaped).
inline bool tdtProcessEnded(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const size_t name = line.rfind(')');
  if (name == std::string::npos || name + 2 >= line.size()) return true;
  const char state = line[name + 2];
  return state == 'Z' || state == 'X';
}

// Whether `t` stands for a thread of a served program (ascendsim exec --shared) whose process has
// ended while its call waits here: nobody is left to take the answer, and the wait ends so that
// what the process held is given back. Looked at every 50 ms at most.
inline bool tdtCallerGone(const HostThread& t) {
  if (!t.remotePid) return false;
  thread_local pid_t lastPid = 0;
  thread_local bool lastGone = false;
  thread_local std::chrono::steady_clock::time_point lastLook{};
  const auto now = std::chrono::steady_clock::now();
  if (t.remotePid != lastPid || now - lastLook > std::chrono::milliseconds(50)) {
    lastPid = t.remotePid;
    lastGone = tdtProcessEnded(t.remotePid);
    lastLook = now;
  }
  return lastGone;
}

// Waits, in simulated time, until `ready` holds: `timeout` ms (-1 without limit, 0 not at all).
// On a timeout the thread's clock stands at the deadline: the caller waited the whole timeout.
// A served program that ends while it waits fails the wait (its call's answer goes nowhere).
inline bool tdtWaitFor(ServicePort& port, HostThread& t, int32_t timeout,
                       const std::function<bool()>& ready) {
  if (ready()) return true;
  if (timeout == 0) return false;
  const std::function<bool()> until = [&] { return ready() || tdtCallerGone(t); };
  const int64_t deadline = t.now + static_cast<int64_t>(timeout) * kTdtPsPerMs;
  bool done = timeout < 0 ? port.waitUntil(t, until) : port.waitUntilDeadline(t, until, deadline);
  // A wait without limit that nothing known can end (a deadlock): a served program's threads are
  // known to the machine from their first call, so one that has not called yet (a consumer thread
  // just started) may still end it. It is given 10 s to (ASCENDSIM_DEADLOCK_PATIENCE's default
  // under --shared).
  const auto start = std::chrono::steady_clock::now();
  while (!done && timeout < 0 && t.remotePid && !tdtCallerGone(t) &&
         std::chrono::steady_clock::now() - start < std::chrono::seconds(10)) {
    port.runUnlocked(t, [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); });
    done = port.waitUntil(t, until);
  }
  if (done && !ready() && tdtCallerGone(t)) {
    fail(ACL_ERROR_RT_INTERNAL_ERROR, "the calling process ended while the call waited");
  }
  if (done) return true;
  if (timeout > 0) t.now = std::max(t.now, deadline);
  return false;
}

// Queues one DMA copy of `bytes` on `stream` and waits for it to end; `effect` moves the bytes
// when it does.
inline void tdtCopyAndWait(ServicePort& port, HostThread& t, Stream& stream,
                           const models::MemoryPlace& dst, const models::MemoryPlace& src,
                           uint64_t bytes, std::function<void()> effect) {
  auto ended = std::make_shared<bool>(false);
  auto task = std::make_unique<models::Task>();
  task->kind = models::TaskKind::Copy;
  task->src = src;
  task->dst = dst;
  task->bytes = bytes;
  task->effect = std::move(effect);
  task->release = [ended] { *ended = true; };
  port.submit(t, stream, std::move(task));
  port.waitUntil(t, [ended] { return *ended; });
}

}  // namespace ascendsim::runtime::api
