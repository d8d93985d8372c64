#pragma once
// PCIe protocol arithmetic: what a link carries per byte of payload. Figures from the PCIe Base
// Specification (ACK and flow-control update intervals, SKP ordered sets, TLP header sizes), as
// the pcie-bench model (Neugebauer et al., SIGCOMM 2018) uses them.

#include <cstdint>

#include "spec/system_spec.h"

namespace ascendsim::models::pcie {

// Bytes on the wire per TLP besides its payload (64-bit addresses; framing, sequence number and
// LCRC included): memory write 24, memory read request 24, completion with data 20; ECRC +4.
uint32_t memoryWriteOverhead(bool ecrc);
uint32_t readRequestBytes(bool ecrc);
uint32_t completionOverhead(bool ecrc);

// Share of the link's encoded bit rate that ACK and flow-control DLLPs and SKP ordered sets take,
// for the link's generation and width at payload size `mps` (9.8 % for Gen4 x16 at MPS 256).
double dataLinkOverhead(uint32_t generation, uint32_t lanes, uint64_t mps);

// Bytes per second left for TLPs in one direction of `link` at payload size `mps`.
double tlpBandwidth(const spec::PcieLinkSpec& link, uint64_t mps);

// Data bytes on the wire for `bytes` of payload starting on a doubleword boundary.
uint64_t payloadWireBytes(uint64_t bytes);

// Wire bytes of moving `bytes` of payload: as posted writes split at `mps`; as completions split
// at `mps` (or at `rcb` when the completer splits at the read completion boundary); and the read
// requests for it split at `mrrs`.
uint64_t writeWireBytes(uint64_t bytes, uint64_t mps, bool ecrc);
uint64_t completionWireBytes(uint64_t bytes, uint64_t split, bool ecrc);
uint64_t requestWireBytes(uint64_t bytes, uint64_t mrrs, bool ecrc);

inline uint64_t ceilDiv(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

}  // namespace ascendsim::models::pcie
