#pragma once
// The command/address bus of one DRAM channel: which clock cycles its commands occupy. HBM has a
// row bus (ACT, PRE, REF) and a column bus (RD, WR) per channel, shared by the channel's two
// pseudo-channels (JESD235 / JESD238 "row and column command interfaces"); DDR and LPDDR have one
// command bus per channel (or DDR5 sub-channel) for all commands. Commands of several lengths:
// HBM2 ACT 2 cycles, HBM3 ACT 1.5 and PRE/REF 0.5 (its row bus counted in half cycles), DDR5
// ACT/RD/WR 2, LPDDR4 ACT/RD/WR 4 and PRE/REF 2 (two-part commands).
//
// Bookings may come out of time order (the pseudo-channels are scheduled one after the other),
// so each bus keeps a window of booked cycles rather than a "free from" time. Cycles older than
// the window count as free: the pseudo-channels stay within it of each other in practice.

#include <algorithm>
#include <array>
#include <cstdint>

#include "models/dram/dram_standard.h"

namespace ascendsim::models {

// Cycles one command holds its bus (row commands: slots of the row bus, `rowSlots` per cycle).
struct CommandLengths {
  int act = 1, pre = 1, ref = 1, column = 1;
  bool separateColumnBus = false;  // HBM: RD/WR on their own bus
  int rowSlots = 1;                // HBM3: 2 (half-clock row commands)
  static CommandLengths of(const DramStandardRules& standard);
};

class CycleWindow {
 public:
  // The first cycle at or after `from` that starts `length` free cycles.
  int64_t firstFree(int64_t from, int length) const {
    if (from >= bookedUntil_) return from;  // past every booking (the usual case)
    int64_t at = from;
    for (int i = 0; i < length; ++i) {
      if (busy(at + i)) {
        at += i + 1;
        i = -1;
      }
    }
    return at;
  }
  // For drain replay: the start of the window, the end of the latest booking, and the booked
  // cycles from `from` (within the window) to that end, 64 to a word, the first cycle lowest.
  int64_t base() const { return base_; }
  int64_t bookedUntil() const { return bookedUntil_; }
  template <typename Out>
  void appendBooked(int64_t from, Out& out) const {
    appendBits(from, std::min(bookedUntil_, base_ + kCycles), out);
  }
  // For batch replay: the booked cycles from `from` to the window's end (as appendBooked), and
  // setting the window to a state such bookings left: the window starting at `base` (the cycles
  // it slid past freed), the latest booking ending at `bookedUntil`, and from `from` on the bits
  // appendWindow gave.
  template <typename Out>
  void appendWindow(int64_t from, Out& out) const {
    appendBits(from, base_ + kCycles, out);
  }
  void restore(int64_t from, int64_t base, int64_t bookedUntil, const uint64_t* words) {
    if (base != base_) {
      if (base - base_ >= kCycles) {
        bits_.fill(0);
      } else {
        for (int64_t c = base_; c < base; c += 64)
          bits_[(static_cast<uint64_t>(c) & (kCycles - 1)) >> 6] = 0;
      }
      base_ = base;
    }
    bookedUntil_ = bookedUntil;
    const int64_t end = base_ + kCycles;
    for (int64_t c = std::max(from, base_); c < end; c += 64) {
      const uint64_t len = static_cast<uint64_t>(std::min<int64_t>(64, end - c));
      const uint64_t m = len == 64 ? ~uint64_t{0} : (uint64_t{1} << len) - 1;
      const uint64_t bits = *words++ & m;
      const uint64_t slot = static_cast<uint64_t>(c) & (kCycles - 1);
      const uint64_t off = slot & 63, word = slot >> 6;
      bits_[word] = (bits_[word] & ~(m << off)) | (bits << off);
      if (off != 0 && len > 64 - off) {
        uint64_t& next = bits_[(word + 1) % bits_.size()];
        next = (next & ~(m >> (64 - off))) | (bits >> (64 - off));
      }
    }
  }
  void book(int64_t at, int length) {
    const int64_t end = at + length;
    if (end > base_ + kCycles || at < base_) return bookSlow(at, length);
    if (end > bookedUntil_) bookedUntil_ = end;
    for (int64_t c = at; c < end; ++c) {
      const uint64_t slot = static_cast<uint64_t>(c) & (kCycles - 1);
      bits_[slot >> 6] |= uint64_t{1} << (slot & 63);
    }
  }

 private:
  // The booked bits of cycles [max(from, base), end), 64 to a word.
  template <typename Out>
  void appendBits(int64_t from, int64_t end, Out& out) const {
    for (int64_t c = std::max(from, base_); c < end; c += 64) {
      const uint64_t slot = static_cast<uint64_t>(c) & (kCycles - 1);
      const uint64_t off = slot & 63, word = slot >> 6;
      uint64_t bits = bits_[word] >> off;
      if (off != 0) bits |= bits_[(word + 1) % bits_.size()] << (64 - off);
      if (end - c < 64) bits &= (uint64_t{1} << (end - c)) - 1;
      out.push_back(static_cast<typename Out::value_type>(bits));
    }
  }
  void bookSlow(int64_t at, int length);
  static constexpr int64_t kCycles = 4096;  // a power of two: the slot is the cycle's low bits
  bool busy(int64_t cycle) const {
    if (static_cast<uint64_t>(cycle - base_) >= static_cast<uint64_t>(kCycles)) return false;
    const uint64_t slot = static_cast<uint64_t>(cycle) & (kCycles - 1);
    return (bits_[slot >> 6] >> (slot & 63)) & 1u;
  }
  std::array<uint64_t, kCycles / 64> bits_{};
  int64_t base_ = 0;         // the window is [base_, base_ + kCycles)
  int64_t bookedUntil_ = 0;  // end of the latest booked cycle
};

struct CommandBus {
  CycleWindow row, column;  // column unused when the standard has one bus
};

}  // namespace ascendsim::models
