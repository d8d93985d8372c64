#include "models/dram/banked_dram.h"

#include <algorithm>

#include "models/dram/dram_standard.h"

namespace ascendsim::models {
namespace {
const DramModelRegistration kRegistered{
    {"dram-model",
     "banked",
     "channels with bank state, FR-FCFS read/write queues, write drain and refresh (JEDEC timings)",
     {"queue_depth", "write_queue_depth", "write_high_watermark", "write_low_watermark",
      "starvation_cap", "page_policy", "address_mapping", "command_bus", "drain_replay"},
     {}},
    [](const spec::DramSpec& m) { return std::make_unique<BankedDram>(m); }};
}  // namespace

BankedDram::BankedDram(const spec::DramSpec& m) : decoder_(m), tckPs_(m.tCK()) {
  const uint32_t n = m.independentChannels();
  // An HBM channel's pseudo-channels share its command bus; DDR5 sub-channels each have their own
  // (`command_bus` may say otherwise).
  const bool shared = m.commandBus == spec::CommandBusSharing::Standard
                          ? dramStandard(m.standard).pseudoChannelsShareCommandBus
                          : m.commandBus == spec::CommandBusSharing::Shared;
  const uint32_t perBus = shared ? std::max<uint32_t>(1, m.pseudoChannels) : 1;
  buses_ = std::vector<CommandBus>((n + perBus - 1) / perBus);
  stats_.resize(n);
  channels_.reserve(n);
  for (uint32_t i = 0; i < n; ++i) {
    channels_.emplace_back(m, stats_[i], buses_[i / perBus]);
    if (i > 0) channels_[i].shareReplays(channels_[0]);
  }
  isTouched_.assign(n, false);
  setReplay(m.drainReplay);
}

void BankedDram::enqueue(uint64_t offset, uint64_t bytes, bool write, Picoseconds arrival) {
  // Requests are admitted in the order they are offered: one that waits for a slot in a full
  // channel queue holds back every later one, whichever channel it is for (as the reference
  // simulators' front ends do, and as an in-order request port does).
  const int64_t cycle = std::max((arrival + tckPs_ - 1) / tckPs_, admitted_);
  const uint64_t burst = decoder_.burstBytes();
  uint64_t at = offset / burst * burst;
  const uint64_t end = offset + bytes;
  while (at < end) {
    // Consecutive accesses often stay in one run of bursts that share channel, bank and row:
    // decode a run once.
    DramCoordinates c;
    if (at >= runBegin_ && at < runEnd_) {
      c = runCoordinates_;
    } else {
      c = decoder_.decode(at);
      runCoordinates_ = c;
      runBegin_ = at;
      runEnd_ = at + decoder_.burstsSharingCoordinates(at) * burst;
    }
    // A local copy and a local end: the channel's stores cannot alias them, so they stay in
    // registers.
    const uint64_t runEnd = runEnd_;
    DramRequest r;
    r.write = write;
    r.rank = c.rank;
    r.bankGroup = c.bankGroup;
    r.bank = c.bank;
    r.row = c.row;
    r.arrival = cycle;
    DramChannel& channel = channels_[c.channel];
    const uint64_t stop = std::min(runEnd, end);
    for (; at < stop; at += burst) {
      r.bytes = static_cast<uint32_t>(std::min(end, at + burst) - std::max(offset, at));
      r.arrival = std::max(r.arrival, channel.enqueue(r));
    }
    admitted_ = r.arrival;
    if (!isTouched_[c.channel]) {
      isTouched_[c.channel] = true;
      touched_.push_back(c.channel);
    }
  }
}

Picoseconds BankedDram::drain() {
  int64_t last = 0;
  for (uint32_t ch : touched_) {
    channels_[ch].drain();
    last = std::max(last, channels_[ch].lastDataEnd());
    isTouched_[ch] = false;
    if (!done_.empty()) settle(ch);
  }
  touched_.clear();
  admitted_ = 0;  // a new batch comes with its own arrival times
  return last * tckPs_;
}

uint64_t BankedDram::mark() {
  const size_t n = channels_.size();
  Group g;
  g.readsBefore.resize(n);
  g.writesBefore.resize(n);
  g.queued.resize(n);
  if (done_.empty()) {
    // The first mark: from here on every burst issued is booked to its group. The first group
    // holds what is queued now.
    done_.resize(n);
    openIssued_.assign(n, 0);
    for (uint32_t ch = 0; ch < n; ++ch) {
      channels_[ch].setDoneLog(&done_[ch]);
      g.queued[ch] = channels_[ch].queued();
      openEnd_ = std::max(openEnd_, channels_[ch].lastDataEnd());
    }
  } else {
    for (uint32_t ch = 0; ch < n; ++ch) {
      settle(ch);
      g.queued[ch] = static_cast<uint32_t>(channels_[ch].nextSeq(false) - openReads_[ch] +
                                           channels_[ch].nextSeq(true) - openWrites_[ch]) -
                     openIssued_[ch];
    }
  }
  for (uint32_t ch = 0; ch < n; ++ch) {
    g.readsBefore[ch] = channels_[ch].nextSeq(false);
    g.writesBefore[ch] = channels_[ch].nextSeq(true);
  }
  g.end = openEnd_;
  openReads_ = g.readsBefore;
  openWrites_ = g.writesBefore;
  std::fill(openIssued_.begin(), openIssued_.end(), 0);
  openEnd_ = 0;
  groups_.push_back(std::move(g));
  return firstGroup_ + groups_.size() - 1;
}

void BankedDram::settle(uint32_t ch) {
  for (const DramChannel::Done& d : done_[ch]) {
    const uint64_t open = d.write ? openWrites_[ch] : openReads_[ch];
    if (d.seq >= open) {  // not marked yet
      ++openIssued_[ch];
      openEnd_ = std::max(openEnd_, d.dataEnd);
      continue;
    }
    // The first group whose requests on this channel end after it (groups' arrival numbers grow).
    const auto it =
        std::upper_bound(groups_.begin(), groups_.end(), d.seq, [&](uint64_t seq, const Group& g) {
          return seq < (d.write ? g.writesBefore : g.readsBefore)[ch];
        });
    if (it == groups_.end()) continue;  // (never: asked groups have no requests left)
    --it->queued[ch];
    it->end = std::max(it->end, d.dataEnd);
  }
  done_[ch].clear();
}

Picoseconds BankedDram::issueGroup(uint64_t group) {
  if (group < firstGroup_ || group >= firstGroup_ + groups_.size()) return 0;  // asked before
  Group& g = groups_[group - firstGroup_];
  for (uint32_t ch = 0; ch < channels_.size(); ++ch) {
    settle(ch);
    while (g.queued[ch] > 0) {
      if (channels_[ch].queued() == 0) {  // (never: its requests are queued until they issue)
        g.queued[ch] = 0;
        break;
      }
      channels_[ch].issueNext();
      settle(ch);
    }
  }
  g.asked = true;
  const int64_t end = g.end;
  while (!groups_.empty() && groups_.front().asked) {
    groups_.pop_front();
    ++firstGroup_;
  }
  return end * tckPs_;
}

DramChannel::ReplayCounters BankedDram::replayCounters() const {
  DramChannel::ReplayCounters sum;
  for (const DramChannel& c : channels_) {
    const DramChannel::ReplayCounters& r = c.replayCounters();
    sum.drains += r.drains;
    sum.replayed += r.replayed;
    sum.recorded += r.recorded;
    sum.drainedBursts += r.drainedBursts;
    sum.replayedBursts += r.replayedBursts;
  }
  return sum;
}

DramStats BankedDram::totalStats() const {
  DramStats total;
  for (const DramStats& s : stats_) total.add(s);
  return total;
}

}  // namespace ascendsim::models
