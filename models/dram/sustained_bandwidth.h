#pragma once
// What a memory sustains for long sequential reads and writes, as its timing model says (refresh,
// row switches and bank timing included). Measured on one channel for four refresh intervals and
// scaled to all channels, which sequential traffic under an interleaving mapping keeps equally busy.

#include "spec/system_spec.h"

namespace ascendsim::models {

struct SustainedRates {
  double read = 0;   // bytes/s
  double write = 0;  // bytes/s
  double copy() const { return 1.0 / (1.0 / read + 1.0 / write); }  // read and write the same memory
};

SustainedRates sustainedSequentialRates(const spec::DramSpec& memory);

}  // namespace ascendsim::models
