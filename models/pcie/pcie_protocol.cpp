#include "models/pcie/pcie_protocol.h"

namespace ascendsim::models::pcie {
namespace {

// Ack latency limits and flow-control update intervals in symbol times, PCIe Base Specification
// rev 5.0 tables 3-7..3-9 and 2-46..2-48, for x1, x2, x4, x8, x16 at MPS 128..4096. Gen3 and later
// share one table; Gen6 (FLIT mode) has none, and reuses Gen5's as pcie-bench does.
constexpr int kWidths = 5, kSizes = 6;
using Table = uint32_t[kWidths][kSizes];
constexpr Table kAckGen1 = {{237, 416, 559, 1071, 2095, 4143},
                            {128, 217, 289, 545, 1057, 2081},
                            {73, 118, 154, 282, 538, 1050},
                            {67, 107, 86, 150, 278, 534},
                            {48, 72, 86, 150, 278, 534}};
constexpr Table kAckGen2 = {{288, 467, 610, 1122, 2146, 4194},
                            {179, 268, 340, 596, 1108, 2132},
                            {124, 169, 205, 333, 589, 1101},
                            {118, 158, 137, 201, 329, 585},
                            {99, 123, 137, 201, 329, 585}};
constexpr Table kAckGen3 = {{333, 512, 655, 1167, 2191, 4239},
                            {224, 313, 385, 641, 1153, 2177},
                            {169, 214, 250, 378, 634, 1146},
                            {163, 203, 182, 246, 374, 630},
                            {144, 168, 182, 246, 374, 630}};

const Table& table(uint32_t generation) {
  if (generation <= 1) return kAckGen1;
  if (generation == 2) return kAckGen2;
  return kAckGen3;
}

int widthIndex(uint32_t lanes) {
  switch (lanes) {
    case 1: return 0;
    case 2: return 1;
    case 4: return 2;
    case 8: return 3;
    default: return 4;
  }
}

int sizeIndex(uint64_t mps) {
  int i = 0;
  for (uint64_t s = 128; s < mps && i + 1 < kSizes; s *= 2) ++i;
  return i;
}

constexpr double kDllpBytes = 8;  // 2 B framing + 4 B DLLP + 2 B CRC
constexpr double kSkpBytes = 4, kSkpInterval = 1538;

}  // namespace

uint32_t memoryWriteOverhead(bool ecrc) {
  return 24 + (ecrc ? 4 : 0);
}
uint32_t readRequestBytes(bool ecrc) {
  return 24 + (ecrc ? 4 : 0);
}
uint32_t completionOverhead(bool ecrc) {
  return 20 + (ecrc ? 4 : 0);
}

double dataLinkOverhead(uint32_t generation, uint32_t lanes, uint64_t mps) {
  // The same table gives the ACK limit and the FC update interval (they coincide in the spec).
  const double interval = table(generation)[widthIndex(lanes)][sizeIndex(mps)];
  return kDllpBytes / interval + kDllpBytes / interval + kSkpBytes / kSkpInterval;
}

double tlpBandwidth(const spec::PcieLinkSpec& link, uint64_t mps) {
  return link.lineBandwidth() * (1.0 - dataLinkOverhead(link.generation, link.lanes, mps));
}

// TLP payloads are whole doublewords (PCIe Base Specification 2.2.2: Length counts DW, byte
// enables mark the bytes that count), so a 1-byte write still carries 4 bytes of data.
uint64_t payloadWireBytes(uint64_t bytes) {
  return ceilDiv(bytes, 4) * 4;
}

uint64_t writeWireBytes(uint64_t bytes, uint64_t mps, bool ecrc) {
  return payloadWireBytes(bytes) + ceilDiv(bytes, mps) * memoryWriteOverhead(ecrc);
}

uint64_t completionWireBytes(uint64_t bytes, uint64_t split, bool ecrc) {
  return payloadWireBytes(bytes) + ceilDiv(bytes, split) * completionOverhead(ecrc);
}

uint64_t requestWireBytes(uint64_t bytes, uint64_t mrrs, bool ecrc) {
  return ceilDiv(bytes, mrrs) * readRequestBytes(ecrc);
}

}  // namespace ascendsim::models::pcie
