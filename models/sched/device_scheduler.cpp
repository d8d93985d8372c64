#include "models/sched/device_scheduler.h"

#include <algorithm>
#include <limits>

#include "models/compute/ai_core_work.h"
#include "models/sched/machine_clock.h"
#include "models/sched/machine_run.h"

namespace ascendsim::models {

DeviceScheduler::DeviceScheduler(sc_core::sc_module_name name, const spec::DeviceSpec& spec,
                                 int deviceIndex, TransferTiming& timing, MachineClock& clock)
    : sc_core::sc_module(name),
      spec_(spec),
      index_(deviceIndex),
      timing_(timing),
      // Posted writes need no tags: a channel streams them from four chunk buffers.
      byteWindow_(4 * spec.dma.chunkSize),
      channels_(spec.dma.engines * spec.dma.channelsPerEngine),
      clock_(clock),
      clockIndex_(clock.add([this] { dispatch(); })) {}

DeviceScheduler::~DeviceScheduler() {
  for (Channel& c : channels_) {
    if (c.run) endRun(c, c.run->pieces());
  }
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
  clock_.wakeAt(clockIndex_, when);
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
    *free = Channel{};
    ++busyCopies_;
    free->task = &task;
    free->readWindow = timing_.readWindow(index_, task);
    free->nextIssue = free->lastDone = first;
    task.endTime = task.bytes == 0 ? first : -1;
  } else if (task.kind == TaskKind::Kernel) {
    if (task.prepare && !task.isCancelled()) task.prepare(task);
    // The cores receive their blocks (dispatch), then stream the kernel tile by tile.
    const Picoseconds first = now + spec_.scheduler.taskLaunch + spec_.aicore.startLatency;
    aicore_ = Channel{};
    aicore_.task = &task;
    aicore_.nextIssue = aicore_.lastDone = first;
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
    if (done->channel >= 0) {
      channels_[static_cast<size_t>(done->channel)].task = nullptr;
      --busyCopies_;
    }
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
      // Reads: the channel's request queue holds `readWindow` requests.
      if (c.inFlight.empty() || c.inFlightRequests + next.requests <= c.readWindow) return t;
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
    if (c.run) endRun(c, c.run->pieces());  // its pieces are all issued: go on after them
    if (c.inMachineRun) {
      // The machine's run reached this channel's next piece: every channel is brought to here.
      machine_->yieldAt(c.nextIssue);
      if (c.inMachineRun) break;  // (never: the run has ended)
      continue;
    }
    const Picoseconds issue = c.nextIssue;
    const ChunkTiming chunk = issuePiece(c, byteWindow);
    if (pieceRuns_ && &c != &aicore_) {
      if (c.task->endTime < 0) seekSteadyState(c, issue, chunk);
      if (machine_) machine_->pieceIssued(index_, channelIndex(c), issue);
    }
    any = true;
  }
  return any;
}

ChunkTiming DeviceScheduler::issuePiece(Channel& c, uint64_t byteWindow) {
  const ChunkTiming chunk = timing_.moveChunk(index_, *c.task, c.offset, c.nextIssue);
  c.lastChunk = chunk;
  if (machine_ && &c != &aicore_ && machine_->watching())
    c.pathRepeats = timing_.lastPathRepeats(c.path);
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
  return chunk;
}

DeviceScheduler::Channel::Probe DeviceScheduler::probe(const Channel& c, Picoseconds at,
                                                       const ChunkTiming& chunk) {
  Channel::Probe p;
  p.issue = at;
  p.chunk = chunk;
  p.nextIssue = c.nextIssue - at;
  p.lastDone = c.lastDone - at;
  for (Channel::Piece piece : c.inFlight) {
    piece.done -= at;
    p.inFlight.push_back(piece);
  }
  return p;
}

bool DeviceScheduler::Channel::Probe::sameChannel(const Probe& o) const {
  return chunk.bytes == o.chunk.bytes && chunk.requests == o.chunk.requests &&
         chunk.staged == o.chunk.staged && nextIssue == o.nextIssue && lastDone == o.lastDone &&
         inFlight.size() == o.inFlight.size() &&
         std::equal(inFlight.begin(), inFlight.end(), o.inFlight.begin(),
                    [](const Piece& a, const Piece& b) {
                      return a.done == b.done && a.bytes == b.bytes && a.requests == b.requests &&
                             a.staged == b.staged;
                    });
}

namespace {
// Pieces a run must hold to be worth its bookkeeping; failed searches before pausing.
constexpr uint64_t kShortestRun = 8;
constexpr uint32_t kSearchesBeforePause = 64;
constexpr uint32_t kLongestPause = 4096;

}  // namespace

void DeviceScheduler::seekSteadyState(Channel& c, Picoseconds issue, const ChunkTiming& chunk) {
  if (c.pause > 0) {
    --c.pause;
    c.last.valid = false;
    return;
  }
  const uint64_t left = c.task->bytes - c.offset;
  std::vector<PathUse> path;
  Channel::Probe now = probe(c, issue, chunk);
  now.valid = chunk.bytes > 0 && left / chunk.bytes > kShortestRun &&
              timing_.lastPathRepeats(path) &&
              now.path.capture(std::move(path), issue,
                               TransferTiming::bookingOwner(index_, channelIndex(c)));
  const Channel::Probe& was = c.last;
  const bool steady = now.valid && was.valid && was.sameChannel(now) && now.path.sameAs(was.path);
  if (!steady) {
    c.last = std::move(now);
    if (++c.misses >= kSearchesBeforePause) {
      // Traffic that never settles (competitors on the way): search again only now and then,
      // for as long, after a pause twice the last.
      c.nextPause = std::min(kLongestPause, std::max(kSearchesBeforePause, 2 * c.nextPause));
      c.pause = c.nextPause;
      c.misses = 0;
      c.last.valid = false;
    }
    return;
  }
  // The last piece met what the one before met, a period later: so will every piece of the same
  // size after it. Keep the last one (perhaps smaller) to move piece by piece.
  const Picoseconds period = now.nextIssue;
  const uint64_t pieces = left / chunk.bytes - 1;
  c.misses = 0;
  c.nextPause = 0;
  c.runOffset = c.offset;
  const int channel = channelIndex(c);
  c.run = std::make_unique<SoloRun>(std::move(now.path), issue, period, pieces,
                                    [this, channel](Picoseconds t) {
                                      Channel& ch = channels_[static_cast<size_t>(channel)];
                                      endRun(ch, ch.run->issuedBefore(t));
                                      wakeAt(ch.nextIssue);
                                    });
  c.last = Channel::Probe{};
  c.last.inFlight = std::move(now.inFlight);
  c.last.nextIssue = now.nextIssue;
  c.last.lastDone = now.lastDone;
  c.last.chunk = chunk;
  c.last.issue = issue;
  c.nextIssue = issue + static_cast<Picoseconds>(pieces + 1) * period;
}

void DeviceScheduler::endRun(Channel& c, uint64_t m) {
  std::unique_ptr<SoloRun> run = std::move(c.run);
  run->release(m);
  piecesInRuns_ += m;
  // Piece m of the run left the channel as the last piece before the run left it, m periods on.
  const Picoseconds at = c.last.issue + static_cast<Picoseconds>(m) * run->period();
  c.offset = c.runOffset + m * c.last.chunk.bytes;
  const Channel::Probe last = std::move(c.last);
  restore(c, last, at);
}

void DeviceScheduler::restore(Channel& c, const Channel::Probe& p, Picoseconds at) {
  c.lastDone = at + p.lastDone;
  c.nextIssue = at + p.nextIssue;
  c.inFlight.clear();
  c.inFlightBytes = 0;
  c.inFlightRequests = 0;
  for (Channel::Piece piece : p.inFlight) {
    piece.done += at;
    c.inFlight.push_back(piece);
    c.inFlightBytes += piece.bytes;
    c.inFlightRequests += piece.requests;
  }
  c.last = Channel::Probe{};
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
  for (bool changed = true; changed;) {
    const bool ended = completeFinished(now);  // each of the three runs every time
    const bool started = startReady(now);
    const bool pumped = pumpChannels(now);
    changed = ended || started || pumped;
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
