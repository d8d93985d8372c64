#pragma once
// What a memory sustains for long sequential reads and writes, as its timing model says (refresh,
// row switches and bank timing included). Measured on one channel for four refresh intervals and
// scaled to all channels, which sequential traffic under an interleaving mapping keeps equally
// busy.

#include <string>

#include "spec/system_spec.h"

namespace ascendsim::models {

struct SustainedRates {
  double read = 0;   // bytes/s
  double write = 0;  // bytes/s
  // Bytes/s copied from one place of the memory to another: reads and writes alternate in batches
  // of one request queue's worth of bursts, as a controller drains its write buffer, so each
  // batch pays the bus turnarounds and the row switches between source and destination.
  double copy = 0;
};

SustainedRates sustainedSequentialRates(const spec::DramSpec& memory);

// What the rates are cached under: two memories share rates only if their keys are equal.
std::string sustainedRatesKey(const spec::DramSpec& memory);

}  // namespace ascendsim::models
