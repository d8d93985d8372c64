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

// Bytes/s, reads and writes together, the memory sustains for several streams reading and writing
// it at once with `readShare` of the bytes read (devices' DMA into and out of host memory): each
// request's bytes are sequential up to the channel interleave, but the requests of different
// streams meet at a channel in no order, so the controller opens a row for each and turns its bus
// around between reads and writes as its write queue fills (tWTR, tRTW, tWR of the memory's
// timing). Measured with the memory's own timing model on random interleave-sized requests, reads
// and writes mixed evenly in `readShare`, over four refresh intervals.
double sustainedMixedRate(const spec::DramSpec& memory, double readShare);

// What the rates are cached under: two memories share rates only if their keys are equal.
std::string sustainedRatesKey(const spec::DramSpec& memory);

}  // namespace ascendsim::models
