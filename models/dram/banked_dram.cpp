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
      "starvation_cap", "page_policy", "address_mapping", "command_bus"},
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
  for (uint32_t i = 0; i < n; ++i) channels_.emplace_back(m, stats_[i], buses_[i / perBus]);
  isTouched_.assign(n, false);
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
  }
  touched_.clear();
  admitted_ = 0;  // a new batch comes with its own arrival times
  return last * tckPs_;
}

DramStats BankedDram::totalStats() const {
  DramStats total;
  for (const DramStats& s : stats_) total.add(s);
  return total;
}

}  // namespace ascendsim::models
