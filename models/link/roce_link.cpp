#include "models/link/roce_link.h"

#include <algorithm>
#include <cstdio>

namespace ascendsim::models {
namespace {
// The 910B's NIC is a 200 Gb/s RoCE port (HCCL's planning figure for it, hicann/hcomm
// device_capacity.cc: 25 GB/s x 0.8); the limit lets 400 Gb/s and 800 Gb/s what-ifs through.
const NicRegistration kRegistered{
    {"nic",
     "roce",
     "a RoCE v2 NIC per NPU on the cluster's switch: frames of mtu + frame_overhead bytes at the "
     "slower of rate and the switch's port_rate",
     {"rate", "latency", "mtu", "frame_overhead"},
     {{"max_rate", 100e9}}},
    [](const spec::NicSpec& s, const std::string& device, double portRate, int a, int b,
       ResourceTable& t) { return std::make_unique<RoceLink>(s, device, portRate, a, b, t); }};
}  // namespace

RoceLink::RoceLink(const spec::NicSpec& spec, const std::string& device, double portRate,
                   int deviceNode, int switchNode, ResourceTable& table)
    : Link(device + ".nic", deviceNode, switchNode, table, device + ".nic.out", device + ".nic.in"),
      spec_(spec),
      rate_(std::min(spec.rate, portRate)) {}

uint64_t RoceLink::wireBytes(Traffic traffic, uint64_t rowBytes, const Framing&) const {
  const uint64_t frames = std::max<uint64_t>(1, (rowBytes + spec_.mtu - 1) / spec_.mtu);
  if (traffic == Traffic::ReadRequest) return frames * spec_.frameOverhead;
  return rowBytes + frames * spec_.frameOverhead;
}

std::string RoceLink::describe() const {
  char text[96];
  std::snprintf(text, sizeof text, "RoCE %.0f Gb/s, MTU %llu", rate_ * 8 / 1e9,
                static_cast<unsigned long long>(spec_.mtu));
  return text;
}

std::unique_ptr<Link> makeNic(const spec::NicSpec& spec, const std::string& device, double portRate,
                              int deviceNode, int switchNode, ResourceTable& table) {
  return kinds::Registry<NicFactory>::instance().at("NIC", spec.model)(
      spec, device, portRate, deviceNode, switchNode, table);
}

}  // namespace ascendsim::models
