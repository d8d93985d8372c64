#include "models/dram/banked_dram.h"

#include <algorithm>
#include <limits>

#include "models/dram/dram_standard.h"

namespace ascendsim::models {
namespace {
// Batch replay: batches worth a lookup (the key holds every channel's state), what a memory keeps
// of recorded batches (in 8-byte words: 128 MiB), and the pause after lookups that miss.
constexpr uint64_t kMinBatchBytes = 64 << 10;
constexpr size_t kMaxBatchWords = size_t{16} << 20;
constexpr uint32_t kBatchMissesBeforePause = 8;
constexpr uint32_t kLongestBatchPause = 1024;

// Marks where a batch key's refresh part starts (a value no word of a batch key takes).
constexpr int64_t kRefreshMark = std::numeric_limits<int64_t>::min() + 7;

uint64_t hashKey(const std::vector<int64_t>& key, size_t from = 0) {
  // Four lanes, so that the multiplications do not wait for each other.
  uint64_t lane[4] = {key.size() - from, 1, 2, 3};
  size_t i = from;
  for (; i + 4 <= key.size(); i += 4) {
    for (size_t j = 0; j < 4; ++j)
      lane[j] = (lane[j] ^ static_cast<uint64_t>(key[i + j])) * 0x9e3779b97f4a7c15ull;
  }
  for (; i < key.size(); ++i)
    lane[0] = (lane[0] ^ static_cast<uint64_t>(key[i])) * 0xff51afd7ed558ccdull;
  uint64_t h = lane[0];
  for (int j = 1; j < 4; ++j) h = (h ^ (lane[j] + (h << 6) + (h >> 2))) * 0xc4ceb9fe1a85ec53ull;
  return h;
}
// A key as stored: each word in 32 bits when it fits, kPast as one marker word, any other word as
// a second marker and its two halves (a code no two keys share: keys compare equal packed exactly
// when they do whole).
constexpr int32_t kPastWord = std::numeric_limits<int32_t>::min();
constexpr int32_t kWideWord = kPastWord + 1;
void packKey(const std::vector<int64_t>& key, size_t from, std::vector<int32_t>& out) {
  for (size_t i = from; i < key.size(); ++i) {
    const int64_t v = key[i];
    if (v == std::numeric_limits<int64_t>::min()) {
      out.push_back(kPastWord);
    } else if (v > kWideWord && v <= std::numeric_limits<int32_t>::max()) {
      out.push_back(static_cast<int32_t>(v));
    } else {
      const auto u = static_cast<uint64_t>(v);
      out.push_back(kWideWord);
      out.push_back(static_cast<int32_t>(static_cast<uint32_t>(u)));
      out.push_back(static_cast<int32_t>(static_cast<uint32_t>(u >> 32)));
    }
  }
}

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
    if (i % perBus == 0) busFirst_.push_back(i);
  }
  isTouched_.assign(n, false);
  setReplay(m.drainReplay);
}

void BankedDram::enqueue(uint64_t offset, uint64_t bytes, bool write, Picoseconds arrival) {
  take<false>(offset, bytes, write, arrival);
}

template <bool offer>
void BankedDram::take(uint64_t offset, uint64_t bytes, bool write, Picoseconds arrival) {
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
    if (offer) {
      // Offered as runs: the bursts wholly inside the access together.
      while (at < stop) {
        uint64_t n = 1;
        if (at >= offset)
          n = std::max<uint64_t>(1, std::min((stop - at + burst - 1), end - at) / burst);
        r.bytes = static_cast<uint32_t>(std::min(end, at + burst) - std::max(offset, at));
        r.arrival = std::max(r.arrival, channel.admitRun(r, n));
        at += n * burst;
      }
    } else {
      for (; at < stop; at += burst) {
        r.bytes = static_cast<uint32_t>(std::min(end, at + burst) - std::max(offset, at));
        r.arrival = std::max(r.arrival, channel.enqueue(r));
      }
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

bool BankedDram::batchKey(const std::vector<BatchAccess>& batch, int64_t& t0, uint64_t& baseRow,
                          uint64_t& hash) {
  int64_t first = std::numeric_limits<int64_t>::max();
  uint64_t bytes = 0;
  for (const BatchAccess& a : batch) {
    first = std::min(first, (a.arrival + tckPs_ - 1) / tckPs_);
    bytes += a.bytes;
  }
  if (bytes < kMinBatchBytes) return false;
  // Every request is admitted at or after t0 (its own arrival, or a later admission), and every
  // command goes at or after its request's admission.
  t0 = std::max(first, admitted_);
  baseRow = decoder_.decode(batch.front().offset).row;
  // The requests: admission (relative; one before t0 is admitted at t0 or later, as the earliest
  // is), where they start and their size, as offsets from the first's, with that one's place in
  // the period of a row step: they give the same runs of bursts (the runs enqueue takes them in)
  // at the same coordinates, rows relative, whichever row step the batch starts in. Then each
  // channel's state.
  BatchReplay& B = batchReplay_;
  std::vector<int64_t>& key = B.requests;
  key.clear();
  key.push_back(static_cast<int64_t>(batch.size()));
  const uint64_t from = batch.front().offset;
  key.push_back(static_cast<int64_t>(from % decoder_.rowPeriod()));
  for (const BatchAccess& a : batch) {
    key.push_back(std::max((a.arrival + tckPs_ - 1) / tckPs_, t0) - t0);
    key.push_back(static_cast<int64_t>(a.offset - from));
    key.push_back(static_cast<int64_t>(a.bytes));
  }
  // The requests' part is kept once (batches of a copy repeat a few patterns of requests) with
  // the banks and rows (relative) its requests want on each channel: the key holds its number
  // among those kept.
  const uint64_t requestsHash = hashKey(key);
  int64_t id = -1;
  for (auto [at, end] = B.requestsByHash.equal_range(requestsHash); at != end && id < 0; ++at) {
    if (B.requestParts[at->second] == key) id = at->second;
  }
  if (id < 0) {
    // (None kept once recordings are full: such a batch is not looked up.)
    if (B.words >= kMaxBatchWords) return false;
    id = static_cast<int64_t>(B.requestParts.size());
    std::vector<std::vector<DramChannel::Wanted>> wanted(channels_.size());
    const uint64_t burst = decoder_.burstBytes();
    for (const BatchAccess& a : batch) {
      uint64_t at = a.offset / burst * burst;
      const uint64_t end = a.offset + a.bytes;
      while (at < end) {
        const DramCoordinates c = decoder_.decode(at);
        const uint64_t stop = std::min(at + decoder_.burstsSharingCoordinates(at) * burst, end);
        const DramChannel::Wanted w{c.rank, c.bankGroup, c.bank, c.row - baseRow};
        std::vector<DramChannel::Wanted>& list = wanted[c.channel];
        const bool seen = std::any_of(list.begin(), list.end(), [&](const auto& o) {
          return o.rank == w.rank && o.bankGroup == w.bankGroup && o.bank == w.bank &&
                 o.row == w.row;
        });
        if (!seen) list.push_back(w);
        at += (stop - at + burst - 1) / burst * burst;
      }
    }
    size_t words = key.size() + 4;
    for (const auto& list : wanted) words += list.size() * 3 + 3;
    B.requestsByHash.emplace(requestsHash, static_cast<uint32_t>(id));
    B.requestParts.push_back(key);
    B.wanted.push_back(std::move(wanted));
    B.words += words;
  }
  const std::vector<std::vector<DramChannel::Wanted>>& wanted = B.wanted[static_cast<size_t>(id)];
  B.key.clear();
  B.key.push_back(id);
  for (uint32_t ch = 0; ch < channels_.size(); ++ch)
    channels_[ch].appendBatchKey(t0, baseRow, wanted[ch], B.key);
  hash = hashKey(B.key);
  return true;
}

uint64_t BankedDram::refreshKey(int64_t t0, uint64_t hash) {
  std::vector<int64_t>& key = batchReplay_.key;
  const size_t from = key.size();
  key.push_back(kRefreshMark);
  for (const DramChannel& c : channels_) c.appendRefreshKey(t0, key);
  const uint64_t rest = hashKey(key, from);
  return (hash ^ (rest + (hash << 6) + (hash >> 2))) * 0xc4ceb9fe1a85ec53ull;
}

MemoryTiming::BatchEnd BankedDram::applyBatch(const BatchEntry& e, int64_t t0, uint64_t baseRow) {
  BatchReplay& B = batchReplay_;
  for (size_t i = 0; i < e.logSteps.size() && B.logging; ++i)
    channels_[e.steps[i].channel].logBatchStep(e.steps[i], e.logSteps[i], t0, baseRow);
  for (size_t b = 0; b < busFirst_.size(); ++b) channels_[busFirst_[b]].restoreBus(t0, e.buses[b]);
  int64_t last = 0;
  for (uint32_t ch = 0; ch < channels_.size(); ++ch) {
    const DramChannel::BatchOutcome& o = e.channels[ch];
    channels_[ch].applyBatch(o, t0, baseRow);
    if (o.writes > 0) last = std::max(last, channels_[ch].lastDataEnd());
  }
  admitted_ = 0;  // as drain() leaves it
  ++B.counters.replayed;
  if (e.refreshKey) ++B.counters.replayedWithRefresh;
  B.counters.replayedBursts += e.steps.size();
  B.misses = 0;
  B.backoff = 0;
  return {(e.admitted + t0) * tckPs_, last * tckPs_};
}

MemoryTiming::BatchEnd BankedDram::offerReads(const std::vector<BatchAccess>& batch) {
  // (Every channel idle.)
  for (const BatchAccess& a : batch) take<true>(a.offset, a.bytes, false, a.arrival);
  const Picoseconds taken = admitted();
  // As drain(), each channel draining what it was offered.
  int64_t last = 0;
  for (uint32_t ch : touched_) {
    channels_[ch].drainOffered();
    last = std::max(last, channels_[ch].lastDataEnd());
    isTouched_[ch] = false;
  }
  touched_.clear();
  admitted_ = 0;
  return {taken, last * tckPs_};
}

MemoryTiming::BatchEnd BankedDram::drainBatch(const std::vector<BatchAccess>& batch, bool write) {
  if (!write) {
    bool offer = batchReplay_.on && !batch.empty() && done_.empty() && touched_.empty();
    for (size_t ch = 0; offer && ch < channels_.size(); ++ch) offer = channels_[ch].idle();
    return offer ? offerReads(batch) : MemoryTiming::drainBatch(batch, false);
  }
  return writeBatch(batch);
}

MemoryTiming::BatchEnd BankedDram::writeBatch(const std::vector<BatchAccess>& batch) {
  const bool write = true;
  BatchReplay& B = batchReplay_;
  // Writes offered to idle channels, not streaming (whose groups count their bursts).
  if (!B.on || batch.empty() || !done_.empty() || !touched_.empty())
    return plainBatch(batch, write);
  for (const DramChannel& c : channels_) {
    if (!c.idle()) return plainBatch(batch, write);
  }
  if (B.skip > 0) {
    --B.skip;
    return plainBatch(batch, write);
  }
  int64_t t0 = 0;
  uint64_t baseRow = 0, hash = 0;
  if (!batchKey(batch, t0, baseRow, hash)) return plainBatch(batch, write);
  ++B.counters.batches;
  // A batch recorded without meeting a refresh applies while no channel's refresh comes due
  // before its commands; otherwise one recorded from the same refresh state (the longer key).
  const auto found = B.byHash.find(hash);
  B.packed.clear();
  packKey(B.key, 0, B.packed);
  if (found != B.byHash.end() && B.entries[found->second].key == B.packed) {
    const BatchEntry& e = B.entries[found->second];
    bool clear = !B.logging || e.logged;
    for (uint32_t ch = 0; clear && ch < channels_.size(); ++ch)
      clear = channels_[ch].batchClear(e.channels[ch], t0);
    if (clear) return applyBatch(e, t0, baseRow);
  }
  const size_t withoutRefresh = B.key.size();
  const uint64_t withRefresh = refreshKey(t0, hash);
  const auto foundWith = B.byHash.find(withRefresh);
  std::vector<int32_t>& packedWith = B.packedWith;
  packedWith = B.packed;
  packKey(B.key, withoutRefresh, packedWith);
  if (foundWith != B.byHash.end() && B.entries[foundWith->second].key == packedWith) {
    const BatchEntry& e = B.entries[foundWith->second];
    if (!B.logging || e.logged) return applyBatch(e, t0, baseRow);
  }
  // Lookups that miss while nothing more can be recorded pause (after 8 in a row for 8, 16, ...
  // 1024 batches): traffic whose batches do not repeat.
  const bool full = B.words >= kMaxBatchWords;
  if (full && ++B.misses >= kBatchMissesBeforePause) {
    B.backoff = std::min(kLongestBatchPause, std::max(kBatchMissesBeforePause, B.backoff * 2));
    B.skip = B.backoff;
    B.misses = 0;
  }
  if (full) return plainBatch(batch, write);
  // Record it: enqueue and drain as ever, noting every command.
  BatchEntry e;
  for (uint32_t ch = 0; ch < channels_.size(); ++ch)
    channels_[ch].beginBatch(B.logging ? &e.steps : nullptr, B.logging ? &e.logSteps : nullptr, ch,
                             t0, baseRow);
  e.logged = B.logging;
  const BatchEnd end = plainBatch(batch, write);
  e.admitted = end.admitted / tckPs_ - t0;
  e.channels.resize(channels_.size());
  bool ok = true;
  for (uint32_t ch = 0; ch < channels_.size(); ++ch) {
    ok = channels_[ch].endBatch(e.channels[ch]) && ok;
    e.refreshKey = e.refreshKey || e.channels[ch].refreshes > 0;
  }
  // Kept under the key that determines it (a hash already taken by another key: not kept).
  if (!ok || B.byHash.count(e.refreshKey ? withRefresh : hash) > 0) return end;
  e.buses.resize(busFirst_.size());
  for (size_t b = 0; b < busFirst_.size(); ++b) channels_[busFirst_[b]].recordBus(t0, e.buses[b]);
  // (Copied: the buffers keep their room for the next batch.)
  e.key = e.refreshKey ? packedWith : B.packed;
  size_t words = e.key.size() / 2 + e.steps.size() * 2 + e.logSteps.size() * 2 + 16;
  for (const DramChannel::BatchOutcome& o : e.channels)
    words += o.changes.size() + o.freed.size() / 2 + 14;
  for (const DramChannel::BusState& b : e.buses)
    words += b.rowBits.size() + b.columnBits.size() + 4;
  B.words += words;
  B.byHash.emplace(e.refreshKey ? withRefresh : hash, static_cast<uint32_t>(B.entries.size()));
  B.entries.push_back(std::move(e));
  ++B.counters.recorded;
  return end;
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
  for (const DramChannel& c : channels_) c.flushLatencies();
  for (const DramStats& s : stats_) total.add(s);
  return total;
}

}  // namespace ascendsim::models
