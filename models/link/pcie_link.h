#pragma once
// A PCIe link: TLP framing, DLLP (ACK, flow control) and SKP overhead, encoding, per direction;
// the arithmetic of the pcie-bench model (Neugebauer et al., SIGCOMM 2018). End A is the
// downstream side (device or switch), B the upstream port it plugs into.

#include "models/link/link.h"

namespace ascendsim::models {

class PcieLink : public Link {
 public:
  // `efficiency` scales the TLP rate: the share a root port's host bridge sustains (1 elsewhere).
  PcieLink(const std::string& name, int downstream, int upstream, const spec::PcieLinkSpec& spec,
           double efficiency, ResourceTable& table);
  const char* kind() const override { return "pcie"; }
  Picoseconds latency() const override { return spec_.latency; }
  double bandwidth() const override { return spec_.lineBandwidth(); }
  std::string describe() const override;
  uint64_t payloadLimit() const override { return spec_.mps; }
  const spec::PcieLinkSpec& spec() const { return spec_; }

 protected:
  uint64_t wireBytes(Traffic traffic, uint64_t rowBytes, const Framing& framing) const override;
  double wireRate(const Framing& framing) const override;

 private:
  spec::PcieLinkSpec spec_;
  double efficiency_;
};

}  // namespace ascendsim::models
