#pragma once
// "banked": every independent channel a DramChannel; accesses split into bursts by the address
// mapping.

#include <deque>
#include <memory>
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
  Picoseconds admitted() const override { return admitted_ * tckPs_; }
  uint64_t mark() override;
  Picoseconds issueGroup(uint64_t group) override;
  DramStats totalStats() const override;
  std::vector<DramStats> channelStats() const override { return stats_; }
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
  }
  DramChannel::ReplayCounters replayCounters() const;
  void setIssueLog(std::vector<DramChannel::Issued>* log) {
    for (uint32_t i = 0; i < channels_.size(); ++i) channels_[i].setIssueLog(log, i);
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
};

}  // namespace ascendsim::models
