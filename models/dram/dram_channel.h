#pragma once
// One independent DRAM channel (or pseudo-channel): per-bank state under the JEDEC constraints,
// a read queue and a write queue scheduled first-ready, first-come-first-served (FR-FCFS), one of
// them at a time as the write watermarks say, and all-bank or per-bank refresh.
// It never ticks: for each request it computes when its commands can issue from the bank, bank
// group, rank and bus state, in clock cycles, and commits the earliest.

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <unordered_map>
#include <vector>

#include "models/dram/command_bus.h"
#include "models/dram/dram_stats.h"
#include "models/dram/request_queue.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

class DramChannel {
 public:
  // `bus`: the channel's command bus, shared with the other pseudo-channel(s) of an HBM channel.
  DramChannel(const spec::DramSpec& spec, DramStats& stats, CommandBus& bus);

  // Queues a request; when its queue (reads or writes) is full, first issues what the scheduler
  // picks until it has a slot. Returns the cycle the queue took it: its arrival, or later when it
  // had to wait for a slot.
  int64_t enqueue(const DramRequest& request);
  // Issues everything queued.
  void drain();
  bool idle() const { return reads_.empty() && writes_.empty(); }
  // For callers that wait for some of the queued requests only (MemoryTiming::issueGroup): the
  // arrival numbers the read and write queues give their next requests (each queue counts its
  // own), how many are queued, one issue (the scheduler's choice) and a log of every burst issued
  // from `setDoneLog` on (nullptr: none).
  struct Done {
    uint64_t seq;
    bool write;
    int64_t dataEnd;
  };
  uint64_t nextSeq(bool write) const { return write ? writes_.endSeq() : reads_.endSeq(); }
  uint32_t queued() const { return reads_.size() + writes_.size(); }
  void issueNext() { issueOne(); }
  void setDoneLog(std::vector<Done>* log) { done_ = log; }
  // Data end (clock cycles) of the latest burst issued so far.
  int64_t lastDataEnd() const { return lastDataEnd_; }

  // Shortcuts (on by default) let the scheduler settle on FR-FCFS's choice without planning every
  // candidate when it can prove nothing else could be chosen; off, every choice plans the oldest
  // request and each busy bank's oldest request and oldest row hit. Both must choose alike: tests
  // compare them burst by burst.
  void setShortcuts(bool on) { shortcuts_ = on; }
  // Drain replay (on by default): a drain whose starting state, taken relative to its earliest
  // arrival (times as offsets, rows relative to the oldest request's, timings too old to bind left
  // out), equals that of a drain seen before issues the same commands shifted in time, so the
  // recorded outcome is applied at once (dram_channel_replay.cpp). Off, every drain is issued burst
  // by burst; tests require the same commands and counters either way.
  void setReplay(bool on) { replay_.on = on; }
  struct ReplayCounters {
    uint64_t drains = 0, replayed = 0, recorded = 0, drainedBursts = 0, replayedBursts = 0;
  };
  const ReplayCounters& replayCounters() const { return replay_.counters; }
  // A replayed drain's read latencies go to the channel's histogram (DramStats::readLatencyCycles)
  // when it is read: this counts those not counted yet (every reader of the statistics calls it
  // first; the other counters are always up to date).
  void flushLatencies() const;
  // Shares `other`'s recorded drains (a channel of the same memory).
  void shareReplays(const DramChannel& other) { replay_.cache = other.replay_.cache; }
  // Requests offered without being queued (BankedDram::drainBatch, with replay on): admitRun takes
  // `n` requests alike (a run of bursts: one kind, bank, row and size), one after the other, as
  // enqueue would, each from the cycle the one before was taken, from a channel idle when the
  // first was offered, and returns the cycle the last was taken (once more are offered than its
  // queue holds, they are queued, in order, and the rest enqueued: the same); drainOffered drains
  // them: a recorded drain of the same key applies without their ever being queued, otherwise
  // they are queued in order and drained as drain() would.
  int64_t admitRun(const DramRequest& request, uint64_t n);
  void queueOffered();
  void drainOffered();
  // Batch replay (BankedDram::enqueueAndDrain, dram_channel_replay.cpp): a batch of writes offered
  // to idle channels and drained is recorded as the commands every channel issued, in the order
  // they were booked, and what each channel was left with; a batch whose state and requests
  // repeat an earlier one's (relative to its first arrival) applies it at once.
  // A command booked while a batch was recorded (times relative to the batch's first arrival; a
  // slot < 0: no such command), and, when the channels log their bursts, the request's details.
  static constexpr int32_t kNoSlot = std::numeric_limits<int32_t>::min();
  struct BatchStep {
    uint32_t channel;
    int32_t preSlot, actSlot, col;
  };
  struct BatchLogStep {
    uint32_t bank;
    int32_t arrival;
    int64_t row;
  };
  // A field a recorded batch changed: its place in visitBatchFields' order, how (Replay::Set)
  // and to what.
  struct BatchChange {
    uint16_t field;
    uint8_t how;
    int32_t value;  // (a batch whose changes do not fit is not kept)
  };
  // One channel's part of a recorded batch.
  struct BatchOutcome {
    std::vector<BatchChange> changes;  // the fields it changed, in order
    std::vector<int32_t> freed;  // the write queue's freed-slot times after it, earliest first
    uint64_t hits = 0, misses = 0, conflicts = 0, writes = 0, bytes = 0, refreshes = 0;
    int64_t minArrival = 0, maxDataEnd = 0, maxFirst = 0, refreshPs = 0;
  };
  // The channel's state as a batch starting at t0 with rows relative to baseRow sees it; `wanted`:
  // the batch's requests for this channel (rank, bank group, bank, row relative to baseRow), any
  // order, repeats too.
  struct Wanted {
    uint32_t rank, bankGroup, bank;
    uint64_t row;
  };
  void appendBatchKey(int64_t t0, uint64_t baseRow, const std::vector<Wanted>& wanted,
                      std::vector<int64_t>& key);
  // The channel's bus, activate-window and refresh times that can still bind a command from t0
  // on, relative to t0 (both replay keys hold them).
  template <typename Out>
  void appendChannelTimesKey(int64_t t0, Out& key) const;
  // What a refresh during a batch from t0 depends on beyond the batch key: each rank's next
  // refresh (relative, exact) and per-bank round, and every bank's open flag and the times a
  // refresh waits for (too old to bind left out). With it in the key, a batch that meets a
  // refresh replays too.
  void appendRefreshKey(int64_t t0, std::vector<int64_t>& key) const;
  // Recording: from beginBatch on every burst issued is noted in `steps` (and `logSteps`, if not
  // nullptr) as channel `index`; endBatch stops it and gives what the batch did to the channel
  // (false: it left state the key does not determine, or a refresh came due before t0: not to be
  // replayed; out.refreshes > 0: it met a refresh, and only the key with appendRefreshKey's part
  // determines it).
  void beginBatch(std::vector<BatchStep>* steps, std::vector<BatchLogStep>* logSteps,
                  uint32_t index, int64_t t0, uint64_t baseRow);
  bool endBatch(BatchOutcome& out);
  // Applying: whether its commands all go before a refresh is due; one recorded command; then the
  // counters and state it leaves.
  bool batchClear(const BatchOutcome& o, int64_t t0) const;
  void logBatchStep(const BatchStep& s, const BatchLogStep& log, int64_t t0, uint64_t baseRow);
  // The command bus after a batch (kept by one channel of those sharing it): where its windows
  // start and their latest bookings end (relative; kPast: as before), their bits from t0 on.
  struct BusState {
    int64_t rowBase = 0, rowUntil = 0, columnBase = 0, columnUntil = 0;
    std::vector<uint64_t> rowBits, columnBits;
  };
  void recordBus(int64_t t0, BusState& out) const;
  void restoreBus(int64_t t0, const BusState& in);
  void applyBatch(const BatchOutcome& o, int64_t t0, uint64_t baseRow);
  // One issued burst, in clock cycles (pre, act: -1 when not needed).
  struct Issued {
    uint32_t channel, bankIndex;
    uint64_t row;
    bool write;
    int64_t arrival, pre, act, col, dataEnd;
  };
  // Appends every burst issued from now on to `log` as channel `channel` (none: nullptr).
  void setIssueLog(std::vector<Issued>* log, uint32_t channel) {
    log_ = log;
    logChannel_ = channel;
  }

 private:
  enum class Access { Hit, Miss, Conflict };
  struct Plan {
    int64_t pre = -1, act = -1, col = 0;
    // Row-bus slots of PRE and ACT when the plan looked at the bus (else pre, act x slots per
    // clock): a half-clock command may start mid-cycle; its timing counts from the next cycle.
    int64_t preSlot = -1, actSlot = -1;
    Access access = Access::Hit;
    int64_t first() const { return pre >= 0 ? pre : act >= 0 ? act : col; }
  };
  struct Bank {
    int64_t openRow = -1;
    int64_t actAllowed, preAllowed, rdAllowed, wrAllowed, lastAct;
  };
  struct BankGroup {
    int64_t lastCol, lastAct, lastWrDataEnd;
  };
  // What spacing between activates and write-to-read turnarounds counts from: per rank for DDR,
  // per pseudo-channel across its stack ids for HBM3.
  struct ActWindow {
    int64_t lastAct, lastWrDataEnd;
    int64_t faw[4];  // the last four ACT times, oldest at fawNext
    int fawNext = 0;
  };
  struct Rank {
    int64_t nextRefresh, refreshEnd;
    uint32_t nextBank = 0;          // per-bank refresh: where the round-robin search starts
    uint32_t refreshedInRound = 0;  // banks refreshed in the current tREFI round
  };

  // When the request's commands can issue; `withBus`: also waiting for free command-bus cycles.
  template <bool withBus>
  Plan plan(const DramRequest& r) const;
  void commit(const DramRequest& r, const Plan& p);
  void issueOne();
  // Drain replay: builds the key of the drain about to start (false: not a drain it covers),
  // applies a recorded drain, records one. Drains by replay, or records the drain; false: the
  // caller issues it burst by burst. The key of the queued requests (replayKey) or of those
  // offered (offeredKey), from the requests by age (`at(i)`) and the queue's flags; lookupDrain
  // applies or records it (offered: queued first).
  bool replayDrain();
  bool replayKey();
  bool offeredKey();
  // (From t0, the earliest arrival: `at(i)`, the i-th of `n` runs of requests to one bank and row
  // of one size, by age, `bursts` requests in all; `arrivals(out)` writes each one's arrival,
  // relative, and returns where it stopped.)
  struct KeyRun {
    const DramRequest* request;
    uint32_t count;
  };
  template <typename At, typename Arrivals>
  bool buildKey(bool writes, int64_t t0, size_t n, size_t bursts, At at, Arrivals arrivals,
                bool inOrder, int64_t hitBank);
  bool lookupDrain(bool offered);
  bool sameKey(const std::vector<int64_t>& recorded) const {
    return recorded.size() == replay_.keySize &&
           std::equal(recorded.begin(), recorded.end(), replay_.key.begin());
  }
  void applyReplay(uint32_t entry, bool offered);
  void recordDrain();
  template <typename F>
  void visitReplayFields(RequestQueue& q, F&& f);
  // Batch replay: a burst committed while a batch is recorded; every bank and group in
  // replay_.banks and replay_.groups (for visitReplayFields).
  void noteBatchStep(const DramRequest& r, int64_t preSlot, int64_t actSlot, int64_t col,
                     int64_t dataEnd, int64_t first);
  void allReplayFields();
  // A batch's fields: those of visitReplayFields (all banks and groups) and the refresh state.
  template <typename F>
  void visitBatchFields(F&& f);
  // Opens (row >= 0) or closes (-1) a bank's row, and counts the queued requests that hit it.
  void setOpenRow(size_t bankIdx, int64_t row);
  void refresh(Rank& rank, uint32_t rankIndex, int64_t start);
  void refreshOneBank(Rank& rank, uint32_t rankIndex, int64_t start);
  void catchUpRefresh(uint32_t rankIndex, int64_t until);

  // Turns each activate window's ring of its last four ACT times so that the oldest is first
  // (fawNext 0): only their order from the oldest counts (plans read the oldest, an ACT replaces
  // it and moves on), so nothing the channel does changes, and states alike but for where the
  // ring stood key alike (both replay keys: they hold the ring as it stands).
  void turnActWindows();
  ActWindow& windowOf(uint32_t rank) { return windows_[rank * windowStride_]; }
  const ActWindow& windowOf(uint32_t rank) const { return windows_[rank * windowStride_]; }
  Bank& bank(const DramRequest& r) { return banks_[r.bankIndex]; }
  const Bank& bank(const DramRequest& r) const { return banks_[r.bankIndex]; }
  static size_t bankIndex(const DramRequest& r) { return r.bankIndex; }
  static size_t groupIndex(const DramRequest& r) { return r.groupIndex; }

  // Timing in cycles.
  int64_t tCL_, tCWL_, tRCDRD_, tRCDWR_, tRP_, tRAS_, tRC_, tCCD_S_, tCCD_L_, tRRD_S_, tRRD_L_,
      tFAW_;
  int64_t tWR_, tWTR_S_, tWTR_L_, tRTW_, tRTP_, tREFI_, tRFC_, tRFCpb_, burst_;
  int64_t
      tCCDR_;  // read to read on another rank (stack id); tCCD_S when the part has no own figure
  // HBM3: its "ranks" are the stack ids of one pseudo-channel, which share tRRD_S, tFAW and
  // tWTR_S (JESD238A; Ramulator 2's HBM3 puts them at the pseudo-channel level).
  bool sharedWindow_ = false;
  // One window per rank, or one for all (sharedWindow_: stride 0).
  std::vector<ActWindow> windows_;
  uint32_t windowStride_ = 1;
  int64_t lastRdRank_ = -1;
  CommandLengths commands_;
  CommandBus& bus_;
  CycleWindow& columnBus() const { return *column_; }
  CycleWindow* column_;  // bus_.column, or bus_.row when the standard has one bus
  // The row bus in its slots (commands_.rowSlots per cycle): the first slot at or after `cycle`
  // where `length` slots are free, and the cycle a command starting at `slot` counts from.
  int64_t rowSlot(int64_t cycle, int length) const {
    return bus_.row.firstFree(cycle * commands_.rowSlots, length);
  }
  int64_t cycleOfSlot(int64_t slot) const {
    return (slot + commands_.rowSlots - 1) / commands_.rowSlots;
  }
  int64_t
      refreshInterval_;  // between refresh commands: tREFI, or tREFI / banks with per-bank refresh
  bool closedPage_;
  uint32_t bankGroups_, banksPerGroup_, banksPerRank_, starvationCap_;
  int64_t tckPs_;

  std::vector<Bank> banks_;
  std::vector<BankGroup> groups_;
  std::vector<Rank> ranks_;
  std::vector<char> refreshedThisRound_;  // per bank: already refreshed in its rank's current round
  int64_t lastCol_, lastRdCmd_, dataBusFree_;
  int64_t lastDataEnd_ = 0;
  // When the slots that issued requests leave free up (their column commands), per queue (heaps,
  // earliest first). A new request takes a slot never used if there is one (free slots beyond those
  // listed), else the one that frees first: a queue with room in it still waits for the slot's
  // last request to leave, and a slot freed early by a request issued late serves the next
  // request, whichever order the scheduler issued them in.
  // (Kept sorted in a ring: slots free about in the order they were taken, so an insertion moves
  // few entries, and the earliest is at the front.)
  // (Or, after a replayed drain that left it empty, the drain's recorded times, sorted, read in
  // place with the drain's shift: `sorted` until a push copies them into the ring.)
  class FreedSlots {
   public:
    explicit FreedSlots(uint32_t depth) {
      size_t ring = 1;
      while (ring < depth + size_t{1}) ring *= 2;
      times_.assign(ring, 0);
      mask_ = ring - 1;
    }
    size_t size() const { return sorted_ ? sortedEnd_ - sortedBegin_ : end_ - begin_; }
    void push(int64_t t) {
      if (sorted_) spill();
      size_t at = end_++;
      while (at > begin_ && times_[(at - 1) & mask_] > t) {
        times_[at & mask_] = times_[(at - 1) & mask_];
        --at;
      }
      times_[at & mask_] = t;
    }
    int64_t popEarliest() {
      if (sorted_) {
        const int64_t t = sorted_[sortedBegin_++] + shift_;
        if (sortedBegin_ == sortedEnd_) sorted_ = nullptr;
        return t;
      }
      return times_[begin_++ & mask_];
    }
    // By time, earliest first.
    int64_t at(size_t i) const {
      return sorted_ ? sorted_[sortedBegin_ + i] + shift_ : times_[(begin_ + i) & mask_];
    }
    // Drops the `n` earliest.
    void drop(size_t n) {
      if (sorted_) {
        sortedBegin_ += n;
        if (sortedBegin_ == sortedEnd_) sorted_ = nullptr;
      } else {
        begin_ += n;
      }
    }
    void clear() {
      begin_ = end_ = 0;
      sorted_ = nullptr;
    }
    // The times become sorted[0, n) + shift (it must be empty; `sorted` must outlive their use).
    void assignSorted(const int32_t* sorted, size_t n, int64_t shift) {
      if (n == 0) return;
      sorted_ = sorted;
      sortedBegin_ = 0;
      sortedEnd_ = n;
      shift_ = shift;
    }

   private:
    void spill() {
      const int32_t* sorted = sorted_;
      sorted_ = nullptr;
      begin_ = end_ = 0;
      for (size_t i = sortedBegin_; i < sortedEnd_; ++i)
        times_[end_++ & mask_] = sorted[i] + shift_;
    }
    std::vector<int64_t> times_;
    size_t mask_ = 0, begin_ = 0, end_ = 0;
    const int32_t* sorted_ = nullptr;
    size_t sortedBegin_ = 0, sortedEnd_ = 0;
    int64_t shift_ = 0;
  };
  FreedSlots freedReads_, freedWrites_;
  RequestQueue reads_, writes_;
  // Write drain (Ramulator 2's generic controller): reads go first until the write queue holds
  // more than highMark_ writes or no read is waiting; writes then go until fewer than lowMark_
  // are left while reads wait.
  bool writeMode_ = false;
  uint32_t highMark_, lowMark_;
  RequestQueue& scheduledQueue() {
    if (writes_.empty()) {
      writeMode_ = false;
      return reads_;
    }
    if (reads_.empty()) {
      writeMode_ = true;
      return writes_;
    }
    return chooseQueue();
  }
  RequestQueue& chooseQueue();  // both queues hold requests
  DramStats& stats_;
  bool shortcuts_ = true;
  std::vector<Issued>* log_ = nullptr;
  std::vector<Done>* done_ = nullptr;
  // A burst of a drain being recorded for replay: its request (by age in the drain's key) and its
  // commands, relative to the drain's earliest arrival.
  struct Step {
    uint32_t request;
    int64_t pre, act, col, dataEnd, preSlot, actSlot;
  };
  std::vector<Step>* record_ = nullptr;
  // Admitted, not queued, offeredCount_ of them, as runs of requests alike (consecutive ones of
  // the same bank, row, size and offered arrival are one run, always): the first offeredRuns_.
  // A request is taken at its arrival, or when the slot it takes freed if later: each run's first
  // `noPop` take slots never used, the rest the earliest freed (the freed slots' times are only
  // looked at, from the `pop`-th earliest on, until the drain takes them: offeredPops_ in all), so
  // that admitting a run costs the same whatever its length.
  struct OfferedRun {
    DramRequest request;  // (arrival: when offered)
    uint32_t count, pop, noPop;
  };
  std::vector<OfferedRun> offered_;
  uint32_t offeredCount_ = 0, offeredRuns_ = 0, offeredPops_ = 0;
  const FreedSlots& offeredFreed() const {
    return offered_.front().request.write ? freedWrites_ : freedReads_;
  }
  // When the k-th request of a run was taken.
  int64_t offeredArrival(const OfferedRun& run, uint32_t k) const {
    const int64_t arrival = run.request.arrival;
    return k < run.noPop ? arrival
                         : std::max(arrival, offeredFreed().at(run.pop + (k - run.noPop)));
  }
  uint32_t recordIndex_ = 0;  // the request being committed, by age
  struct Replay {
    bool on = true;
    ReplayCounters counters;
    // Per drain: the key's anchors and the requests by age (slot, arrival) it was built from.
    int64_t t0 = 0;
    uint64_t baseRow = 0;
    std::vector<int64_t> key;
    std::vector<int32_t> slots;           // the queue's requests by age
    std::vector<KeyRun> runs;             // the same as runs of requests alike
    std::vector<DramRequest> byAge;       // offered requests by age (applying, with a log)
    std::vector<uint32_t> banks, groups;  // banks and bank groups with queued requests, ascending
    std::vector<char> mark;               // per bank, scratch for the key (all 0 between keys)
    uint64_t hash = 0;
    size_t keySize = 0;  // the key's words (key holds room for more)
    // What a recorded drain changes: per field of its banks, groups, windows and channel (in the
    // key's order), kept, or set to a time (+ t0), a row (+ baseRow) or a value.
    enum class Set : uint8_t { Keep, Time, Row, Value };
    struct Change {
      Set how;
      int64_t value;
    };
    struct Entry {
      std::vector<int64_t> key;
      std::vector<Step> steps;
      // The steps' column commands (when their queue slots free), earliest first; a queue's
      // freed slots read them in place (FreedSlots::assignSorted: entries are never changed or
      // dropped, and their vectors move with them).
      std::vector<int32_t> sortedCols;
      std::vector<Change> changes;
      std::vector<std::pair<int64_t, uint32_t>> latencies;  // read latency (cycles), count
      uint64_t rowHits = 0, rowMisses = 0, rowConflicts = 0, bytes = 0, latencySumPs = 0;
      int64_t lastFirst = 0, maxDataEnd = 0;  // latest first command and data end (+ t0)
    };
    // Recorded drains, shared by the channels of one memory (alike but for their state).
    struct Cache {
      std::vector<Entry> entries;
      std::unordered_map<uint64_t, uint32_t> byHash;
      size_t words = 0;  // what the entries hold, in 8-byte words
    };
    std::shared_ptr<Cache> cache = std::make_shared<Cache>();
    uint32_t misses = 0, skip = 0, backoff = 0;  // drains not looked up after misses in a row
  } replay_;
  uint32_t logChannel_ = 0;
  // Replayed drains whose read latencies are not in the histogram yet: how many times each
  // recorded drain was applied since, and those applied.
  struct PendingLatencies {
    std::vector<uint64_t> times;
    std::vector<uint32_t> entries;
  };
  mutable PendingLatencies latencies_;
  // Batch replay: where the batch being recorded notes its bursts, and what it did so far.
  struct BatchRecording {
    std::vector<BatchStep>* steps = nullptr;
    std::vector<BatchLogStep>* logSteps = nullptr;
    uint32_t index = 0;
    bool active = false;
    std::vector<int64_t> wantedRow;  // per bank: a row the batch wants (or kNone), -2 none
    std::vector<char> wantedGroup;
    int64_t t0 = 0;
    uint64_t baseRow = 0;
    bool bad = false;             // a time too far from t0 to note, or a refresh due before it
    std::vector<int64_t> before;  // the fields when it began
    size_t freedBefore = 0, pastBefore = 0;
    uint64_t refreshes = 0;  // freed write slots then, and those older than t0; refreshes then
    int64_t refreshPs = 0;
    BatchOutcome acc;
    bool touched = false;
  } batch_;
};

// Defined here so that the per-burst caller can inline it.
inline int64_t DramChannel::enqueue(const DramRequest& request) {
  RequestQueue& q = request.write ? writes_ : reads_;
  FreedSlots& freed = request.write ? freedWrites_ : freedReads_;
  while (q.full()) issueOne();
  // Indices in locals: stores through the queue's index arrays could alias the slot's fields, so
  // reading them back from the slot would wait for every store before.
  const uint32_t gi = request.rank * bankGroups_ + request.bankGroup;
  const uint32_t bi = gi * banksPerGroup_ + request.bank;
  // The request takes a slot that was never used, or else the one that freed first.
  const bool neverUsed = freed.size() < q.depth() - q.size();
  int64_t from = request.arrival;
  if (!neverUsed) from = std::max(from, freed.popEarliest());
  q.push(request, from, bi, gi, banks_[bi].openRow);
  return from;
}

inline int64_t DramChannel::admitRun(const DramRequest& request, uint64_t n) {
  const RequestQueue& q = request.write ? writes_ : reads_;
  const FreedSlots& freed = request.write ? freedWrites_ : freedReads_;
  const uint32_t depth = q.depth();
  if (q.empty() && offeredCount_ < depth) {
    // The first `noPop` take slots never used (while fewer slots have freed than are left), the
    // rest the earliest freed, in order: the latest of those the run takes decides when its last
    // request was taken.
    const uint32_t room = depth - offeredCount_;
    const uint32_t taken = static_cast<uint32_t>(std::min<uint64_t>(n, room));
    const uint64_t have = freed.size() - offeredPops_;
    const uint32_t noPop =
        have >= room ? 0 : static_cast<uint32_t>(std::min<uint64_t>(taken, room - have));
    const uint32_t pops = taken - noPop;
    const uint32_t gi = request.rank * bankGroups_ + request.bankGroup;
    const uint32_t bi = gi * banksPerGroup_ + request.bank;
    OfferedRun* last = offeredRuns_ > 0 ? &offered_[offeredRuns_ - 1] : nullptr;
    if (last && last->request.arrival == request.arrival && last->request.bankIndex == bi &&
        last->request.row == request.row && last->request.bytes == request.bytes &&
        last->request.write == request.write && (last->count == last->noPop || noPop == 0)) {
      last->count += taken;
      last->noPop += noPop;
    } else {
      // Field by field (as RequestQueue::push: a whole-struct copy of the request just built
      // stalls on store forwarding), into room reserved for a queue's depth.
      OfferedRun& run = offered_[offeredRuns_++];
      DramRequest& r = run.request;
      r.write = request.write;
      r.rank = request.rank;
      r.bankGroup = request.bankGroup;
      r.bank = request.bank;
      r.row = request.row;
      r.arrival = request.arrival;
      r.bytes = request.bytes;
      r.bankIndex = bi;
      r.groupIndex = gi;
      run.count = taken;
      run.pop = offeredPops_;
      run.noPop = noPop;
    }
    int64_t at = request.arrival;
    if (pops > 0) at = std::max(at, freed.at(offeredPops_ + pops - 1));
    offeredPops_ += pops;
    offeredCount_ += taken;
    if (taken == n) return at;
    n -= taken;
    // More than the queue holds: queued from here on (those offered first, in order), as enqueue
    // would have left them.
    DramRequest r = request;
    r.arrival = at;
    queueOffered();
    for (; n > 0; --n) r.arrival = std::max(r.arrival, enqueue(r));
    return r.arrival;
  }
  queueOffered();
  int64_t at = request.arrival;
  DramRequest r = request;
  for (; n > 0; --n) {
    r.arrival = at;
    at = std::max(at, enqueue(r));
  }
  return at;
}

}  // namespace ascendsim::models
