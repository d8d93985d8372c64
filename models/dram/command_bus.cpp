#include "models/dram/command_bus.h"

#include <algorithm>

namespace ascendsim::models {

CommandLengths CommandLengths::of(const DramStandardRules& standard) {
  CommandLengths c;
  c.act = standard.act;
  c.pre = standard.pre;
  c.ref = standard.ref;
  c.column = standard.column;
  c.separateColumnBus = standard.separateColumnBus;
  c.rowSlots = standard.rowSlotsPerClock;
  return c;
}

void CycleWindow::bookSlow(int64_t at, int length) {
  const int64_t end = at + length;
  bookedUntil_ = std::max(bookedUntil_, end);
  if (end > base_ + kCycles) {
    // Slide the window forward, freeing the cycles that fall out of it.
    // (Whole words at a time: the base moves in multiples of 64 cycles.)
    const int64_t newBase = (end - kCycles / 2) & ~int64_t{63};
    if (newBase - base_ >= kCycles) {
      bits_.fill(0);
    } else {
      for (int64_t c = base_; c < newBase; c += 64)
        bits_[(static_cast<uint64_t>(c) & (kCycles - 1)) >> 6] = 0;
    }
    base_ = newBase;
  }
  for (int64_t c = std::max(at, base_); c < end; ++c) {
    const uint64_t slot = static_cast<uint64_t>(c) & (kCycles - 1);
    bits_[slot >> 6] |= uint64_t{1} << (slot & 63);
  }
}

}  // namespace ascendsim::models
