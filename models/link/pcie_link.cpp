#include "models/link/pcie_link.h"

#include <cstdio>

#include "models/pcie/pcie_protocol.h"

namespace ascendsim::models {

PcieLink::PcieLink(const std::string& name, int downstream, int upstream,
                   const spec::PcieLinkSpec& spec, double efficiency, ResourceTable& table)
    : Link(name, downstream, upstream, table, name + ".up", name + ".down"),
      spec_(spec),
      efficiency_(efficiency) {}

uint64_t PcieLink::wireBytes(Traffic traffic, uint64_t rowBytes, const Framing& f) const {
  switch (traffic) {
    case Traffic::Write: return pcie::writeWireBytes(rowBytes, f.payload, f.ecrc);
    case Traffic::ReadRequest: return pcie::requestWireBytes(rowBytes, f.request, f.ecrc);
    case Traffic::Completion: return pcie::completionWireBytes(rowBytes, f.completionSplit, f.ecrc);
  }
  return rowBytes;
}

double PcieLink::wireRate(const Framing& f) const {
  return pcie::tlpBandwidth(spec_, f.payload) * efficiency_;
}

std::string PcieLink::describe() const {
  char text[96];
  std::snprintf(text, sizeof text, "Gen%u x%u, %.2f GB/s, MPS %llu", spec_.generation, spec_.lanes,
                spec_.lineBandwidth() / 1e9, static_cast<unsigned long long>(spec_.mps));
  return text;
}

}  // namespace ascendsim::models
