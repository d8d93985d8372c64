#include "models/machine/machine_graph.h"

#include <algorithm>
#include <stdexcept>

#include "models/link/pcie_link.h"
#include "models/link/roce_link.h"
#include "models/link/socket_link.h"
#include "models/task/memory_traffic.h"

namespace ascendsim::models {
int MachineGraph::addNode(GraphNode::Kind kind, std::string name, int index, Picoseconds latency) {
  nodes_.push_back({kind, std::move(name), index, -1, -1, latency, -1, {}});
  return static_cast<int>(nodes_.size()) - 1;
}

MachineGraph::MachineGraph(const spec::SystemSpec& sys) : sys_(sys) {
  const uint32_t sockets = sys.rootComplex.sockets();
  // Nodes 0..sockets-1 are the sockets; their root complexes cost `root_complex.latency` to cross.
  for (uint32_t s = 0; s < sockets; ++s) {
    addNode(GraphNode::Kind::Socket, "cpu" + std::to_string(s), static_cast<int>(s),
            sys.rootComplex.latency);
    hostMemories_.push_back(
        makeMemory(sockets == 1 ? "host.memory" : "host.memory" + std::to_string(s),
                   sys.host.memory, 1.0 / sockets, MemoryTrafficObserver::kHostMemory, resources_));
    const double in = sys.rootComplex.bridgeRate(true), out = sys.rootComplex.bridgeRate(false);
    if (in > 0 || out > 0) {
      const std::string cpu = "cpu" + std::to_string(s);
      hostBridges_.push_back({in > 0 ? &resources_.add(cpu + ".bridge.in") : nullptr,
                              out > 0 ? &resources_.add(cpu + ".bridge.out") : nullptr});
    }
  }
  cpu_ = std::make_unique<HostCpu>(sys.host, resources_);
  socketLinkIndex_.assign(sockets, std::vector<int>(sockets, -1));
  for (uint32_t a = 0; a < sockets; ++a) {
    for (uint32_t b = a + 1; b < sockets; ++b) {
      links_.push_back(std::make_unique<SocketLink>(a, b, socketNode(a), socketNode(b),
                                                    sys.host.socketLink, resources_));
      socketLinkIndex_[a][b] = socketLinkIndex_[b][a] = static_cast<int>(links_.size()) - 1;
    }
  }
  for (size_t i = 0; i < sys.switches.size(); ++i) {
    addNode(GraphNode::Kind::Switch, sys.switches[i].name, static_cast<int>(i),
            sys.switches[i].latency);
  }
  for (size_t i = 0; i < sys.switches.size(); ++i) {
    const int node = socketNode(0) + static_cast<int>(sockets + i);
    plug(node, sys.switches[i].upstream, sys.switches[i].link, sys.switches[i].name + ".uplink");
    for (size_t u = 0; u < sys.switches[i].moreUpstreams.size(); ++u) {
      plug(node, sys.switches[i].moreUpstreams[u], sys.switches[i].link,
           sys.switches[i].name + ".uplink" + std::to_string(u + 1), true);
    }
  }
  for (size_t d = 0; d < sys.devices.size(); ++d) {
    const spec::DeviceSpec& dev = sys.devices[d];
    deviceNodes_.push_back(addNode(GraphNode::Kind::Device, dev.name, static_cast<int>(d), 0));
    deviceMemories_.push_back(
        makeMemory(dev.name + ".memory", dev.memory, 1.0, static_cast<int>(d), resources_));
    readTags_.push_back(&resources_.add(dev.name + ".read-tags"));
    aiCores_.push_back(&resources_.add(dev.name + ".aicore"));
    dmaEngines_.emplace_back();
    for (uint32_t e = 0; dev.dma.engineBandwidth > 0 && e < dev.dma.engines; ++e)
      dmaEngines_.back().push_back(&resources_.add(dev.name + ".dma" + std::to_string(e)));
    if (!dev.port.empty()) plug(deviceNodes_.back(), dev.port, dev.link, dev.name + ".link");
  }
  if (sys.cluster.active()) {
    // Every NPU's NIC on one port of the cluster's switch.
    networkSwitch_ = makeNetworkSwitch(sys.cluster.networkSwitch);
    networkNode_ = addNode(GraphNode::Kind::Network, "network", 0, networkSwitch_->latency());
    for (size_t d = 0; d < sys.devices.size(); ++d) {
      links_.push_back(makeNic(sys.cluster.nic, sys.devices[d].name, networkSwitch_->portRate(),
                               deviceNodes_[d], networkNode_, resources_));
      nics_.push_back(static_cast<int>(links_.size()) - 1);
    }
  }
  deviceLinkIndex_.assign(sys.devices.size(), std::vector<int>(sys.devices.size(), -1));
  for (const spec::DeviceLinkSpec& l : sys.deviceLinks) {
    const int a = sys.findDevice(l.a), b = sys.findDevice(l.b);
    if (a < 0 || b < 0)
      throw std::logic_error("device link " + l.model + " " + l.a + "-" + l.b +
                             " was not validated");
    links_.push_back(makeDeviceLink(l, deviceNode(a), deviceNode(b), resources_));
    deviceLinkIndex_[static_cast<size_t>(a)][static_cast<size_t>(b)] =
        static_cast<int>(links_.size()) - 1;
    deviceLinkIndex_[static_cast<size_t>(b)][static_cast<size_t>(a)] =
        static_cast<int>(links_.size()) - 1;
  }
}

// Plugs `child` into the port `port` ("rc.2" or "sw0.1") with a PCIe link.
void MachineGraph::plug(int child, const std::string& port, const spec::PcieLinkSpec& link,
                        const std::string& linkName, bool further) {
  const auto ref = spec::parsePortRef(port);
  if (!ref) return;
  int parent = -1;
  double efficiency = 1.0;
  std::pair<Resource*, Resource*> rootPort{nullptr, nullptr};
  if (ref->owner == "rc") {
    parent = socketNode(sys_.rootComplex.socketOfPort(ref->index));
    efficiency = sys_.rootComplex.efficiency;  // the host bridge behind a root port
    if (sys_.rootComplex.portBandwidth > 0) {
      const std::string name = "rc" + std::to_string(ref->index) + ".port";
      rootPort = {&resources_.add(name + ".in"), &resources_.add(name + ".out")};
    }
  } else {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].kind == GraphNode::Kind::Switch && nodes_[i].name == ref->owner)
        parent = static_cast<int>(i);
    }
  }
  if (parent < 0) return;
  links_.push_back(
      std::make_unique<PcieLink>(linkName, child, parent, link, efficiency, resources_));
  if (rootPort.first) rootPorts_[links_.back().get()] = rootPort;
  GraphNode& node = nodes_[static_cast<size_t>(child)];
  node.uplinks.push_back(static_cast<int>(links_.size()) - 1);
  if (further) return;
  node.parent = parent;
  node.uplink = static_cast<int>(links_.size()) - 1;
  node.port = static_cast<int>(ref->index);
}

Resource* MachineGraph::rootPortOf(const Link* link, bool inbound) const {
  const auto it = rootPorts_.find(link);
  if (it == rootPorts_.end()) return nullptr;
  return inbound ? it->second.first : it->second.second;
}

uint32_t MachineGraph::hostSocketFor(int socket, int device, int thread) const {
  if (socket >= 0) return static_cast<uint32_t>(socket);
  if (sys_.host.memoryPlacement == spec::HostPlacement::Thread)
    return sys_.host.socketOfThread(static_cast<uint32_t>(std::max(thread, 0)));
  return hostSocketOf(device);
}

uint32_t MachineGraph::hostSocketOf(int device) const {
  if (sys_.host.memoryPlacement == spec::HostPlacement::Thread) return sys_.host.socketOfThread(0);
  if (sys_.host.memoryPlacement != spec::HostPlacement::Local || device < 0)
    return sys_.host.memorySocket;
  int n = deviceNode(device);
  while (n >= 0 && nodes_[static_cast<size_t>(n)].parent >= 0)
    n = nodes_[static_cast<size_t>(n)].parent;
  const GraphNode& top = nodes_[static_cast<size_t>(n)];
  return top.kind == GraphNode::Kind::Socket ? static_cast<uint32_t>(top.index)
                                             : sys_.host.memorySocket;
}

Link* MachineGraph::deviceLink(int a, int b) const {
  const int i = deviceLinkIndex_[static_cast<size_t>(a)][static_cast<size_t>(b)];
  return i < 0 ? nullptr : links_[static_cast<size_t>(i)].get();
}

Link& MachineGraph::socketLink(uint32_t a, uint32_t b) const {
  return *links_[static_cast<size_t>(socketLinkIndex_[a][b])];
}

}  // namespace ascendsim::models
