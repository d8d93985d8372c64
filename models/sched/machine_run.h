#pragma once
// Copies that share their way (eight devices behind two switch uplinks and one host memory) never
// run alone, but together they too settle into a steady state: the whole machine repeats itself.
// MachineRun watches every DMA channel's pieces. At each piece of the leader (the first busy
// channel) it takes a snapshot of every busy channel's state and of every booking still to come
// on their ways, relative to that instant; when a snapshot equals one taken some pieces earlier,
// everything between them repeats with that period, and the whole machine moves whole periods in
// one step. Anything else booking one of the held resources (a new copy, a kernel) or a channel
// reaching the end of the run brings every channel to that instant: the state at the last whole
// period, then the pieces of the period in progress issued again in their order (so the machine
// is where piece by piece would have taken it). Timing is the same as piece by piece.

#include <cstdint>
#include <deque>
#include <vector>

#include "models/dma/transfer_timing.h"
#include "models/resource/resource.h"
#include "models/sched/device_scheduler.h"

namespace ascendsim::models {

class MachineRun : public HeldPath {
 public:
  explicit MachineRun(std::vector<DeviceScheduler*> devices) : devices_(std::move(devices)) {}
  MachineRun(const MachineRun&) = delete;
  MachineRun& operator=(const MachineRun&) = delete;
  ~MachineRun() override;

  // Channel `channel` of device `device` issued a piece at `issue`.
  void pieceIssued(int device, int channel, Picoseconds issue);
  // Brings every channel of a run in progress to `t`: the pieces issued before it.
  void yieldAt(Picoseconds t) override;
  // Pieces moved within runs rather than one by one, so far.
  uint64_t piecesInRuns() const { return piecesInRuns_; }
  // Whether it looks for a steady state now: the channels' ways are then worth noting.
  bool watching() const;

 private:
  using Channel = DeviceScheduler::Channel;
  struct ChannelAt {
    int device, channel;
    Channel::Probe probe;  // relative to the snapshot's instant
    std::vector<PathUse> path;
    uint64_t offset;
  };
  struct Snapshot {
    Picoseconds at = 0;
    std::vector<ChannelAt> channels;
    std::vector<Resource*> resources;
    std::vector<std::vector<Booking>> bookings;  // relative to `at`
    std::vector<PathUse> counts;                 // each resource's counts so far
    size_t logEnd = 0;                           // pieces logged up to the leader's
  };
  struct Issue {
    int device, channel;
    Picoseconds at;
  };
  Channel& channel(int device, int index) const;
  unsigned busyChannels() const;  // counted up to 2
  bool capture(Snapshot& s, Picoseconds at) const;
  static bool same(const Snapshot& a, const Snapshot& b);
  void start(Snapshot now, const Snapshot& then);
  // Sets every channel and resource as `r` whole periods after the run began leave them.
  void restore(uint64_t r);
  void forget();

  std::vector<DeviceScheduler*> devices_;
  std::deque<Snapshot> snapshots_;  // the last few, oldest first
  std::vector<Issue> log_;          // every piece since the oldest snapshot, in order
  uint32_t misses_ = 0, pause_ = 0, nextPause_ = 0;  // as a channel's search for its own
  // The run in progress.
  bool running_ = false;
  Snapshot base_;                         // the state it began in
  std::vector<Issue> period_;             // the pieces of one period, relative to its start
  std::vector<uint64_t> perPeriod_;       // pieces per period of each of base_'s channels
  std::vector<PathUse> countsPerPeriod_;  // of each of base_'s resources
  Picoseconds length_ = 0;                // of a period
  uint64_t periods_ = 0;
  uint64_t piecesInRuns_ = 0;
};

}  // namespace ascendsim::models
