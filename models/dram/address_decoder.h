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

 private:
  struct Digit {
    spec::DramField field;
    uint64_t radix;
    int shift;  // log2(radix) when a power of two, else -1
    uint64_t weight;  // for column digits: value of one step in column units
  };
  std::vector<Digit> digits_;
  uint64_t burstBytes_;
  int burstShift_;
  uint32_t channelsPerStack_, pseudoChannels_;
};

}  // namespace ascendsim::models
