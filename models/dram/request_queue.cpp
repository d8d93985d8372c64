#include "models/dram/request_queue.h"

namespace ascendsim::models {

RequestQueue::RequestQueue(uint32_t depth, size_t banks) : depth_(depth) {
  slots_.resize(depth);
  for (int32_t i = static_cast<int32_t>(depth) - 1; i >= 0; --i) freeSlots_.push_back(i);
  bankHead_.assign(banks, -1);
  bankTail_.assign(banks, -1);
  bankQueued_.assign(banks, 0);
  activePos_.assign(banks, -1);
  openRowQueued_.assign(banks, 0);
  uint64_t ring = 1;
  while (ring < 2 * uint64_t{depth}) ring *= 2;
  arrivals_.assign(ring, -1);
  arrivalMask_ = ring - 1;
}

void RequestQueue::rowChanged(uint32_t bi, int64_t row) {
  uint32_t n = 0;
  if (row >= 0) {
    for (int32_t s = bankHead_[bi]; s >= 0; s = slots_[s].next)
      n += static_cast<int64_t>(slots_[s].request.row) == row;
  }
  setHitCount(bi, n);
}

void RequestQueue::clear() {
  for (uint32_t bi : activeBanks_) {
    bankHead_[bi] = bankTail_[bi] = -1;
    bankQueued_[bi] = 0;
    activePos_[bi] = -1;
    setHitCount(bi, 0);
  }
  activeBanks_.clear();
  for (uint64_t q = frontSeq_; q < nextSeq_; ++q) {
    int32_t& slot = arrivals_[q & arrivalMask_];
    if (slot >= 0) freeSlots_.push_back(slot);
    slot = -1;
  }
  frontSeq_ = nextSeq_;
  queued_ = 0;
  hitBank_ = -1;
}

void RequestQueue::growArrivals() {
  std::vector<int32_t> bigger(arrivals_.size() * 2);
  for (uint64_t q = frontSeq_; q < nextSeq_; ++q)
    bigger[q & (bigger.size() - 1)] = arrivals_[q & arrivalMask_];
  arrivals_ = std::move(bigger);
  arrivalMask_ = arrivals_.size() - 1;
}

}  // namespace ascendsim::models
