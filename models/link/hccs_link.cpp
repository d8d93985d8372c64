#include "models/link/hccs_link.h"

#include <cstdio>

namespace ascendsim::models {
namespace {
// HCCS on the Ascend 910B runs 56 Gb/s lanes (x8: the quoted 56 GB/s per direction per link); the
// 910's ports were 240 Gb/s (8 x 30 Gb/s).
const DeviceLinkRegistration kRegistered{
    {"device-link",
     "hccs",
     "Huawei Cache Coherence System between Ascend NPUs: packets of packet_payload + "
     "packet_overhead bytes",
     {"lanes", "speed", "packet_payload", "packet_overhead", "latency", "transfer_rate"},
     {{"max_lane_rate", 56e9}}},
    [](const spec::DeviceLinkSpec& s, int a, int b, ResourceTable& t) {
      return std::make_unique<HccsLink>(s, a, b, t);
    }};
}  // namespace

HccsLink::HccsLink(const spec::DeviceLinkSpec& spec, int endA, int endB, ResourceTable& table)
    : Link("hccs." + spec.a + "-" + spec.b, endA, endB, table, "hccs." + spec.a + ">" + spec.b,
           "hccs." + spec.b + ">" + spec.a),
      spec_(spec) {}

uint64_t HccsLink::wireBytes(Traffic traffic, uint64_t rowBytes, const Framing&) const {
  const uint64_t packets = (rowBytes + spec_.packetPayload - 1) / spec_.packetPayload;
  if (traffic == Traffic::ReadRequest) return packets * spec_.packetOverhead;  // a header, no data
  return rowBytes + packets * spec_.packetOverhead;
}

std::string HccsLink::describe() const {
  char text[96];
  std::snprintf(text, sizeof text, "HCCS x%u, %.1f GB/s per direction", spec_.lanes,
                spec_.bandwidth() / 1e9);
  return text;
}

}  // namespace ascendsim::models
