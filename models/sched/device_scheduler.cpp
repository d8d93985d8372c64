#include "models/sched/device_scheduler.h"

#include <algorithm>
#include <limits>

#include "models/compute/ai_core_work.h"

namespace ascendsim::models {

DeviceScheduler::DeviceScheduler(sc_core::sc_module_name name, const spec::DeviceSpec& spec,
                                 int deviceIndex, TransferTiming& timing)
    : sc_core::sc_module(name),
      spec_(spec),
      index_(deviceIndex),
      timing_(timing),
      // Posted writes need no tags: a channel streams them from four chunk buffers.
      byteWindow_(4 * spec.dma.chunkSize),
      readWindow_(timing.readWindow(deviceIndex)),
      channels_(spec.dma.engines * spec.dma.channelsPerEngine) {
  SC_METHOD(dispatch);
  sensitive << wake_;
  dont_initialize();
}

void DeviceScheduler::attach(StreamQueue& stream) {
  streams_.push_back(&stream);
  setPriority(stream, stream.priority());
}

void DeviceScheduler::setPriority(StreamQueue& stream, uint32_t priority) {
  stream.priority_ = priority;
  // Ids are given in order of creation.
  std::sort(streams_.begin(), streams_.end(), [](const StreamQueue* a, const StreamQueue* b) {
    return a->priority() != b->priority() ? a->priority() < b->priority() : a->id() < b->id();
  });
}

void DeviceScheduler::detach(StreamQueue& stream) {
  streams_.erase(std::remove(streams_.begin(), streams_.end(), &stream), streams_.end());
}

void DeviceScheduler::submit(StreamQueue& stream, std::unique_ptr<Task> task) {
  const Picoseconds when = task->submitTime;
  stream.push(std::move(task));
  wakeAt(when);
}

void DeviceScheduler::finishExternal(StreamQueue& stream, Picoseconds when) {
  Task* head = stream.head();
  if (!head || !head->completesExternally) return;
  head->endTime = std::max(when, head->startTime);
  head->completesExternally = false;  // now an ordinary running task that ends at endTime
  wakeAt(head->endTime);
}

void DeviceScheduler::wake() {
  wakeAt(simNow());
}

void DeviceScheduler::wakeAt(Picoseconds when) {
  const Picoseconds now = simNow();
  wake_.notify(toScTime(std::max<Picoseconds>(when - now, 0)));
}

unsigned DeviceScheduler::busyChannels() const {
  return static_cast<unsigned>(
      std::count_if(channels_.begin(), channels_.end(), [](const Channel& c) { return c.task; }));
}

bool DeviceScheduler::ready(const Task& task, Picoseconds now) const {
  if (task.submitTime > now) return false;
  if (task.isCancelled()) return true;  // discarded: it waits for nothing
  if (task.kind == TaskKind::EventWait && task.resetsFlag)
    return task.sync->recordsCompleted > task.sync->consumedUpTo;
  if (task.kind == TaskKind::EventWait) return task.sync->recordsCompleted >= task.waitForRecord;
  if (task.kind == TaskKind::ValueWait) return !task.condition || task.condition();
  return true;
}

void DeviceScheduler::start(StreamQueue& stream, Task& task, Picoseconds now) {
  if (task.isCancelled()) {
    // Skipped: it moves nothing and computes nothing, and ends once launched.
    task.bytes = 0;
    task.kernel = KernelWork{};
    task.completesExternally = false;  // a skipped callback is never handed to the host
  }
  task.startTime = now;
  task.endTime = now + spec_.scheduler.taskLaunch;
  if (task.kind == TaskKind::Copy || task.kind == TaskKind::Memset) {
    const auto free =
        std::find_if(channels_.begin(), channels_.end(), [](const Channel& c) { return !c.task; });
    task.channel = static_cast<int>(free - channels_.begin());
    // The channel fetches the descriptor and sets up, then moves the bytes chunk by chunk; the
    // task's end is known once its last chunk is issued.
    const Picoseconds first = now + spec_.scheduler.taskLaunch + spec_.dma.setupLatency;
    *free = Channel{&task, 0, first, first, {}, 0, 0};
    task.endTime = task.bytes == 0 ? first : -1;
  } else if (task.kind == TaskKind::Kernel) {
    if (task.prepare && !task.isCancelled()) task.prepare(task);
    // The cores receive their blocks (dispatch), then stream the kernel tile by tile.
    const Picoseconds first = now + spec_.scheduler.taskLaunch + spec_.aicore.startLatency;
    aicore_ = Channel{&task, 0, first, first, {}, 0, 0};
    // Nothing to do: ends as it starts (an Ascend C kernel whose blocks only compute in the
    // Unified Buffer still takes its cores' cycles).
    task.endTime = task.bytes == 0 && task.kernel.ops == 0 && task.kernel.scalarOps == 0 &&
                           task.kernel.coreCycles == 0
                       ? first
                       : -1;
  }
  if (task.onStart && !task.isCancelled()) task.onStart();
  for (TaskListener* l : listeners_) l->taskStarted(index_, stream, task);
}

// Ends every running task whose time has come; returns whether any did.
bool DeviceScheduler::completeFinished(Picoseconds now) {
  bool any = false;
  // Index loop: an effect may create or destroy nothing here, but detach() could run from a
  // listener in future code, so never hold iterators across callbacks.
  for (size_t i = 0; i < streams_.size(); ++i) {
    StreamQueue& s = *streams_[i];
    Task* t = s.head();
    if (!t || t->startTime < 0 || t->completesExternally || t->endTime < 0 || t->endTime > now)
      continue;
    std::unique_ptr<Task> done = s.popHead(t->endTime);
    if (done->channel >= 0) channels_[static_cast<size_t>(done->channel)].task = nullptr;
    if (aicore_.task == done.get()) aicore_.task = nullptr;
    if (done->kind == TaskKind::EventRecord) {
      done->sync->recordsCompleted++;
      done->sync->lastRecordTime = done->endTime;
      done->sync->recorded = true;
    } else if (done->kind == TaskKind::EventReset) {
      done->sync->recorded = false;
    } else if (done->kind == TaskKind::EventWait) {
      done->sync->waitsCompleted++;  // (a discarded wait is no longer pending either)
      if (done->resetsFlag && !done->isCancelled())
        done->sync->consumedUpTo = done->sync->recordsCompleted;
    }
    if (done->effect && !done->isCancelled()) done->effect();
    if (done->release) done->release();
    for (TaskListener* l : listeners_) l->taskEnded(index_, s, *done);
    // What other devices' streams may wait for: a record, a written value, bytes put into another
    // device's memory.
    const bool others = done->kind == TaskKind::EventRecord || done->kind == TaskKind::ValueWrite ||
                        (done->kind == TaskKind::Copy &&
                         done->dst.kind == MemoryPlace::Kind::Device && done->dst.device != index_);
    if (others && onRecordCompleted_) onRecordCompleted_();
    any = true;
  }
  return any;
}

bool DeviceScheduler::startReady(Picoseconds now) {
  bool any = false;
  for (StreamQueue* s : streams_) {
    Task* t = s->head();
    if (!t || t->startTime >= 0 || !ready(*t, now)) continue;
    const bool needsChannel = t->kind == TaskKind::Copy || t->kind == TaskKind::Memset;
    if (needsChannel && busyChannels() == channels()) continue;
    if (t->kind == TaskKind::Kernel && aicore_.task) continue;  // kernels take the cores in turn
    start(*s, *t, now);
    any = true;
  }
  return any;
}

Picoseconds DeviceScheduler::windowOpens(Channel& c, Picoseconds t, const Channel::Piece& next,
                                         uint64_t byteWindow) const {
  for (;;) {
    // Pieces land in issue order closely enough that the oldest frees first.
    while (!c.inFlight.empty() && c.inFlight.front().done <= t) {
      c.inFlightBytes -= c.inFlight.front().bytes;
      c.inFlightRequests -= c.inFlight.front().requests;
      c.inFlight.pop_front();
    }
    if (next.staged) {
      // A pageable copy: the runtime stages it through two pinned buffers per host thread, so the
      // core fills one while the DMA drains the other; each buffer frees when its piece is through.
      if (c.inFlight.size() < 2) return t;
    } else if (next.requests > 0) {
      // Reads: the channel's request queue holds `readWindow_` requests.
      if (c.inFlight.empty() || c.inFlightRequests + next.requests <= readWindow_) return t;
    } else if (c.inFlight.size() < 2 || c.inFlightBytes + next.bytes <= byteWindow) {
      // Two pieces may always be in flight, whatever their size: the runtime double-buffers its
      // pinned staging buffer, a channel moves one chunk while it sets up the next, and a kernel's
      // cores load one tile while they compute on the other.
      return t;
    }
    t = c.inFlight.front().done;
  }
}

// Issues every chunk of `c` whose time has come; returns whether any was.
bool DeviceScheduler::pump(Channel& c, uint64_t byteWindow, Picoseconds now) {
  bool any = false;
  while (c.task && c.task->endTime < 0 && c.nextIssue <= now) {
    const ChunkTiming chunk = timing_.moveChunk(index_, *c.task, c.offset, c.nextIssue);
    c.offset += chunk.bytes;
    c.lastDone = std::max(c.lastDone, chunk.done);
    c.inFlight.push_back({chunk.released > 0 ? chunk.released : chunk.done, chunk.bytes,
                          chunk.requests, chunk.staged});
    c.inFlightBytes += chunk.bytes;
    c.inFlightRequests += chunk.requests;
    if (c.offset >= c.task->bytes) {
      c.task->endTime = c.lastDone;
      c.inFlight.clear();
      c.inFlightBytes = 0;
      c.inFlightRequests = 0;
    } else {
      // The next piece is about as large as this one (the last may be smaller).
      const Channel::Piece next{0, std::min(chunk.bytes, c.task->bytes - c.offset), chunk.requests,
                                chunk.staged};
      c.nextIssue = windowOpens(c, chunk.nextIssue, next, byteWindow);
    }
    any = true;
  }
  return any;
}

bool DeviceScheduler::pumpChannels(Picoseconds now) {
  bool any = pump(aicore_, kernelWindowBytes(spec_.aicore), now);
  for (Channel& c : channels_) any = pump(c, byteWindow_, now) || any;
  return any;
}

void DeviceScheduler::dispatch() {
  const Picoseconds now = simNow();
  // Zero-length tasks (records, waits with no launch latency) can end at once and free the way
  // for the next; repeat until nothing changes at this instant.
  while (completeFinished(now) | startReady(now) | pumpChannels(now)) {
  }
  Picoseconds next = std::numeric_limits<Picoseconds>::max();
  for (StreamQueue* s : streams_) {
    const Task* t = s->head();
    if (!t) continue;
    if (t->startTime >= 0 && !t->completesExternally && t->endTime >= 0)
      next = std::min(next, t->endTime);
    if (t->startTime < 0 && t->submitTime > now) next = std::min(next, t->submitTime);
  }
  for (const Channel& c : channels_) {
    if (c.task && c.task->endTime < 0) next = std::min(next, c.nextIssue);
  }
  if (aicore_.task && aicore_.task->endTime < 0) next = std::min(next, aicore_.nextIssue);
  if (next != std::numeric_limits<Picoseconds>::max()) wakeAt(next);
}

}  // namespace ascendsim::models
