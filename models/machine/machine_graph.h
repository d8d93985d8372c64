#pragma once
// The machine as a graph: nodes are CPU sockets (each with its root ports and its NUMA node of
// host DDR), PCIe switches and devices (each with its memory, DMA read tags and AI Cores); edges
// are links (PCIe, device links such as HCCS, the sockets' link). Built once from the spec; the
// Router finds paths in it and the transfer timing charges what lies on them.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/host/host_cpu.h"
#include "models/link/link.h"
#include "models/link/network_switch.h"
#include "models/memory/memory.h"
#include "models/resource/resource.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

struct GraphNode {
  enum class Kind { Socket, Switch, Device, Network };
  Kind kind;
  std::string name;  // "cpu0", "sw0", "npu3", "network" (a cluster's switch)
  int index;         // socket number, switch index or device index
  int parent = -1;   // the node its PCIe link goes up to (-1 for sockets and unplugged devices)
  int uplink = -1;   // index in links() of that link
  Picoseconds latency = 0;  // crossing the node: a switch's cut-through, a socket's root complex
  int port = -1;            // the index of the port its (first) uplink plugs into
  // Every uplink (indices in links()), `uplink` first; a switch wired to several root ports has
  // more than one.
  std::vector<int> uplinks;
};

class MachineGraph {
 public:
  explicit MachineGraph(const spec::SystemSpec& sys);
  MachineGraph(const MachineGraph&) = delete;
  MachineGraph& operator=(const MachineGraph&) = delete;

  const spec::SystemSpec& spec() const { return sys_; }
  const std::vector<GraphNode>& nodes() const { return nodes_; }
  Link& link(int index) { return *links_[static_cast<size_t>(index)]; }
  const std::vector<std::unique_ptr<Link>>& links() const { return links_; }
  int socketNode(uint32_t socket) const { return static_cast<int>(socket); }
  int deviceNode(int device) const { return deviceNodes_[static_cast<size_t>(device)]; }
  // The device link joining two devices, or nullptr.
  Link* deviceLink(int a, int b) const;
  // A device's NIC (its link to the cluster's switch), or nullptr outside a cluster.
  Link* nic(int device) const {
    return nics_.empty() ? nullptr
                         : links_[static_cast<size_t>(nics_[static_cast<size_t>(device)])].get();
  }
  // The cluster's switch (nullptr outside a cluster) and its graph node.
  const NetworkSwitch* networkSwitch() const { return networkSwitch_.get(); }
  int networkNode() const { return networkNode_; }
  // The socket link between two sockets.
  Link& socketLink(uint32_t a, uint32_t b) const;

  Memory& hostMemory(uint32_t socket) { return *hostMemories_[socket]; }
  Memory& deviceMemory(int device) { return *deviceMemories_[static_cast<size_t>(device)]; }
  Resource& readTags(int device) { return *readTags_[static_cast<size_t>(device)]; }
  Resource& aiCores(int device) { return *aiCores_[static_cast<size_t>(device)]; }
  // DMA engine `engine` of `device`, which all its channels' bytes pass through; nullptr when
  // `dma.engine_bandwidth` sets no limit (no resource, so traces list none).
  Resource* dmaEngine(int device, uint32_t engine) {
    const std::vector<Resource*>& e = dmaEngines_[static_cast<size_t>(device)];
    return e.empty() ? nullptr : e.at(engine);
  }
  // Socket `socket`'s host bridge in one direction (inbound: towards host memory), which all its
  // root ports' traffic passes; nullptr when `pcie.root_complex.bridge_bandwidth` and the
  // direction's own `bridge_inbound_bandwidth`/`bridge_outbound_bandwidth` set no limit.
  Resource* hostBridge(uint32_t socket, bool inbound) {
    if (hostBridges_.empty()) return nullptr;
    return inbound ? hostBridges_.at(socket).first : hostBridges_.at(socket).second;
  }
  // The root port the PCIe link `link` plugs into, in one direction (inbound: towards host
  // memory); nullptr when `pcie.root_complex.port_bandwidth` sets no limit or `link` plugs into
  // no root port.
  Resource* rootPortOf(const Link* link, bool inbound) const;
  // The socket whose host memory holds `device`'s host buffers when nothing more is known of
  // them: its own root port's socket with `host.memory_socket: local`, the main thread's with
  // `thread`, else `host.memory_socket`.
  uint32_t hostSocketOf(int device) const;
  // The socket of a host buffer that `device`'s DMA moves for host thread `thread`: `socket` when
  // the buffer's node is known (>= 0: an aclrtMallocHost buffer with `memory_socket: thread`),
  // else as `host.memory_socket` says (`thread`: the copying thread's socket).
  uint32_t hostSocketFor(int socket, int device, int thread) const;
  HostCpu& hostCpu() { return *cpu_; }
  ResourceTable& resources() { return resources_; }
  const ResourceTable& resources() const { return resources_; }

 private:
  int addNode(GraphNode::Kind kind, std::string name, int index, Picoseconds latency);
  void plug(int child, const std::string& port, const spec::PcieLinkSpec& link,
            const std::string& linkName, bool further = false);

  const spec::SystemSpec& sys_;
  ResourceTable resources_;
  std::vector<GraphNode> nodes_;
  std::vector<std::unique_ptr<Link>> links_;
  std::vector<int> deviceNodes_;
  std::vector<std::vector<int>> deviceLinkIndex_;  // [a][b] -> link index or -1
  std::vector<std::vector<int>> socketLinkIndex_;
  std::vector<std::unique_ptr<Memory>> hostMemories_, deviceMemories_;
  std::vector<Resource*> readTags_, aiCores_;
  std::vector<std::vector<Resource*>> dmaEngines_;
  // Per socket: in, out (empty: no limit either way; nullptr: none that way).
  std::vector<std::pair<Resource*, Resource*>> hostBridges_;
  // Per link plugged into a root port: that port's in and out (empty: no limit).
  std::map<const Link*, std::pair<Resource*, Resource*>> rootPorts_;
  std::unique_ptr<HostCpu> cpu_;
  std::unique_ptr<NetworkSwitch> networkSwitch_;
  int networkNode_ = -1;
  std::vector<int> nics_;  // per device: index in links_ of its NIC (empty: no cluster)
};

}  // namespace ascendsim::models
