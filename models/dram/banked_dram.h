#pragma once
// "banked": every independent channel a DramChannel; accesses split into bursts by the address
// mapping.

#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

#include "models/dram/address_decoder.h"
#include "models/dram/dram_channel.h"
#include "models/dram/memory_timing.h"

namespace ascendsim::models {

class BankedDram : public MemoryTiming {
 public:
  explicit BankedDram(const spec::DramSpec& memory);
  void enqueue(uint64_t offset, uint64_t bytes, bool write, Picoseconds arrival) override;
  Picoseconds drain() override;
  // With replay on, a batch of writes offered to idle channels whose state and requests repeat
  // an earlier batch's (relative to its first arrival) takes that batch's commands at once
  // (batch replay, dram_channel_replay.cpp); a batch of reads is offered to the channels without
  // being queued (as far as their queues hold them), so that each channel's drain replays without
  // queueing its requests (DramChannel::admitRun); otherwise enqueue and drain.
  BatchEnd drainBatch(const std::vector<BatchAccess>& batch, bool write) override;
  Picoseconds admitted() const override { return admitted_ * tckPs_; }
  uint64_t mark() override;
  Picoseconds issueGroup(uint64_t group) override;
  DramStats totalStats() const override;
  std::vector<DramStats> channelStats() const override {
    for (const DramChannel& c : channels_) c.flushLatencies();
    return stats_;
  }
  DramCounters counters() const override {
    DramCounters sum;
    for (const DramStats& s : stats_) sum.add(s.counters());
    return sum;
  }
  const char* name() const override { return "banked"; }

  // For tests: the channels' scheduling shortcuts on or off, and a log of every burst issued.
  void setShortcuts(bool on) {
    for (DramChannel& c : channels_) c.setShortcuts(on);
  }
  // Drain replay (DramChannel::setReplay) on or off, and its counters summed over channels.
  void setReplay(bool on) {
    for (DramChannel& c : channels_) c.setReplay(on);
    batchReplay_.on = on;
  }
  DramChannel::ReplayCounters replayCounters() const;
  // Batch replay's counters: batches offered (large enough to look up), replayed, recorded.
  struct BatchCounters {
    uint64_t batches = 0, replayed = 0, recorded = 0, replayedBursts = 0;
    uint64_t replayedWithRefresh = 0;  // of those replayed, batches that meet a refresh
  };
  const BatchCounters& batchCounters() const { return batchReplay_.counters; }
  void setIssueLog(std::vector<DramChannel::Issued>* log) {
    for (uint32_t i = 0; i < channels_.size(); ++i) channels_[i].setIssueLog(log, i);
    batchReplay_.logging = log != nullptr;
  }

 private:
  AddressDecoder decoder_;
  int64_t tckPs_;
  std::vector<CommandBus>
      buses_;  // one per channel (pseudo-channels share it); channels refer to it
  std::vector<DramStats> stats_;  // one per channel; channels keep references into it
  std::vector<DramChannel> channels_;
  std::vector<uint32_t> touched_;
  // The run of bursts last decoded: [runBegin_, runEnd_) share runCoordinates_ but the column.
  uint64_t runBegin_ = 1, runEnd_ = 0;
  DramCoordinates runCoordinates_;
  std::vector<bool> isTouched_;
  int64_t admitted_ = 0;  // cycle the latest request of this batch was admitted

  // Streaming (from the first mark on): per group and channel, the arrival numbers its requests
  // end before (reads, writes), how many of them are still queued, and its latest data end.
  struct Group {
    std::vector<uint64_t> readsBefore, writesBefore;
    std::vector<uint32_t> queued;
    int64_t end = 0;
    bool asked = false;
  };
  // Books the bursts channel `ch` issued since the last call to their groups.
  void settle(uint32_t ch);
  std::deque<Group> groups_;
  uint64_t firstGroup_ = 0;                           // the number of groups_.front()
  std::vector<std::vector<DramChannel::Done>> done_;  // per channel; empty until the first mark
  // The requests queued since the last mark: per channel the arrival numbers they start at and
  // how many have issued, and their latest data end.
  std::vector<uint64_t> openReads_, openWrites_;
  std::vector<uint32_t> openIssued_;
  int64_t openEnd_ = 0;

  // Batch replay: the key of the batch being offered, the recorded batches.
  struct BatchEntry {
    std::vector<int32_t> key;  // packed (packKey)
    std::vector<DramChannel::BatchStep> steps;
    std::vector<DramChannel::BatchLogStep> logSteps;  // when recorded with an issue log
    bool logged = false;
    bool refreshKey = false;  // keyed with every channel's refresh state (it met a refresh)
    int64_t admitted = 0;     // when the channels took its last request (from t0)
    std::vector<DramChannel::BatchOutcome> channels;
    std::vector<DramChannel::BusState> buses;  // per bus, kept by its first channel
  };
  std::vector<uint32_t> busFirst_;  // the first channel of each bus
  struct BatchReplay {
    bool on = true;
    BatchCounters counters;
    std::vector<int64_t> key, requests;
    std::vector<int32_t> packed, packedWith;  // key, packed (with the refresh part)
    // The requests' parts of keys seen (a batch key holds the number of its own).
    std::vector<std::vector<int64_t>> requestParts;
    std::unordered_multimap<uint64_t, uint32_t> requestsByHash;
    // Per requests' part, per channel: the banks and rows (relative) its requests want.
    std::vector<std::vector<std::vector<DramChannel::Wanted>>> wanted;
    std::vector<BatchEntry> entries;
    std::unordered_map<uint64_t, uint32_t> byHash;
    size_t words = 0;
    uint32_t misses = 0, skip = 0, backoff = 0;
    bool logging = false;  // the channels log their bursts
  } batchReplay_;
  // The batch's key (false: not one batch replay covers), from t0 with rows from baseRow.
  bool batchKey(const std::vector<BatchAccess>& batch, int64_t& t0, uint64_t& baseRow,
                uint64_t& hash);
  // Appends every channel's refresh state to the batch's key (DramChannel::appendRefreshKey);
  // returns the whole key's hash.
  uint64_t refreshKey(int64_t t0, uint64_t hash);
  // Takes a recorded batch's outcome.
  BatchEnd applyBatch(const BatchEntry& e, int64_t t0, uint64_t baseRow);
  BatchEnd plainBatch(const std::vector<BatchAccess>& batch, bool write) {
    return MemoryTiming::drainBatch(batch, write);
  }
  // enqueue, or with `offer` DramChannel::admitRun (a run of bursts at once) instead of
  // DramChannel::enqueue.
  template <bool offer>
  void take(uint64_t offset, uint64_t bytes, bool write, Picoseconds arrival);
  BatchEnd offerReads(const std::vector<BatchAccess>& batch);
  BatchEnd writeBatch(const std::vector<BatchAccess>& batch);
};

}  // namespace ascendsim::models
