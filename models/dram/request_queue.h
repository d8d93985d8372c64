#pragma once
// The requests of one kind (reads or writes) a DRAM channel holds, waiting to be scheduled: a
// pool of `depth` slots chained per bank in arrival order, so that the scheduler looks at the
// banks that have requests (per bank only its oldest request and its oldest open-row hit can be
// first ready), not at every request.

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ascendsim::models {

struct DramRequest {
  bool write = false;
  uint32_t rank = 0, bankGroup = 0, bank = 0;  // bank: index within its group
  uint64_t row = 0;
  int64_t arrival = 0;                     // clock cycles
  uint32_t bytes = 0;                      // payload this burst carries for the caller (statistics)
  uint32_t bankIndex = 0, groupIndex = 0;  // within the channel; the channel fills them in
};

class RequestQueue {
 public:
  RequestQueue(uint32_t depth, size_t banks);

  uint32_t depth() const { return depth_; }
  uint32_t size() const { return queued_; }
  bool empty() const { return queued_ == 0; }
  bool full() const { return queued_ >= depth_; }

  // Takes a request for bank `bi` of group `gi` whose open row is `openRow`; returns it as queued.
  DramRequest& push(const DramRequest& request, uint32_t bi, uint32_t gi, int64_t openRow) {
    return push(request, request.arrival, bi, gi, openRow);
  }
  // The same, arriving at `arrival` (clock cycles) rather than request.arrival.
  DramRequest& push(const DramRequest& request, int64_t arrival, uint32_t bi, uint32_t gi,
                    int64_t openRow);
  // Drops every request (a drain replayed: all of them issued).
  void clear();
  // An empty queue numbers its next request as if `n` more had been queued and issued.
  void skip(uint64_t n) {
    nextSeq_ += n;
    frontSeq_ = nextSeq_;
  }
  // Drops an issued request.
  void remove(int32_t slot, int64_t openRow);
  // The oldest queued request's slot (the queue must not be empty).
  int32_t oldest();
  // Arrival of the oldest queued request.
  int64_t oldestArrival() { return slots_[oldest()].request.arrival; }

  // Arrival order: requests from frontSeq() (the oldest, once oldest() ran) to before endSeq();
  // slotByAge is -1 for one already issued.
  uint64_t frontSeq() const { return frontSeq_; }
  uint64_t endSeq() const { return nextSeq_; }
  int32_t slotByAge(uint64_t seq) const { return arrivals_[seq & arrivalMask_]; }

  const DramRequest& request(int32_t slot) const { return slots_[slot].request; }
  uint64_t seq(int32_t slot) const { return slots_[slot].seq; }
  int32_t head(uint32_t bi) const { return bankHead_[bi]; }
  int32_t next(int32_t slot) const { return slots_[slot].next; }
  uint32_t queuedIn(uint32_t bi) const { return bankQueued_[bi]; }
  uint32_t hitsIn(uint32_t bi) const { return openRowQueued_[bi]; }
  const std::vector<uint32_t>& activeBanks() const { return activeBanks_; }
  uint32_t banksWithHits() const { return banksWithHits_; }
  // When banksWithHits() is 1, that bank if known, else -1.
  int64_t hitBank() const { return hitBank_; }
  // After bank `bi` opened `row` (or closed: -1): recounts its queued hits.
  void rowChanged(uint32_t bi, int64_t row);

  // Whether the queued requests arrive in the order they were queued (each no earlier than the one
  // queued before it): then a request's column command can go no earlier than the arrival of any
  // older one, which lets the scheduler stop looking at the first request that arrives too late.
  bool arrivalsInOrder() const { return inOrder_; }

  // Times in a row the oldest request was passed over (FR-FCFS starvation cap).
  uint32_t passedOver = 0;

 private:
  struct Slot {
    DramRequest request;
    uint64_t seq = 0;   // arrival order
    int32_t next = -1;  // next slot of the same bank
    int32_t prev = -1;  // previous slot of the same bank (so that a removal is one step)
  };
  // Sets a bank's count of queued open-row hits, keeping banksWithHits_ and hitBank_ current.
  void setHitCount(size_t bi, uint32_t n) {
    const uint32_t before = openRowQueued_[bi];
    openRowQueued_[bi] = n;
    if ((before == 0) == (n == 0)) return;
    if (n > 0) {
      hitBank_ = ++banksWithHits_ == 1 ? static_cast<int64_t>(bi) : -1;
    } else {
      --banksWithHits_;
      hitBank_ = -1;  // which one is left (if one) is not known without a search
    }
  }
  void growArrivals();

  uint32_t depth_;
  std::vector<Slot> slots_;
  std::vector<int32_t> freeSlots_;
  std::vector<int32_t> bankHead_, bankTail_;
  std::vector<uint32_t> bankQueued_;
  std::vector<uint32_t> openRowQueued_;  // per bank: queued requests to its open row
  uint32_t banksWithHits_ = 0;           // banks with openRowQueued_ > 0
  int64_t hitBank_ = -1;
  std::vector<uint32_t> activeBanks_;  // banks with queued requests
  std::vector<int32_t> activePos_;     // position of a bank in activeBanks_, or -1
  // The slot of each request by arrival (seq) in a ring, -1 once issued; from frontSeq_ on, issued
  // entries are skipped when they reach the front.
  std::vector<int32_t> arrivals_;
  uint64_t arrivalMask_ = 0, frontSeq_ = 0, nextSeq_ = 0;
  uint32_t queued_ = 0;
  int64_t lastArrival_ = 0;  // of the request queued last
  bool inOrder_ = true;
};

// Defined here so that the per-burst caller can inline it.
inline DramRequest& RequestQueue::push(const DramRequest& request, int64_t arrival, uint32_t bi,
                                       uint32_t gi, int64_t openRow) {
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
  r.arrival = arrival;
  r.bytes = request.bytes;
  r.groupIndex = gi;
  r.bankIndex = bi;
  entry.seq = nextSeq_;
  entry.next = -1;
  const int32_t tail = bankTail_[bi];
  entry.prev = tail;
  if (nextSeq_ - frontSeq_ > arrivalMask_) growArrivals();
  arrivals_[nextSeq_++ & arrivalMask_] = slot;
  if (tail >= 0) {
    slots_[tail].next = slot;
  } else {
    bankHead_[bi] = slot;
  }
  bankTail_[bi] = slot;
  if (static_cast<int64_t>(request.row) == openRow) setHitCount(bi, openRowQueued_[bi] + 1);
  if (bankQueued_[bi]++ == 0) {
    activePos_[bi] = static_cast<int32_t>(activeBanks_.size());
    activeBanks_.push_back(bi);
  }
  // An empty queue starts a new order.
  inOrder_ = queued_ == 0 || (inOrder_ && arrival >= lastArrival_);
  lastArrival_ = arrival;
  ++queued_;
  return r;
}

inline void RequestQueue::remove(int32_t slot, int64_t openRow) {
  const Slot& gone = slots_[slot];
  const uint32_t bi = gone.request.bankIndex;
  const int32_t prev = gone.prev, next = gone.next;
  if (prev < 0) {
    bankHead_[bi] = next;
  } else {
    slots_[prev].next = next;
  }
  if (next < 0) {
    bankTail_[bi] = prev;
  } else {
    slots_[next].prev = prev;
  }
  freeSlots_.push_back(slot);
  arrivals_[gone.seq & arrivalMask_] = -1;  // issued: the front skips it
  if (static_cast<int64_t>(gone.request.row) == openRow) setHitCount(bi, openRowQueued_[bi] - 1);
  --queued_;
  if (--bankQueued_[bi] == 0) {
    // Swap-remove from the busy list.
    const int32_t pos = activePos_[bi];
    const uint32_t last = activeBanks_.back();
    activeBanks_[static_cast<size_t>(pos)] = last;
    activePos_[last] = pos;
    activeBanks_.pop_back();
    activePos_[bi] = -1;
  }
}

inline int32_t RequestQueue::oldest() {
  while (arrivals_[frontSeq_ & arrivalMask_] < 0) ++frontSeq_;
  return arrivals_[frontSeq_ & arrivalMask_];
}

}  // namespace ascendsim::models
