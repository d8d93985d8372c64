#include "models/memory/sustained_memory.h"

#include <cmath>

namespace ascendsim::models {
namespace {
const MemoryRegistration kRegistered{{"memory-timing",
                                      "sustained",
                                      "bytes at the rate the DRAM model sustains for long "
                                      "sequential reads, writes and copies (fast)",
                                      {},
                                      {}},
                                     [](const std::string& name, const spec::DramSpec& spec,
                                        double share, int observerIndex, ResourceTable& table) {
                                       return std::make_unique<SustainedMemory>(
                                           name, spec, share, observerIndex, table);
                                     }};

// Idle read latency: ACT, column read and one burst.
Picoseconds idleLatency(const spec::DramSpec& m) {
  const int64_t perClock = static_cast<int64_t>(m.dataRate / m.clock + 0.5);
  return (m.timings.tRCDRD + m.timings.tCL + m.burstLength / perClock) * m.tCK();
}
}  // namespace

SustainedMemory::SustainedMemory(const std::string& name, const spec::DramSpec& spec, double share,
                                 int observerIndex, ResourceTable& table)
    : Memory(name, observerIndex, table),
      spec_(spec),
      share_(share),
      rates_(sustainedSequentialRates(spec)),
      latency_(idleLatency(spec)),
      burst_(spec.burstBytes()) {
  rates_.read *= share;
  rates_.write *= share;
  rates_.copy *= share;
}

Stage SustainedMemory::access(const Shape& shape, bool reads, bool writes, Picoseconds latency) {
  // A row narrower than a burst still occupies the bus for whole bursts.
  const uint64_t charged = shape.rows == 1
                               ? shape.rowBytes
                               : shape.rows * ((shape.rowBytes + burst_ - 1) / burst_ * burst_);
  double seconds = 0;
  if (reads && writes) {
    seconds = static_cast<double>(charged) / rates_.copy;  // a copy inside this memory
  } else {
    seconds = static_cast<double>(charged) / (reads ? rates_.read : rates_.write);
  }
  Stage st{&port(), static_cast<Picoseconds>(std::ceil(seconds * 1e12)), latency, shape.bytes()};
  // Other streams' requests interleave with this piece's at the controller: book it in 4 KiB parts.
  st.parts =
      static_cast<uint32_t>(std::min<uint64_t>(64, std::max<uint64_t>(1, shape.bytes() / 4096)));
  st.memory = observerIndex();
  st.reads = reads;
  st.writes = writes;
  return st;
}

}  // namespace ascendsim::models
