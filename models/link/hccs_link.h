#pragma once
// HCCS (Huawei Cache Coherence System) between two Ascend NPUs: `lanes` serial lanes per
// direction, data in packets of at most `packet_payload` bytes, each with `packet_overhead` bytes
// of header, CRC and framing. Huawei publishes the link rates (910: 30 GB/s per port, 910B: 56 GB/s
// per direction per link); the packet format is not public, so its sizes are settings ("assumed"
// in the presets).

#include "models/link/link.h"

namespace ascendsim::models {

class HccsLink : public Link {
 public:
  HccsLink(const spec::DeviceLinkSpec& spec, int endA, int endB, ResourceTable& table);
  const char* kind() const override { return "hccs"; }
  Picoseconds latency() const override { return spec_.latency; }
  double bandwidth() const override { return spec_.bandwidth(); }
  std::string describe() const override;
  uint64_t topologyBit() const override { return 0x01; }  // ACL_RT_DEVS_TOPOLOGY_HCCS
  double transferRate() const override { return spec_.transferRate; }

 protected:
  uint64_t wireBytes(Traffic traffic, uint64_t rowBytes, const Framing& framing) const override;
  double wireRate(const Framing&) const override { return spec_.bandwidth(); }

 private:
  spec::DeviceLinkSpec spec_;
};

}  // namespace ascendsim::models
