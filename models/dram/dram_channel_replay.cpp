// Drain replay (DramChannel::setReplay): a channel's drain depends only on its state relative to
// the drain's earliest arrival. Every command time is a maximum of request arrivals and of state
// times plus timing constants, so shifting every time by the same amount shifts the commands by
// it; rows are only ever compared for equality, so rows shifted together choose alike; and a state
// time older than the earliest arrival by more than any timing constant can no longer bind (every
// command goes at or after its request's arrival). The key of a drain is that state: the queued
// requests by age (arrival and row offsets, bank, bytes), the timings of the banks and bank groups
// they use and of the activate windows and buses (too old to bind: left out), the command bus's
// bookings from the earliest arrival on (a pseudo-channel shares its bus with its sibling), and the
// scheduler's own flags. A drain whose key was seen before issues the same commands shifted, so
// its recorded outcome is applied at once: the commands (bus bookings, freed queue slots, logs),
// the counters and the state it leaves.
//
// Not covered (issued burst by burst, and not recorded): drains with both reads and writes queued,
// drains that meet a refresh (a replay must end before the channel's next refresh is due), and
// drains whose bus bookings could slide the bus's window past the earliest arrival. After 16
// lookups in a row that miss, lookups pause for 16, 32, ... 4096 drains (random traffic rarely
// repeats). The channels of one memory share their recorded drains (the same timings: a drain
// seen on one channel replays on another), up to 16 MiB of them.
// Requests offered without queueing (admitRun, BankedDram::drainBatch's reads) are keyed alike
// from the offered runs, with the queue's flags as queueing them would set them (a key holds the
// requests as runs to one bank and row, then every request's arrival: the same words whether
// queued or offered); a drain that replays then never queues them (they are queued, in order,
// only to be issued or recorded), and the queue slots its requests free are the recorded drain's,
// sorted once, read in place with its shift until a slot is next freed.
#include <algorithm>
#include <limits>
#include <type_traits>

#include "models/dram/dram_channel.h"

namespace ascendsim::models {
namespace {
constexpr size_t kMaxWords = size_t{2} << 20;  // 16 MiB of recorded drains per memory
constexpr uint32_t kMissesBeforePause = 16;
constexpr uint32_t kLongestPause = 4096;
constexpr int64_t kPast = std::numeric_limits<int64_t>::min();  // a time too old to bind
// A row in the key: closed, open at a row no queued request of the bank wants, or open at one.
constexpr int64_t kClosed = 0, kOtherRow = 1, kQueuedRow = 2;

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h;
}
}  // namespace

// The state a drain changes, in one order for recording and applying: each field with how it is
// kept relative (a time, a row, or a plain value).
template <typename F>
void DramChannel::visitReplayFields(RequestQueue& q, F&& f) {
  using Set = Replay::Set;
  for (uint32_t bi : replay_.banks) {
    Bank& b = banks_[bi];
    f(Set::Row, b.openRow);
    f(Set::Time, b.actAllowed);
    f(Set::Time, b.preAllowed);
    f(Set::Time, b.rdAllowed);
    f(Set::Time, b.wrAllowed);
    f(Set::Time, b.lastAct);
  }
  for (uint32_t gi : replay_.groups) {
    BankGroup& g = groups_[gi];
    f(Set::Time, g.lastCol);
    f(Set::Time, g.lastAct);
    f(Set::Time, g.lastWrDataEnd);
  }
  for (ActWindow& w : windows_) {
    f(Set::Time, w.lastAct);
    f(Set::Time, w.lastWrDataEnd);
    for (int64_t& t : w.faw) f(Set::Time, t);
    f(Set::Value, w.fawNext);
  }
  f(Set::Time, lastCol_);
  f(Set::Time, lastRdCmd_);
  f(Set::Time, dataBusFree_);
  f(Set::Value, lastRdRank_);
  f(Set::Value, writeMode_);
  f(Set::Value, q.passedOver);
}

namespace {
// Writes a key's words in place (room reserved beforehand).
struct KeyWriter {
  using value_type = int64_t;
  int64_t* at;
  void push_back(int64_t v) { *at++ = v; }
};
}  // namespace

void DramChannel::turnActWindows() {
  for (ActWindow& w : windows_) {
    if (w.fawNext == 0) continue;
    int64_t t[4];
    for (int i = 0; i < 4; ++i) t[i] = w.faw[(w.fawNext + i) & 3];
    std::copy(t, t + 4, w.faw);
    w.fawNext = 0;
  }
}

template <typename Out>
void DramChannel::appendChannelTimesKey(int64_t t0, Out& key) const {
  // A state time v counts only as v + c for the constants c it is used with, against times from
  // t0 on: when v + c < t0 for the largest such c, it cannot bind and is left out.
  auto time = [&](int64_t v, int64_t c) { return v + c < t0 ? kPast : v - t0; };
  const int64_t tRCD = std::max(tRCDRD_, tRCDWR_);
  key.push_back(lastRdRank_);
  key.push_back(time(lastCol_, tCCD_S_));
  key.push_back(time(lastRdCmd_, std::max(tRTW_, tCCDR_)));
  key.push_back(time(dataBusFree_, 0));
  for (const ActWindow& w : windows_) {
    key.push_back(time(w.lastAct, tRRD_S_ + tRCD));
    key.push_back(time(w.lastWrDataEnd, tWTR_S_));
    key.push_back(w.fawNext);
    for (int64_t t : w.faw) key.push_back(time(t, tFAW_ + tRCD));
  }
  for (const Rank& k : ranks_) key.push_back(time(k.refreshEnd, 0));
}

bool DramChannel::replayKey() {
  Replay& R = replay_;
  const bool writes = reads_.empty();
  if (writes == writes_.empty()) return false;  // both queues hold requests
  RequestQueue& q = writes ? writes_ : reads_;
  R.slots.clear();
  R.runs.clear();
  for (uint64_t a = q.frontSeq(); a < q.endSeq(); ++a) {
    const int32_t s = q.slotByAge(a);
    if (s < 0) continue;
    R.slots.push_back(s);
    const DramRequest& r = q.request(s);
    if (!R.runs.empty()) {
      KeyRun& last = R.runs.back();
      if (last.request->bankIndex == r.bankIndex && last.request->row == r.row &&
          last.request->bytes == r.bytes) {
        ++last.count;
        continue;
      }
    }
    R.runs.push_back({&r, 1});
  }
  int64_t t0 = std::numeric_limits<int64_t>::max();
  for (const int32_t slot : R.slots) t0 = std::min(t0, q.request(slot).arrival);
  return buildKey(
      writes, t0, R.runs.size(), R.slots.size(), [&](size_t i) { return R.runs[i]; },
      [&](int64_t* out) {
        for (const int32_t slot : R.slots) *out++ = q.request(slot).arrival - t0;
        return out;
      },
      q.arrivalsInOrder(), q.hitBank());
}

bool DramChannel::offeredKey() {
  // The queue's own flags as pushing the offered requests into it (empty) would leave them; the
  // earliest arrival (each run's requests are taken in order: its first).
  bool inOrder = true;
  int64_t hitBank = -1;
  uint32_t banksWithHits = 0;
  std::vector<char>& hits = replay_.mark;
  int64_t t0 = std::numeric_limits<int64_t>::max(), lastArrival = 0;
  for (size_t i = 0; i < offeredRuns_; ++i) {
    const OfferedRun& run = offered_[i];
    const DramRequest& r = run.request;
    const int64_t first = offeredArrival(run, 0);
    t0 = std::min(t0, first);
    inOrder = i == 0 || (inOrder && first >= lastArrival);
    lastArrival = offeredArrival(run, run.count - 1);
    if (static_cast<int64_t>(r.row) == banks_[r.bankIndex].openRow && !hits[r.bankIndex]) {
      hits[r.bankIndex] = 1;
      hitBank = ++banksWithHits == 1 ? static_cast<int64_t>(r.bankIndex) : -1;
    }
  }
  for (size_t i = 0; i < offeredRuns_; ++i) hits[offered_[i].request.bankIndex] = 0;
  const FreedSlots& freed = offeredFreed();
  return buildKey(
      offered_.front().request.write, t0, offeredRuns_, offeredCount_,
      [&](size_t i) {
        return KeyRun{&offered_[i].request, offered_[i].count};
      },
      [&](int64_t* out) {
        for (size_t i = 0; i < offeredRuns_; ++i) {
          const OfferedRun& run = offered_[i];
          const int64_t arrival = run.request.arrival;
          out = std::fill_n(out, run.noPop, arrival - t0);
          for (uint32_t k = 0; k < run.count - run.noPop; ++k)
            *out++ = std::max(arrival, freed.at(run.pop + k)) - t0;
        }
        return out;
      },
      inOrder, hitBank);
}

template <typename At, typename Arrivals>
bool DramChannel::buildKey(bool writes, int64_t t0, size_t n, size_t bursts, At at,
                           Arrivals arrivals, bool inOrder, int64_t hitBank) {
  Replay& R = replay_;
  RequestQueue& q = writes ? writes_ : reads_;
  // Every command goes at or after t0: the buses' windows must hold it.
  if (t0 * commands_.rowSlots < bus_.row.base() || t0 < columnBus().base()) return false;
  turnActWindows();
  const uint64_t baseRow = at(0).request->row;
  R.t0 = t0;
  R.baseRow = baseRow;
  // A state time v counts only as v + c for the constants c it is used with (in the plans and in
  // the scheduler's shortcuts), against times from t0 on: when v + c < t0 for the largest such c,
  // it cannot bind and is left out.
  auto time = [&](int64_t v, int64_t c) { return v + c < t0 ? kPast : v - t0; };
  // Written in place: room for the most it can hold (each bus window: 64 words and a part).
  const size_t most = 10 + 7 * windows_.size() + ranks_.size() + 3 * n + bursts +
                      6 * banks_.size() + 3 * groups_.size() + 2 * 66;
  if (R.key.size() < most) R.key.resize(most);
  KeyWriter key{R.key.data()};
  key.push_back(int64_t{writes} | int64_t{shortcuts_} << 1 | int64_t{inOrder} << 2);
  key.push_back(q.passedOver);
  key.push_back(hitBank);
  appendChannelTimesKey(t0, key);
  // The requests by age, as runs of requests to one bank and row of one size (each run's row,
  // bank and size and how many, adjacent runs alike as one: their number first), then each
  // request's arrival; the banks they go to (ascending), each marked 1, or 2 when one of its
  // requests wants its open row.
  int64_t* runs = key.at;
  key.push_back(0);
  std::vector<char>& mark = R.mark;
  R.banks.clear();
  for (size_t i = 0; i < n; ++i) {
    const KeyRun run = at(i);
    const DramRequest& r = *run.request;
    const auto row = static_cast<int64_t>(r.row - baseRow);
    const auto place = static_cast<int64_t>(uint64_t{r.bankIndex} << 32 | r.bytes);
    if (*runs > 0 && key.at[-3] == row && key.at[-2] == place) {
      key.at[-1] += run.count;
      continue;
    }
    ++*runs;
    key.push_back(row);
    key.push_back(place);
    key.push_back(run.count);
    char& m = mark[r.bankIndex];
    if (!m) {
      m = 1;
      R.banks.push_back(r.bankIndex);
    }
    if (static_cast<int64_t>(r.row) == banks_[r.bankIndex].openRow) m = 2;
  }
  key.at = arrivals(key.at);
  std::sort(R.banks.begin(), R.banks.end());
  R.groups.clear();
  for (uint32_t bi : R.banks) {
    const Bank& b = banks_[bi];
    const int64_t row = b.openRow < 0 ? kClosed : mark[bi] == 2 ? kQueuedRow : kOtherRow;
    mark[bi] = 0;
    key.push_back(row);
    key.push_back(
        row == kQueuedRow ? static_cast<int64_t>(static_cast<uint64_t>(b.openRow) - baseRow) : 0);
    key.push_back(time(b.actAllowed, 0));
    key.push_back(time(b.preAllowed, 0));
    key.push_back(time(b.rdAllowed, 0));
    key.push_back(time(b.wrAllowed, 0));
    const uint32_t gi = bi / banksPerGroup_;
    if (R.groups.empty() || R.groups.back() != gi) R.groups.push_back(gi);
  }
  for (uint32_t gi : R.groups) {
    const BankGroup& g = groups_[gi];
    key.push_back(time(g.lastCol, tCCD_L_));
    key.push_back(time(g.lastAct, tRRD_L_));
    key.push_back(time(g.lastWrDataEnd, tWTR_L_));
  }
  // The command buses' bookings from t0 on (the sibling pseudo-channel's among them).
  // (Each list after its length.)
  int64_t* len = key.at;
  key.push_back(0);
  bus_.row.appendBooked(t0 * commands_.rowSlots, key);
  *len = key.at - len;
  if (commands_.separateColumnBus) {
    len = key.at;
    key.push_back(0);
    bus_.column.appendBooked(t0, key);
    *len = key.at - len;
  }
  const int64_t* k = R.key.data();
  const size_t size = static_cast<size_t>(key.at - k);
  R.keySize = size;
  // Four lanes, so that the multiplications do not wait for each other.
  uint64_t lane[4] = {size, 1, 2, 3};
  size_t i = 0;
  for (; i + 4 <= size; i += 4) {
    for (size_t j = 0; j < 4; ++j)
      lane[j] = (lane[j] ^ static_cast<uint64_t>(k[i + j])) * 0x9e3779b97f4a7c15ull;
  }
  for (; i < size; ++i) lane[0] = mix(lane[0], static_cast<uint64_t>(k[i]));
  R.hash = mix(mix(mix(lane[0], lane[1]), lane[2]), lane[3]);
  return true;
}

bool DramChannel::replayDrain() {
  Replay& R = replay_;
  ++R.counters.drains;
  if (R.skip > 0) {
    --R.skip;
    return false;
  }
  if (!replayKey()) return false;
  return lookupDrain(false);
}

bool DramChannel::lookupDrain(bool offered) {
  Replay& R = replay_;
  const auto found = R.cache->byHash.find(R.hash);
  if (found != R.cache->byHash.end() && sameKey(R.cache->entries[found->second].key)) {
    const Replay::Entry& e = R.cache->entries[found->second];
    // It must end before a refresh is due.
    bool clear = true;
    for (const Rank& k : ranks_) clear = clear && R.t0 + e.lastFirst < k.nextRefresh;
    if (clear) {
      applyReplay(found->second, offered);
      R.misses = 0;
      R.backoff = 0;
      return true;
    }
  }
  if (++R.misses >= kMissesBeforePause) {
    R.backoff = std::min(kLongestPause, std::max(kMissesBeforePause, R.backoff * 2));
    R.skip = R.backoff;
    R.misses = 0;
  }
  if (R.cache->words >= kMaxWords || found != R.cache->byHash.end()) return false;
  if (offered) {
    // Recorded from the queue, as a drain of the same requests queued.
    queueOffered();
    RequestQueue& q = reads_.empty() ? writes_ : reads_;
    R.slots.clear();
    for (uint64_t a = q.frontSeq(); a < q.endSeq(); ++a) {
      const int32_t slot = q.slotByAge(a);
      if (slot >= 0) R.slots.push_back(slot);
    }
  }
  recordDrain();
  return true;
}

void DramChannel::queueOffered() {
  if (offeredRuns_ == 0) return;
  // Each at the cycle it was taken; then the freed slots they took are gone.
  const bool write = offered_.front().request.write;
  RequestQueue& q = write ? writes_ : reads_;
  for (size_t i = 0; i < offeredRuns_; ++i) {
    const OfferedRun& run = offered_[i];
    const DramRequest& r = run.request;
    for (uint32_t k = 0; k < run.count; ++k)
      q.push(r, offeredArrival(run, k), r.bankIndex, r.groupIndex, banks_[r.bankIndex].openRow);
  }
  (write ? freedWrites_ : freedReads_).drop(offeredPops_);
  offeredCount_ = 0;
  offeredRuns_ = 0;
  offeredPops_ = 0;
}

void DramChannel::drainOffered() {
  if (offeredCount_ == 0) {
    drain();  // (queued, when more were offered than the queue holds)
    return;
  }
  Replay& R = replay_;
  R.counters.drainedBursts += offeredCount_;
  ++R.counters.drains;
  bool done = false;
  if (R.skip > 0) {
    --R.skip;
  } else if (offeredKey()) {
    done = lookupDrain(true);
  }
  if (done) return;
  queueOffered();
  while (!idle()) issueOne();
}

void DramChannel::recordDrain() {
  Replay& R = replay_;
  RequestQueue& q = reads_.empty() ? writes_ : reads_;
  const bool write = reads_.empty();
  std::vector<int64_t> before;
  visitReplayFields(q, [&](Replay::Set, auto& field) { before.push_back(field); });
  const DramStats s0 = stats_;  // (the histogram is rebuilt from the steps)
  // The requests by age: their index in the key.
  std::vector<uint32_t> indexOfSlot(q.depth(), 0);
  for (uint32_t i = 0; i < R.slots.size(); ++i) indexOfSlot[R.slots[i]] = i;
  std::vector<int64_t> arrivals;
  for (int32_t s : R.slots) arrivals.push_back(q.request(s).arrival - R.t0);
  std::vector<Step> steps;
  steps.reserve(R.slots.size());
  record_ = &steps;
  while (!idle()) issueOne();
  record_ = nullptr;
  if (stats_.refreshes != s0.refreshes) return;
  const int64_t t0 = R.t0, slots = commands_.rowSlots;
  Replay::Entry e;
  int64_t lastEnd = t0;
  for (Step s : steps) {
    s.request = indexOfSlot[s.request];
    if (s.pre >= 0) s.preSlot = (s.preSlot >= 0 ? s.preSlot : s.pre * slots) - t0 * slots;
    if (s.act >= 0) s.actSlot = (s.actSlot >= 0 ? s.actSlot : s.act * slots) - t0 * slots;
    const Plan p{s.pre, s.act, s.col, -1, -1, Access::Hit};
    e.lastFirst = std::max(e.lastFirst, p.first() - t0);
    lastEnd = std::max(lastEnd, s.dataEnd);
    if (s.pre >= 0) s.pre -= t0;
    if (s.act >= 0) s.act -= t0;
    s.col -= t0;
    s.dataEnd -= t0;
    if (!write) {
      const int64_t latency = s.dataEnd - arrivals[s.request];
      auto at = std::find_if(e.latencies.begin(), e.latencies.end(),
                             [&](const auto& l) { return l.first == latency; });
      if (at == e.latencies.end()) {
        e.latencies.push_back({latency, 1});
      } else {
        ++at->second;
      }
    }
    e.steps.push_back(s);
    e.sortedCols.push_back(static_cast<int32_t>(s.col));
  }
  std::sort(e.sortedCols.begin(), e.sortedCols.end());
  // Its bookings must end within half the buses' window of t0: the window then never slides past
  // t0 while it runs (it moves to 2048 slots before the latest booking), so that every cycle the
  // drain asks about is still in it.
  if ((lastEnd - t0) * slots > 2000) return;
  e.maxDataEnd = lastEnd - t0;
  e.rowHits = stats_.rowHits - s0.rowHits;
  e.rowMisses = stats_.rowMisses - s0.rowMisses;
  e.rowConflicts = stats_.rowConflicts - s0.rowConflicts;
  e.bytes = write ? stats_.bytesWritten - s0.bytesWritten : stats_.bytesRead - s0.bytesRead;
  e.latencySumPs = stats_.readLatencySumPs - s0.readLatencySumPs;
  size_t i = 0;
  visitReplayFields(q, [&](Replay::Set how, auto& field) {
    const int64_t was = before[i++], now = static_cast<int64_t>(field);
    if (now == was) {
      e.changes.push_back({Replay::Set::Keep, 0});
    } else if (how == Replay::Set::Time) {
      e.changes.push_back({how, now - t0});
    } else if (how == Replay::Set::Row && now >= 0) {
      e.changes.push_back({how, static_cast<int64_t>(static_cast<uint64_t>(now) - R.baseRow)});
    } else {
      e.changes.push_back({Replay::Set::Value, now});
    }
  });
  e.key.assign(R.key.begin(), R.key.begin() + static_cast<std::ptrdiff_t>(R.keySize));
  R.cache->byHash.emplace(R.hash, static_cast<uint32_t>(R.cache->entries.size()));
  R.cache->words += e.key.size() + e.steps.size() * sizeof(Step) / 8 + e.changes.size() * 2 +
                    e.latencies.size() * 2 + e.sortedCols.size() / 2 + 16;
  R.cache->entries.push_back(std::move(e));
  ++R.counters.recorded;
}

void DramChannel::applyReplay(uint32_t entry, bool offered) {
  Replay& R = replay_;
  const Replay::Entry& e = R.cache->entries[entry];
  const bool write = offered ? offered_.front().request.write : reads_.empty();
  RequestQueue& q = write ? writes_ : reads_;
  // The drain's requests by age (offered: from their runs, when asked for).
  std::vector<DramRequest>& byAge = R.byAge;
  byAge.clear();
  if (offered && (batch_.active || log_)) {
    for (uint32_t i = 0; i < offeredRuns_; ++i) {
      for (uint32_t k = 0; k < offered_[i].count; ++k) {
        byAge.push_back(offered_[i].request);
        byAge.back().arrival = offeredArrival(offered_[i], k);
      }
    }
  }
  auto request = [&](uint32_t i) -> const DramRequest& {
    return offered ? byAge[i] : q.request(R.slots[i]);
  };
  FreedSlots& freed = write ? freedWrites_ : freedReads_;
  // (The slots the offered requests took are gone.)
  if (offered) freed.drop(offeredPops_);
  const int64_t t0 = R.t0, slots = commands_.rowSlots;
  // The commands, in the order they were issued.
  for (const Step& s : e.steps) {
    if (s.pre >= 0) bus_.row.book(s.preSlot + t0 * slots, commands_.pre);
    if (s.act >= 0) bus_.row.book(s.actSlot + t0 * slots, commands_.act);
    columnBus().book(s.col + t0, commands_.column);
  }
  // Their slots free as their column commands go: when none is left from before, the recorded
  // times themselves, shifted.
  if (freed.size() == 0) {
    freed.assignSorted(e.sortedCols.data(), e.sortedCols.size(), t0);
  } else {
    for (const Step& s : e.steps) freed.push(s.col + t0);
  }
  if (batch_.active) {
    for (const Step& s : e.steps) {
      const DramRequest& r = request(s.request);
      const Plan p{s.pre >= 0 ? s.pre + t0 : -1,
                   s.act >= 0 ? s.act + t0 : -1,
                   s.col + t0,
                   -1,
                   -1,
                   Access::Hit};
      noteBatchStep(r, s.pre >= 0 ? s.preSlot + t0 * slots : -1,
                    s.act >= 0 ? s.actSlot + t0 * slots : -1, s.col + t0, s.dataEnd + t0,
                    p.first());
    }
  }
  if (log_ || done_) {
    for (const Step& s : e.steps) {
      const DramRequest& r = request(s.request);
      if (log_)
        log_->push_back({logChannel_, r.bankIndex, r.row, r.write, r.arrival,
                         s.pre >= 0 ? s.pre + t0 : -1, s.act >= 0 ? s.act + t0 : -1, s.col + t0,
                         s.dataEnd + t0});
      // (Offered requests are never streamed: no groups to book them to.)
      if (done_ && !offered) done_->push_back({q.seq(R.slots[s.request]), r.write, s.dataEnd + t0});
    }
  }
  // The counters.
  const auto bursts = static_cast<uint64_t>(e.steps.size());
  stats_.rowHits += e.rowHits;
  stats_.rowMisses += e.rowMisses;
  stats_.rowConflicts += e.rowConflicts;
  if (write) {
    stats_.writes += bursts;
    stats_.bytesWritten += e.bytes;
  } else {
    stats_.reads += bursts;
    stats_.bytesRead += e.bytes;
    stats_.readLatencySumPs += e.latencySumPs;
    // (Its latencies go to the histogram when it is next read: flushLatencies.)
    std::vector<uint64_t>& times = latencies_.times;
    if (entry >= times.size()) times.resize(std::max<size_t>(entry + 1, times.size() * 2), 0);
    if (times[entry]++ == 0) latencies_.entries.push_back(entry);
  }
  const int64_t arrivalPs = t0 * tckPs_;
  if (stats_.firstArrivalPs < 0 || arrivalPs < stats_.firstArrivalPs)
    stats_.firstArrivalPs = arrivalPs;
  stats_.lastCompletionPs = std::max(stats_.lastCompletionPs, (e.maxDataEnd + t0) * tckPs_);
  lastDataEnd_ = std::max(lastDataEnd_, e.maxDataEnd + t0);
  // The state it leaves: the queue empty (as if the offered requests had been queued and issued),
  // and the fields it set.
  if (offered) {
    q.skip(bursts);
    offeredCount_ = 0;
    offeredRuns_ = 0;
    offeredPops_ = 0;
  } else {
    q.clear();
  }
  size_t i = 0;
  visitReplayFields(q, [&](Replay::Set, auto& field) {
    const Replay::Change& c = e.changes[i++];
    using Field = std::remove_reference_t<decltype(field)>;
    switch (c.how) {
      case Replay::Set::Keep: break;
      case Replay::Set::Time: field = static_cast<Field>(c.value + t0); break;
      case Replay::Set::Row:
        field =
            static_cast<Field>(static_cast<int64_t>(static_cast<uint64_t>(c.value) + R.baseRow));
        break;
      case Replay::Set::Value: field = static_cast<Field>(c.value); break;
    }
  });
  ++R.counters.replayed;
  R.counters.replayedBursts += bursts;
}

void DramChannel::flushLatencies() const {
  const Replay::Cache& cache = *replay_.cache;
  for (const uint32_t entry : latencies_.entries) {
    const uint64_t times = latencies_.times[entry];
    latencies_.times[entry] = 0;
    for (const auto& [latency, count] : cache.entries[entry].latencies) {
      if (latency >= 0 && latency < 4096) {
        stats_.readLatencyCycles[static_cast<size_t>(latency)] += times * count;
      } else {
        for (uint64_t n = 0; n < times * count; ++n) stats_.recordLongReadLatency(latency);
      }
    }
  }
  latencies_.entries.clear();
}

// Batch replay (BankedDram::enqueueAndDrain): the same reasoning over a whole batch of writes
// offered to idle channels and drained. Its key is every channel's state from the batch's first
// arrival t0 (all banks and bank groups, the activate windows, the buses' whole windows: where
// they start, where their bookings end and what is booked from t0 on, and the write queue's
// freed-slot times) with the requests (BankedDram's part). Recorded are the commands in the order
// they were booked (a bus window slides as bookings reach past it, so the same bookings in the
// same order leave it the same), and per channel the counters, its freed-slot times and the
// fields it changed. A batch recorded without meeting a refresh applies while every channel's
// next refresh is due after its commands; one that met a refresh (due from t0 on) is recorded
// with it (the REF on the bus, the banks it closed, the counters and the ranks' refresh state)
// and keyed with every channel's refresh state too (appendRefreshKey), so it applies when a batch
// repeats it and meets its refresh at the same point.
void DramChannel::allReplayFields() {
  replay_.banks.resize(banks_.size());
  for (uint32_t i = 0; i < banks_.size(); ++i) replay_.banks[i] = i;
  replay_.groups.resize(groups_.size());
  for (uint32_t i = 0; i < groups_.size(); ++i) replay_.groups[i] = i;
}

template <typename F>
void DramChannel::visitBatchFields(F&& f) {
  visitReplayFields(writes_, f);
  using Set = Replay::Set;
  for (Rank& k : ranks_) {
    f(Set::Time, k.nextRefresh);
    f(Set::Time, k.refreshEnd);
    f(Set::Value, k.nextBank);
    f(Set::Value, k.refreshedInRound);
  }
  if (tRFCpb_ > 0) {
    for (char& r : refreshedThisRound_) f(Set::Value, r);
  }
}

void DramChannel::appendRefreshKey(int64_t t0, std::vector<int64_t>& key) const {
  // A refresh from t0 on (endBatch refuses one due before t0) starts at the latest of its due time
  // and the times its banks allow; each bank's term is a time plus a constant (closed: the next
  // activate; open: the precharge, and tRAS after the activate, then tRP), and a term before t0
  // cannot be the latest. It then sets each bank's next activate to the latest of it and the
  // refresh's end (from t0 on).
  auto time = [&](int64_t v, int64_t c) { return v + c < t0 ? kPast : v - t0; };
  for (const Rank& k : ranks_) {
    key.push_back(k.nextRefresh - t0);
    if (tRFCpb_ > 0) {
      key.push_back(k.nextBank);
      key.push_back(k.refreshedInRound);
    }
  }
  if (tRFCpb_ > 0) {
    for (char r : refreshedThisRound_) key.push_back(r);
  }
  for (const Bank& b : banks_) {
    key.push_back(b.openRow >= 0);
    key.push_back(time(b.actAllowed, 0));
    key.push_back(time(b.preAllowed, tRP_));
    key.push_back(time(b.lastAct, tRAS_ + tRP_));
  }
}

void DramChannel::appendBatchKey(int64_t t0, uint64_t baseRow, const std::vector<Wanted>& wanted,
                                 std::vector<int64_t>& key) {
  auto time = [&](int64_t v, int64_t c) { return v + c < t0 ? kPast : v - t0; };
  turnActWindows();
  key.push_back(int64_t{shortcuts_} | int64_t{writeMode_} << 1 |
                int64_t{reads_.empty() && writes_.empty()} << 2);
  key.push_back(writes_.passedOver);
  appendChannelTimesKey(t0, key);
  // Only the banks and bank groups the batch's requests go to count (no other is planned for);
  // a bank's open row only as closed, open at a row the batch does not want there (which row
  // then does not matter: rows are only compared), or the wanted row (relative).
  std::vector<int64_t>& row = batch_.wantedRow;
  std::vector<char>& group = batch_.wantedGroup;
  constexpr int64_t kNotWanted = -2, kOther = -1;
  row.assign(banks_.size(), kNotWanted);
  group.assign(groups_.size(), 0);
  for (const Wanted& w : wanted) {
    const uint32_t gi = w.rank * bankGroups_ + w.bankGroup;
    const uint32_t bi = gi * banksPerGroup_ + w.bank;
    group[gi] = 1;
    if (row[bi] == kNotWanted) row[bi] = kOther;
    if (banks_[bi].openRow == static_cast<int64_t>(w.row + baseRow)) row[bi] = banks_[bi].openRow;
  }
  for (uint32_t bi = 0; bi < banks_.size(); ++bi) {
    if (row[bi] == kNotWanted) continue;
    const Bank& b = banks_[bi];
    key.push_back(bi);
    key.push_back(b.openRow < 0 ? kPast
                  : row[bi] < 0 ? kPast + 1
                                : static_cast<int64_t>(static_cast<uint64_t>(b.openRow) - baseRow));
    key.push_back(time(b.actAllowed, 0));
    key.push_back(time(b.preAllowed, 0));
    key.push_back(time(b.rdAllowed, 0));
    key.push_back(time(b.wrAllowed, 0));
  }
  for (uint32_t gi = 0; gi < groups_.size(); ++gi) {
    if (!group[gi]) continue;
    const BankGroup& g = groups_[gi];
    key.push_back(gi);
    key.push_back(time(g.lastCol, tCCD_L_));
    key.push_back(time(g.lastAct, tRRD_L_));
    key.push_back(time(g.lastWrDataEnd, tWTR_L_));
  }
  auto window = [&](const CycleWindow& w, int64_t from) {
    key.push_back(w.base() - from);
    key.push_back(std::max<int64_t>(w.bookedUntil() - from, -1));
    const size_t at = key.size();
    key.push_back(0);
    w.appendBooked(from, key);
    key[at] = static_cast<int64_t>(key.size() - at);
  };
  window(bus_.row, t0 * commands_.rowSlots);
  if (commands_.separateColumnBus) window(bus_.column, t0);
  key.push_back(static_cast<int64_t>(freedWrites_.size()));
  for (size_t i = 0; i < freedWrites_.size(); ++i) key.push_back(time(freedWrites_.at(i), 0));
}

void DramChannel::beginBatch(std::vector<BatchStep>* steps, std::vector<BatchLogStep>* logSteps,
                             uint32_t index, int64_t t0, uint64_t baseRow) {
  batch_.steps = steps;
  batch_.active = true;
  batch_.baseRow = baseRow;
  batch_.bad = false;
  batch_.logSteps = logSteps;
  batch_.index = index;
  batch_.t0 = t0;
  batch_.acc = BatchOutcome{};
  batch_.acc.minArrival = std::numeric_limits<int64_t>::max();
  batch_.touched = false;
  batch_.freedBefore = freedWrites_.size();
  batch_.refreshes = stats_.refreshes;
  batch_.refreshPs = stats_.refreshPs;
  batch_.pastBefore = 0;
  while (batch_.pastBefore < batch_.freedBefore && freedWrites_.at(batch_.pastBefore) < t0)
    ++batch_.pastBefore;
  allReplayFields();
  batch_.before.clear();
  visitBatchFields([&](Replay::Set, auto& field) { batch_.before.push_back(field); });
}

void DramChannel::noteBatchStep(const DramRequest& r, int64_t preSlot, int64_t actSlot, int64_t col,
                                int64_t dataEnd, int64_t first) {
  const int64_t t0 = batch_.t0, slots = commands_.rowSlots;
  auto rel = [&](int64_t v) {
    if (v <= std::numeric_limits<int32_t>::min() || v > std::numeric_limits<int32_t>::max()) {
      batch_.bad = true;
      return int32_t{0};
    }
    return static_cast<int32_t>(v);
  };
  if (batch_.steps)
    batch_.steps->push_back({batch_.index, preSlot >= 0 ? rel(preSlot - t0 * slots) : kNoSlot,
                             actSlot >= 0 ? rel(actSlot - t0 * slots) : kNoSlot, rel(col - t0)});
  if (batch_.logSteps)
    batch_.logSteps->push_back(
        {r.bankIndex, rel(r.arrival - t0), static_cast<int64_t>(r.row - batch_.baseRow)});
  BatchOutcome& a = batch_.acc;
  if (preSlot >= 0) {
    ++a.conflicts;
  } else if (actSlot >= 0) {
    ++a.misses;
  } else {
    ++a.hits;
  }
  ++a.writes;
  a.bytes += r.bytes;
  a.minArrival = std::min(a.minArrival, r.arrival - t0);
  a.maxDataEnd = std::max(a.maxDataEnd, dataEnd - t0);
  a.maxFirst = std::max(a.maxFirst, first - t0);
  batch_.touched = true;
}

bool DramChannel::endBatch(BatchOutcome& out) {
  const bool recorded = batch_.active;
  batch_.active = false;
  batch_.steps = nullptr;
  batch_.logSteps = nullptr;
  if (!recorded) return false;
  const int64_t t0 = batch_.t0;
  const uint64_t baseRow = batch_.baseRow;
  out = std::move(batch_.acc);
  if (batch_.bad) return false;
  if (!batch_.touched) {
    out.minArrival = 0;
    out.maxFirst = kPast;
  }
  // The freed-slot times too old to bind (left out of the key) must all have been taken: each
  // request takes the earliest, and they are the earliest.
  const size_t pops = batch_.freedBefore + out.writes - freedWrites_.size();
  if (pops < batch_.pastBefore || !idle()) return false;
  // (A refresh during it: its times depend on the refresh key too.)
  out.refreshes = stats_.refreshes - batch_.refreshes;
  out.refreshPs = stats_.refreshPs - batch_.refreshPs;
  for (size_t i = 0; i < freedWrites_.size(); ++i) {
    const int64_t v = freedWrites_.at(i) - t0;
    if (v < 0 || v > std::numeric_limits<int32_t>::max()) return false;
    out.freed.push_back(static_cast<int32_t>(v));
  }
  allReplayFields();
  size_t i = 0;
  bool ok = true;
  // Only the fields it changed, by their place in visitBatchFields' order.
  auto note = [&](size_t at, Replay::Set how, int64_t value) {
    ok = ok && at <= std::numeric_limits<uint16_t>::max() &&
         value >= std::numeric_limits<int32_t>::min() &&
         value <= std::numeric_limits<int32_t>::max();
    out.changes.push_back(
        {static_cast<uint16_t>(at), static_cast<uint8_t>(how), static_cast<int32_t>(value)});
  };
  visitBatchFields([&](Replay::Set how, auto& field) {
    const size_t at = i;
    const int64_t was = batch_.before[i++], now = static_cast<int64_t>(field);
    if (now == was) return;
    if (how == Replay::Set::Time) {
      // (A time a burst of the batch set is from t0 on.)
      ok = ok && now >= t0;
      note(at, how, now - t0);
    } else if (how == Replay::Set::Row && now >= 0) {
      note(at, how, static_cast<int64_t>(static_cast<uint64_t>(now) - baseRow));
    } else {
      note(at, Replay::Set::Value, now);
    }
  });
  out.changes.shrink_to_fit();
  return ok;
}

bool DramChannel::batchClear(const BatchOutcome& o, int64_t t0) const {
  if (o.writes == 0) return true;
  for (const Rank& k : ranks_) {
    if (t0 + o.maxFirst >= k.nextRefresh) return false;
  }
  return true;
}

void DramChannel::logBatchStep(const BatchStep& s, const BatchLogStep& log, int64_t t0,
                               uint64_t baseRow) {
  if (!log_) return;
  const int64_t slots = commands_.rowSlots, col = s.col + t0;
  log_->push_back(
      {logChannel_, log.bank, static_cast<uint64_t>(log.row) + baseRow, true, log.arrival + t0,
       s.preSlot != kNoSlot ? cycleOfSlot(s.preSlot + t0 * slots) : -1,
       s.actSlot != kNoSlot ? cycleOfSlot(s.actSlot + t0 * slots) : -1, col, col + tCWL_ + burst_});
}

void DramChannel::recordBus(int64_t t0, BusState& out) const {
  auto window = [&](const CycleWindow& w, int64_t from, int64_t& base, int64_t& until,
                    std::vector<uint64_t>& bits) {
    base = w.base() - from;
    until = w.bookedUntil() < from ? kPast : w.bookedUntil() - from;
    w.appendWindow(from, bits);
  };
  window(bus_.row, t0 * commands_.rowSlots, out.rowBase, out.rowUntil, out.rowBits);
  if (commands_.separateColumnBus)
    window(bus_.column, t0, out.columnBase, out.columnUntil, out.columnBits);
}

void DramChannel::restoreBus(int64_t t0, const BusState& in) {
  auto window = [&](CycleWindow& w, int64_t from, int64_t base, int64_t until,
                    const std::vector<uint64_t>& bits) {
    w.restore(from, base + from, until == kPast ? w.bookedUntil() : until + from, bits.data());
  };
  window(bus_.row, t0 * commands_.rowSlots, in.rowBase, in.rowUntil, in.rowBits);
  if (commands_.separateColumnBus)
    window(bus_.column, t0, in.columnBase, in.columnUntil, in.columnBits);
}

void DramChannel::applyBatch(const BatchOutcome& o, int64_t t0, uint64_t baseRow) {
  if (o.writes == 0) return;
  freedWrites_.clear();
  for (int32_t v : o.freed) freedWrites_.push(v + t0);
  writes_.skip(o.writes);
  stats_.rowHits += o.hits;
  stats_.rowMisses += o.misses;
  stats_.rowConflicts += o.conflicts;
  stats_.writes += o.writes;
  stats_.bytesWritten += o.bytes;
  stats_.refreshes += o.refreshes;
  stats_.refreshPs += o.refreshPs;
  const int64_t arrivalPs = (o.minArrival + t0) * tckPs_;
  if (stats_.firstArrivalPs < 0 || arrivalPs < stats_.firstArrivalPs)
    stats_.firstArrivalPs = arrivalPs;
  stats_.lastCompletionPs = std::max(stats_.lastCompletionPs, (o.maxDataEnd + t0) * tckPs_);
  lastDataEnd_ = std::max(lastDataEnd_, o.maxDataEnd + t0);
  allReplayFields();
  uint32_t i = 0;
  auto next = o.changes.begin();
  visitBatchFields([&](Replay::Set, auto& field) {
    if (next == o.changes.end() || next->field != i++) return;
    const BatchChange& c = *next++;
    using Field = std::remove_reference_t<decltype(field)>;
    switch (static_cast<Replay::Set>(c.how)) {
      case Replay::Set::Keep: break;
      case Replay::Set::Time: field = static_cast<Field>(c.value + t0); break;
      case Replay::Set::Row:
        field = static_cast<Field>(
            static_cast<int64_t>(static_cast<uint64_t>(int64_t{c.value}) + baseRow));
        break;
      case Replay::Set::Value: field = static_cast<Field>(c.value); break;
    }
  });
}

}  // namespace ascendsim::models
