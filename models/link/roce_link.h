#pragma once
// A RoCE v2 NIC beside an NPU, cabled to a port of the cluster's switch: RDMA writes leave the
// NPU's memory as frames of at most `mtu` bytes of payload, each with `frame_overhead` bytes of
// headers, trailers and inter-frame gap, at the slower of the NIC's rate and the switch port's.
// The default 82 bytes are RoCE v2 over IPv4 on Ethernet: preamble and start delimiter 8,
// Ethernet header 14, IPv4 20, UDP 8, InfiniBand base transport header 12, ICRC 4, FCS 4,
// inter-frame gap 12 (InfiniBand Architecture Specification, Annex A17 RoCEv2; IEEE 802.3).

#include "models/link/link.h"

namespace ascendsim::models {

class RoceLink : public Link {
 public:
  // End A is the device's node, end B the switch's; `portRate` is the switch port's.
  RoceLink(const spec::NicSpec& spec, const std::string& device, double portRate, int deviceNode,
           int switchNode, ResourceTable& table);
  const char* kind() const override { return "roce"; }
  Picoseconds latency() const override { return spec_.latency; }
  double bandwidth() const override { return rate_; }
  std::string describe() const override;

 protected:
  uint64_t wireBytes(Traffic traffic, uint64_t rowBytes, const Framing& framing) const override;
  double wireRate(const Framing&) const override { return rate_; }

 private:
  spec::NicSpec spec_;
  double rate_;
};

// NIC kinds by name (`cluster.nic.model`), each registered from its own file.
using NicFactory = std::function<std::unique_ptr<Link>(
    const spec::NicSpec&, const std::string& device, double portRate, int deviceNode,
    int switchNode, ResourceTable& table)>;
using NicRegistration = kinds::Registration<NicFactory>;
std::unique_ptr<Link> makeNic(const spec::NicSpec& spec, const std::string& device, double portRate,
                              int deviceNode, int switchNode, ResourceTable& table);

}  // namespace ascendsim::models
