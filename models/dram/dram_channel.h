#pragma once
// One independent DRAM channel (or pseudo-channel): per-bank state under the JEDEC constraints,
// a request queue scheduled first-ready, first-come-first-served (FR-FCFS), and all-bank refresh.
// It never ticks: for each request it computes when its commands can issue from the bank, bank
// group, rank and bus state, in clock cycles, and commits the earliest.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/dram/command_bus.h"
#include "models/dram/dram_stats.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

struct DramRequest {
  bool write = false;
  uint32_t rank = 0, bankGroup = 0, bank = 0;  // bank: index within its group
  uint64_t row = 0;
  int64_t arrival = 0;  // clock cycles
  uint32_t bytes = 0;   // payload this burst carries for the caller (statistics)
  uint32_t bankIndex = 0, groupIndex = 0;  // within the channel; the channel fills them in
};

class DramChannel {
 public:
  // `bus`: the channel's command bus, shared with the other pseudo-channel(s) of an HBM channel.
  DramChannel(const spec::DramSpec& spec, DramStats& stats, CommandBus& bus);

  // Queues a request; when the queue is full, first issues the one FR-FCFS picks. Returns the
  // cycle the queue took it: its arrival, or later when it had to wait for a slot.
  int64_t enqueue(const DramRequest& request);
  // Issues everything queued.
  void drain();
  bool idle() const { return queued_ == 0; }
  // Data end (clock cycles) of the latest burst issued so far.
  int64_t lastDataEnd() const { return lastDataEnd_; }

 private:
  enum class Access { Hit, Miss, Conflict };
  struct Plan {
    int64_t pre = -1, act = -1, col = 0;
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
    ActWindow window;
    int64_t nextRefresh, refreshEnd;
    uint32_t nextBank = 0;          // per-bank refresh: where the round-robin search starts
    uint32_t refreshedInRound = 0;  // banks refreshed in the current tREFI round
  };

  // When the request's commands can issue; `withBus`: also waiting for free command-bus cycles.
  template <bool withBus>
  Plan plan(const DramRequest& r) const;
  void commit(const DramRequest& r, const Plan& p);
  void issueOne();
  void removeFromBank(uint32_t bankIdx, int32_t slot);
  // Opens (row >= 0) or closes (-1) a bank's row, and counts the queued requests that hit it.
  void setOpenRow(size_t bankIdx, int64_t row);
  void refresh(Rank& rank, uint32_t rankIndex, int64_t start);
  void refreshOneBank(Rank& rank, uint32_t rankIndex, int64_t start);
  void catchUpRefresh(uint32_t rankIndex, int64_t until);

  ActWindow& window(Rank& k) { return sharedWindow_ ? shared_ : k.window; }
  const ActWindow& window(const Rank& k) const { return sharedWindow_ ? shared_ : k.window; }
  Bank& bank(const DramRequest& r) { return banks_[r.bankIndex]; }
  const Bank& bank(const DramRequest& r) const { return banks_[r.bankIndex]; }
  static size_t bankIndex(const DramRequest& r) { return r.bankIndex; }
  static size_t groupIndex(const DramRequest& r) { return r.groupIndex; }

  // Timing in cycles.
  int64_t tCL_, tCWL_, tRCDRD_, tRCDWR_, tRP_, tRAS_, tRC_, tCCD_S_, tCCD_L_, tRRD_S_, tRRD_L_, tFAW_;
  int64_t tWR_, tWTR_S_, tWTR_L_, tRTW_, tRTP_, tREFI_, tRFC_, tRFCpb_, burst_;
  int64_t tCCDR_;  // read to read on another rank (stack id); tCCD_S when the part has no own figure
  // HBM3: its "ranks" are the stack ids of one pseudo-channel, which share tRRD_S, tFAW and
  // tWTR_S (JESD238A; Ramulator 2's HBM3 puts them at the pseudo-channel level).
  bool sharedWindow_ = false;
  ActWindow shared_;
  int64_t lastRdRank_ = -1;
  CommandLengths commands_;
  CommandBus& bus_;
  CycleWindow& columnBus() const { return commands_.separateColumnBus ? bus_.column : bus_.row; }
  int64_t refreshInterval_;  // between refresh commands: tREFI, or tREFI / banks with per-bank refresh
  bool closedPage_;
  uint32_t bankGroups_, banksPerGroup_, banksPerRank_, queueDepth_, starvationCap_;
  int64_t tckPs_;

  std::vector<Bank> banks_;
  std::vector<BankGroup> groups_;
  std::vector<Rank> ranks_;
  std::vector<char> refreshedThisRound_;
  // per bank: already refreshed in its rank's current round
  int64_t lastCol_, lastRdCmd_, dataBusFree_;
  int64_t lastDataEnd_ = 0;
  // The queue: requests in a pool of slots, chained per bank in arrival order. Only banks with
  // queued requests are scheduling candidates, so choosing costs per busy bank, not per request.
  struct Slot {
    DramRequest request;
    uint64_t seq = 0;    // arrival order
    int32_t next = -1;   // next slot of the same bank
  };
  std::vector<Slot> slots_;
  std::vector<int32_t> freeSlots_;
  std::vector<int32_t> bankHead_, bankTail_;
  std::vector<uint32_t> bankQueued_;
  std::vector<uint32_t> openRowQueued_;  // per bank: queued requests to its open row
  uint32_t banksWithHits_ = 0;  // banks with openRowQueued_ > 0
  int64_t hitBank_ = -1;        // when banksWithHits_ is 1, that bank if known, else -1
  // Sets a bank's count of queued open-row hits, keeping banksWithHits_ and hitBank_ current.
  void setHitCount(size_t bankIdx, uint32_t n) {
    const uint32_t before = openRowQueued_[bankIdx];
    openRowQueued_[bankIdx] = n;
    if ((before == 0) == (n == 0)) return;
    if (n > 0) {
      hitBank_ = ++banksWithHits_ == 1 ? static_cast<int64_t>(bankIdx) : -1;
    } else {
      --banksWithHits_;
      hitBank_ = -1;  // which one is left (if one) is not known without a search
    }
  }
  std::vector<uint32_t> activeBanks_;   // banks with queued requests
  // The slot of each request by arrival (seq) in a ring, -1 once issued; from frontSeq_ on, issued
  // entries are skipped when they reach the front.
  std::vector<int32_t> arrivals_;
  uint64_t arrivalMask_ = 0, frontSeq_ = 0;
  void growArrivals();
  std::vector<int32_t> activePos_;      // position of a bank in activeBanks_, or -1
  uint32_t queued_ = 0;
  uint64_t nextSeq_ = 0;
  uint32_t oldestPassedOver_ = 0;
  DramStats& stats_;
};

// Defined here so that the per-burst caller can inline it.
inline int64_t DramChannel::enqueue(const DramRequest& request) {
  const bool wasFull = queued_ >= queueDepth_;
  if (wasFull) issueOne();
  const int32_t slot = freeSlots_.back();
  freeSlots_.pop_back();
  // Filled field by field: a whole-struct copy of a request the caller has just built reads it
  // with wide loads that stall on store-to-load forwarding (a third of the time of streams).
  Slot& entry = slots_[slot];
  DramRequest& r = entry.request;
  r.write = request.write;
  r.rank = request.rank;
  r.bankGroup = request.bankGroup;
  r.bank = request.bank;
  r.row = request.row;
  r.arrival = request.arrival;
  r.bytes = request.bytes;
  // Indices in locals: stores through the queue's index arrays could alias the slot's fields, so
  // reading them back from the slot would wait for every store before.
  const uint32_t gi = request.rank * bankGroups_ + request.bankGroup;
  const uint32_t bi = gi * banksPerGroup_ + request.bank;
  const int64_t row = static_cast<int64_t>(request.row);
  r.groupIndex = gi;
  r.bankIndex = bi;
  // A full queue takes the request when the issued one's column command freed a slot.
  if (wasFull) r.arrival = std::max(r.arrival, lastCol_);
  entry.seq = nextSeq_;
  entry.next = -1;
  if (nextSeq_ - frontSeq_ > arrivalMask_) growArrivals();
  arrivals_[nextSeq_++ & arrivalMask_] = slot;
  if (bankTail_[bi] >= 0) {
    slots_[bankTail_[bi]].next = slot;
  } else {
    bankHead_[bi] = slot;
  }
  bankTail_[bi] = slot;
  if (row == banks_[bi].openRow) setHitCount(bi, openRowQueued_[bi] + 1);
  if (bankQueued_[bi]++ == 0) {
    activePos_[bi] = static_cast<int32_t>(activeBanks_.size());
    activeBanks_.push_back(bi);
  }
  ++queued_;
  return r.arrival;
}

}  // namespace ascendsim::models
