#pragma once
// Shared by the data channels (acl_tdt.cpp) and the data queues (acl_tdt_queue.cpp): waiting in
// simulated time for room or data, and one DMA copy on a service's own stream, waited for.

#include <algorithm>
#include <functional>
#include <memory>

#include "runtime/core/service_port.h"

namespace ascendsim::runtime::api {

constexpr int64_t kTdtPsPerMs = 1000000000;

// Waits, in simulated time, until `ready` holds: `timeout` ms (-1 without limit, 0 not at all).
// On a timeout the thread's clock stands at the deadline: the caller waited the whole timeout.
inline bool tdtWaitFor(ServicePort& port, HostThread& t, int32_t timeout,
                       const std::function<bool()>& ready) {
  if (ready()) return true;
  if (timeout == 0) return false;
  if (timeout < 0) return port.waitUntil(t, ready);
  const int64_t deadline = t.now + static_cast<int64_t>(timeout) * kTdtPsPerMs;
  if (port.waitUntilDeadline(t, ready, deadline)) return true;
  t.now = std::max(t.now, deadline);
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
