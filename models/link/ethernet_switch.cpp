// An Ethernet switch of a RoCE fabric: cut-through forwarding at a fixed latency, every port at
// the same rate; no loss and no congestion of its own (PFC keeps RoCE lossless, and each NIC's
// link is charged for the frames it carries).

#include <cstdio>

#include "models/link/network_switch.h"

namespace ascendsim::models {
namespace {

class EthernetSwitch : public NetworkSwitch {
 public:
  explicit EthernetSwitch(const spec::NetworkSwitchSpec& spec) : spec_(spec) {}
  spec::Picoseconds latency() const override { return spec_.latency; }
  double portRate() const override { return spec_.portRate; }
  std::string describe() const override {
    char text[96];
    std::snprintf(text, sizeof text, "Ethernet switch, %.1f GB/s per port, %.0f ns",
                  spec_.portRate / 1e9, static_cast<double>(spec_.latency) / 1000);
    return text;
  }

 private:
  spec::NetworkSwitchSpec spec_;
};

const NetworkSwitchRegistration kRegistered{
    {"network-switch",
     "ethernet",
     "an Ethernet switch joining a cluster's RoCE NICs: cut-through at `latency`, every port at "
     "`port_rate`",
     {"port_rate", "latency"},
     {}},
    [](const spec::NetworkSwitchSpec& s) { return std::make_unique<EthernetSwitch>(s); }};

}  // namespace

std::unique_ptr<NetworkSwitch> makeNetworkSwitch(const spec::NetworkSwitchSpec& spec) {
  return kinds::Registry<NetworkSwitchFactory>::instance().at("network switch", spec.model)(spec);
}

}  // namespace ascendsim::models
