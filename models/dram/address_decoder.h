#pragma once
// Address -> DRAM coordinates, by the mapping's mixed-radix digits (spec/address_mapping.h).

#include <cstdint>
#include <vector>

#include "spec/address_mapping.h"

namespace ascendsim::models {

struct DramCoordinates {
  uint32_t channel = 0;  // independent channel: (stack x channels + channel) x pseudo-channels + pc
  uint32_t rank = 0, bankGroup = 0, bank = 0;
  uint64_t row = 0, column = 0;
};

class AddressDecoder {
 public:
  explicit AddressDecoder(const spec::DramSpec& memory);
  DramCoordinates decode(uint64_t offset) const;
  uint64_t burstBytes() const { return burstBytes_; }
  // How many bursts from the one at `offset` on (itself included) differ only in their lowest
  // column digit: they share channel, bank and row, so one decode serves them all.
  uint64_t burstsSharingCoordinates(uint64_t offset) const;
  // The bytes one step of the row spans (the row is the most significant digit): two offsets that
  // differ by k of them have the same coordinates but a row k apart.
  uint64_t rowPeriod() const { return rowPeriod_; }

 private:
  struct Digit {
    spec::DramField field;
    uint64_t radix;
    int shift;        // log2(radix) when a power of two, else -1
    uint64_t weight;  // what one step of this digit adds to its field's value (a field split
                      // into pieces: the product of its lower pieces' radixes)
  };
  std::vector<Digit> digits_;
  uint64_t burstBytes_, rowPeriod_;
  int burstShift_;
  uint32_t channelsPerStack_, pseudoChannels_;
};

// Defined here so that the per-burst caller can inline it.
inline DramCoordinates AddressDecoder::decode(uint64_t offset) const {
  uint64_t n = burstShift_ >= 0 ? offset >> burstShift_ : offset / burstBytes_;
  DramCoordinates c;
  uint32_t channel = 0, pc = 0, stack = 0;
  for (const Digit& d : digits_) {
    uint64_t v;
    if (d.field == spec::DramField::Row) {
      v = n;  // the most significant digit takes what is left
    } else if (d.shift >= 0) {
      v = n & (d.radix - 1);
      n >>= d.shift;
    } else {
      v = n % d.radix;
      n /= d.radix;
    }
    v *= d.weight;
    switch (d.field) {
      case spec::DramField::Column: c.column += v; break;
      case spec::DramField::Channel: channel += static_cast<uint32_t>(v); break;
      case spec::DramField::PseudoChannel: pc += static_cast<uint32_t>(v); break;
      case spec::DramField::Stack: stack += static_cast<uint32_t>(v); break;
      case spec::DramField::Rank: c.rank += static_cast<uint32_t>(v); break;
      case spec::DramField::BankGroup: c.bankGroup += static_cast<uint32_t>(v); break;
      case spec::DramField::Bank: c.bank += static_cast<uint32_t>(v); break;
      case spec::DramField::Row: c.row = v; break;
    }
  }
  c.channel = (stack * channelsPerStack_ + channel) * pseudoChannels_ + pc;
  return c;
}

}  // namespace ascendsim::models
