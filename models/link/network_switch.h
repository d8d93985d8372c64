#pragma once
// The switch that joins a cluster's NICs (`cluster.switch.model`, a registered "network-switch"
// kind): a node of the machine graph that every transfer between servers crosses, with the time a
// frame takes through it and the rate of its ports (the NICs' links run at the slower of their
// own rate and the port's).

#include <functional>
#include <memory>
#include <string>

#include "spec/kind_registry.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

class NetworkSwitch {
 public:
  virtual ~NetworkSwitch() = default;
  virtual spec::Picoseconds latency() const = 0;  // port to port
  virtual double portRate() const = 0;            // bytes/s per port per direction
  virtual std::string describe() const = 0;       // "Ethernet switch, 50.0 GB/s per port, 600 ns"
};

using NetworkSwitchFactory =
    std::function<std::unique_ptr<NetworkSwitch>(const spec::NetworkSwitchSpec&)>;
using NetworkSwitchRegistration = kinds::Registration<NetworkSwitchFactory>;
std::unique_ptr<NetworkSwitch> makeNetworkSwitch(const spec::NetworkSwitchSpec& spec);

}  // namespace ascendsim::models
