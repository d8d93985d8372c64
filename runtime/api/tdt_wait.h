#pragma once
// Shared by the data channels (acl_tdt.cpp) and the data queues (acl_tdt_queue.cpp): waiting in
// simulated time for room or data, and one DMA copy on a service's own stream, waited for.

#include <poll.h>
#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "runtime/core/errors.h"
#include "runtime/core/patience.h"
#include "runtime/core/service_port.h"

namespace ascendsim::runtime::api {

constexpr int64_t kTdtPsPerMs = 1000000000;

// The connection of the served program's thread (ascendsim exec --shared) that this server thread
// stands for, while it serves one of that thread's data channel or queue calls; -1 otherwise.
inline thread_local int tCallerConnection = -1;

// Names the connection for the calls served in its scope (acl_tdt.cpp, acl_tdt_queue.cpp).
class CallerConnection {
 public:
  explicit CallerConnection(int fd) : before_(tCallerConnection) { tCallerConnection = fd; }
  ~CallerConnection() { tCallerConnection = before_; }
  CallerConnection(const CallerConnection&) = delete;
  CallerConnection& operator=(const CallerConnection&) = delete;

 private:
  int before_;
};

// Whether the program's end of the connection `fd` has closed: the thread's process has ended
// (exited, or killed; the kernel closes its sockets as it goes). Unlike the process's state in
// /proc, this is about the very process that called: a process id reused by another program does
// not keep it alive, and a process whose main thread has ended (pthread_exit) while its other
// threads run, whose leader /proc shows as a zombie, is not taken for gone.
inline bool tdtConnectionClosed(int fd) {
  pollfd p{fd, POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  return (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

// Whether the served program's thread a wait is for (`t`, when it stands for one) has ended while
// its call waits here: nobody is left to take the answer, and the wait ends so that what the
// process held is given back. The connection is the one named when the wait began: its condition
// is also looked at by other threads (the runtime's order of waits that end together), whose own
// connections are not this wait's. Looked at every 50 ms at most.
class CallerWatch {
 public:
  explicit CallerWatch(const HostThread& t) : connection_(t.remotePid ? tCallerConnection : -1) {}
  bool gone() {
    if (connection_ < 0 || gone_) return gone_;
    const auto now = std::chrono::steady_clock::now();
    if (now - lastLook_ > std::chrono::milliseconds(50)) {
      gone_ = tdtConnectionClosed(connection_);
      lastLook_ = now;
    }
    return gone_;
  }

 private:
  int connection_;
  bool gone_ = false;
  std::chrono::steady_clock::time_point lastLook_{};
};

// Waits, in simulated time, until `ready` holds: `timeout` ms (-1 without limit, 0 not at all).
// On a timeout the thread's clock stands at the deadline: the caller waited the whole timeout.
// A served program that ends while it waits fails the wait (its call's answer goes nowhere).
inline bool tdtWaitFor(ServicePort& port, HostThread& t, int32_t timeout,
                       const std::function<bool()>& ready) {
  if (ready()) return true;
  if (timeout == 0) return false;
  CallerWatch caller(t);
  const std::function<bool()> until = [&] { return ready() || caller.gone(); };
  const int64_t deadline = t.now + static_cast<int64_t>(timeout) * kTdtPsPerMs;
  bool done = timeout < 0 ? port.waitUntil(t, until) : port.waitUntilDeadline(t, until, deadline);
  // A wait without limit that nothing known can end (a deadlock): a served program's threads are
  // known to the machine from their first call, so one that has not called yet (a consumer thread
  // just started) may still end it. It is given the deadlock patience again to
  // (ASCENDSIM_DEADLOCK_PATIENCE: 10 s under --shared unless set).
  const auto start = std::chrono::steady_clock::now();
  const auto grace = deadlockPatience();
  while (!done && timeout < 0 && t.remotePid && !caller.gone() &&
         std::chrono::steady_clock::now() - start < grace) {
    port.runUnlocked(t, [] { std::this_thread::sleep_for(std::chrono::milliseconds(20)); });
    done = port.waitUntil(t, until);
  }
  if (done && !ready() && caller.gone()) {
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
