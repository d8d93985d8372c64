#pragma once
// The task scheduler of one device: in-order stream queues dispatched onto DMA channels, which
// move each copy chunk by chunk through the transfer timing model, and onto the AI Cores, which
// run one kernel at a time tile by tile through the same model (so kernels and copies share
// device memory). It never ticks: after every
// change it computes the next instant something can happen (a task arrives, a channel may start
// its next chunk, a task ends) and sleeps until then.

#include <deque>
#include <functional>
#include <memory>
#include <systemc>
#include <vector>

#include "models/dma/transfer_timing.h"
#include "models/sched/solo_run.h"
#include "models/sched/stream_queue.h"
#include "models/task/sim_time.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

// Sees every task start and end; traces and reports implement it.
class TaskListener {
 public:
  virtual ~TaskListener() = default;
  virtual void taskStarted(int device, const StreamQueue& stream, const Task& task) = 0;
  virtual void taskEnded(int device, const StreamQueue& stream, const Task& task) = 0;
};

class MachineRun;
class MachineClock;

class DeviceScheduler : public sc_core::sc_module {
 public:
  // `clock` runs dispatch() whenever the scheduler asks to be woken.
  DeviceScheduler(sc_core::sc_module_name name, const spec::DeviceSpec& spec, int deviceIndex,
                  TransferTiming& timing, MachineClock& clock);
  ~DeviceScheduler() override;
  // Whether a copy whose pieces have settled into a steady state on a way nobody else uses moves
  // the rest of them in one step (models/sched/solo_run.h; on by default). Off: piece by piece,
  // with the same timing.
  void setPieceRuns(bool on) { pieceRuns_ = on; }
  // Pieces moved within runs rather than one by one, so far.
  uint64_t piecesInRuns() const { return piecesInRuns_; }
  // The machine's channels seen together (models/sched/machine_run.h); nullptr: this one alone.
  void setMachineRun(MachineRun* machine) { machine_ = machine; }

  void attach(StreamQueue& stream);
  void detach(StreamQueue& stream);  // the stream must be idle
  // Ready heads take free DMA channels and the AI Cores in order of their streams' priority (0
  // first), then of the streams' creation.
  void setPriority(StreamQueue& stream, uint32_t priority);
  // Adds a task at the tail of `stream`; it may start at task->submitTime at the earliest.
  void submit(StreamQueue& stream, std::unique_ptr<Task> task);
  // Ends a running task that completes externally (a blocking callback the host has run).
  void finishExternal(StreamQueue& stream, Picoseconds when);
  // Re-examines the queues: something outside (an event record elsewhere) may have unblocked one.
  void wake();

  void addListener(TaskListener* listener) { listeners_.push_back(listener); }
  void setRecordObserver(std::function<void()> f) { onRecordCompleted_ = std::move(f); }
  unsigned channels() const { return static_cast<unsigned>(channels_.size()); }
  unsigned busyChannels() const;
  bool aiCoresBusy() const { return aicore_.task != nullptr; }
  unsigned busyCopyChannels() const { return busyCopies_; }

 private:
  void dispatch();
  bool completeFinished(Picoseconds now);
  bool startReady(Picoseconds now);
  bool pumpChannels(Picoseconds now);
  bool ready(const Task& task, Picoseconds now) const;
  void start(StreamQueue& stream, Task& task, Picoseconds now);
  void wakeAt(Picoseconds when);

  const spec::DeviceSpec& spec_;
  int index_;
  TransferTiming& timing_;
  std::vector<StreamQueue*> streams_;
  struct Channel {
    Task* task = nullptr;     // the copy or memset it is moving
    uint64_t offset = 0;      // bytes of it already issued
    uint32_t readWindow = 0;  // read requests it may have outstanding for this task
    Picoseconds nextIssue = 0;
    Picoseconds lastDone = 0;
    struct Piece {
      Picoseconds done;  // when its buffer frees
      uint64_t bytes;
      uint32_t requests;
      bool staged = false;  // through a host thread's double-buffered pinned staging buffer
    };
    std::deque<Piece> inFlight;  // issued pieces that have not landed
    uint64_t inFlightBytes = 0;
    uint64_t inFlightRequests = 0;
    // What the last piece left, for finding a steady state, and the run moved in one step.
    struct Probe {
      bool valid = false;
      Picoseconds issue = 0;
      ChunkTiming chunk;
      Picoseconds nextIssue = 0, lastDone = 0;  // relative to `issue`
      std::vector<Piece> inFlight;              // their `done` relative to `issue`
      PathState path;
      bool sameChannel(const Probe& other) const;  // all but `issue` and `path`
    };
    Probe last;
    ChunkTiming lastChunk;      // the last piece issued
    bool inMachineRun = false;  // moved by the machine's run: MachineRun sets it
    std::vector<PathUse> path;  // what its last piece did on its way (machine runs only)
    bool pathRepeats = false;
    uint32_t misses = 0;     // pieces of this search that found no steady state
    uint32_t pause = 0;      // pieces before the next search
    uint32_t nextPause = 0;  // pieces the next pause lasts
    std::unique_ptr<SoloRun> run;
    uint64_t runOffset = 0;  // `offset` when the run began
  };
  // When channel `c` may issue its next piece (of about `next`'s size and read requests), at `t`
  // or later. Staged pieces: two in flight (the thread's two pinned buffers). Reads: at most
  // the channel's `readWindow` requests in flight (one piece always may go). Writes and kernel
  // tiles: at most `byteWindow` bytes, but always two pieces (double buffering).
  Picoseconds windowOpens(Channel& c, Picoseconds t, const Channel::Piece& next,
                          uint64_t byteWindow) const;
  friend class MachineRun;
  bool pump(Channel& c, uint64_t byteWindow, Picoseconds now);
  // Issues `c`'s next piece at c.nextIssue.
  ChunkTiming issuePiece(Channel& c, uint64_t byteWindow);
  // The channel's state after a piece issued at `at`, relative to it.
  static Channel::Probe probe(const Channel& c, Picoseconds at, const ChunkTiming& chunk);
  // The inverse: sets `c`'s pieces in flight, next issue and last landing from `p`, shifted to
  // `at` (its offset is the caller's).
  static void restore(Channel& c, const Channel::Probe& p, Picoseconds at);
  int channelIndex(const Channel& c) const { return static_cast<int>(&c - channels_.data()); }
  // After a piece issued at `issue`: whether the channel's state repeats the last piece's, and if
  // so, moves the rest of the copy but its last piece as one run.
  void seekSteadyState(Channel& c, Picoseconds issue, const ChunkTiming& chunk);
  // Sets the channel as the first `m` pieces of its run leave it and ends the run.
  void endRun(Channel& c, uint64_t m);
  bool pieceRuns_ = true;
  MachineRun* machine_ = nullptr;
  unsigned busyCopies_ = 0;  // channels with a copy or memset
  uint64_t piecesInRuns_ = 0;
  uint64_t byteWindow_;  // bytes of posted writes a channel may have in flight
  std::vector<Channel> channels_;
  Channel aicore_;  // the kernel on the AI Cores: two tiles per core in flight (double buffering)
  MachineClock& clock_;
  int clockIndex_;
  std::vector<TaskListener*> listeners_;
  std::function<void()> onRecordCompleted_;
};

}  // namespace ascendsim::models
