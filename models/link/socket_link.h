#pragma once
// The link between two CPU sockets (Intel UPI, Kunpeng's Hydra): a device's DMA to the memory of
// the other NUMA node crosses it. Modelled by its sustained bandwidth per direction and its
// latency (a remote read pays about 100-120 ns more, per pcie-bench's NUMA measurements).

#include "models/link/link.h"

namespace ascendsim::models {

class SocketLink : public Link {
 public:
  SocketLink(int socketA, int socketB, int nodeA, int nodeB, const spec::SocketLinkSpec& spec,
             ResourceTable& table);
  const char* kind() const override { return "socket"; }
  Picoseconds latency() const override { return spec_.latency; }
  double bandwidth() const override { return spec_.bandwidth; }
  std::string describe() const override;

 protected:
  uint64_t wireBytes(Traffic traffic, uint64_t rowBytes, const Framing&) const override {
    return traffic == Traffic::ReadRequest ? 0 : rowBytes;
  }
  double wireRate(const Framing&) const override { return spec_.bandwidth; }

 private:
  spec::SocketLinkSpec spec_;
};

}  // namespace ascendsim::models
