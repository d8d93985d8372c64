#include "models/dram/address_decoder.h"

#include <stdexcept>

namespace ascendsim::models {
namespace {
int log2Exact(uint64_t v) {
  if (v == 0 || (v & (v - 1)) != 0) return -1;
  int s = 0;
  while ((uint64_t{1} << s) < v) ++s;
  return s;
}
}  // namespace

AddressDecoder::AddressDecoder(const spec::DramSpec& m)
    : burstBytes_(m.burstBytes()),
      channelsPerStack_(m.channels),
      pseudoChannels_(m.pseudoChannels) {
  std::string why;
  auto digits = spec::buildAddressMapping(m, why);
  if (!digits) throw std::invalid_argument("address mapping: " + why);
  burstShift_ = log2Exact(burstBytes_);
  // A field split into pieces: each piece's digit counts in units of the pieces below it.
  uint64_t weight[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  for (const spec::MappingDigit& d : *digits) {
    uint64_t& w = weight[static_cast<int>(d.field)];
    digits_.push_back({d.field, d.radix, log2Exact(d.radix), w});
    w *= d.radix;
  }
  rowPeriod_ = burstBytes_;
  for (const Digit& d : digits_) {
    if (d.field != spec::DramField::Row) rowPeriod_ *= d.radix;
  }
}

uint64_t AddressDecoder::burstsSharingCoordinates(uint64_t offset) const {
  if (burstShift_ < 0 || digits_.empty()) return 1;
  const Digit& low = digits_.front();
  if (low.field != spec::DramField::Column || low.shift < 0) return 1;
  const uint64_t n = offset >> burstShift_;
  return low.radix - (n & (low.radix - 1));
}

}  // namespace ascendsim::models
