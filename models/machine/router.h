#pragma once
// The one place that knows topology rules: which way a transfer goes through the machine graph,
// how two devices are related (aclrtGetDevicesTopo's classes) and whether they may be peers.
// A device-to-device transfer takes the device link when the two share one, else the PCIe switch
// they share, else the host bridge (root complex) of their socket; devices on different sockets
// are never peers.

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "models/link/link.h"
#include "models/machine/machine_graph.h"

namespace ascendsim::models {

// How two devices are connected, as CANN's ACL_RT_DEVS_TOPOLOGY_* bits name it.
enum class Topology : uint64_t {
  Same = 0,
  Hccs = 0x01,    // an HCCS link between them
  Pix = 0x02,     // the same PCIe switch
  Phb = 0x08,     // the same PCIe host bridge (root complex)
  Sys = 0x10,     // across CPU sockets
  Sio = 0x20,     // two dies of one chip
  HccsSw = 0x40,  // through an HCCS switch
};
// "HCCS", "PIX", "PHB", "SYS", "SIO", "HCCS_SW", "SELF". Two devices joined by a device link are
// connected as that link's kind says (Link::topologyBit).
const char* topologyName(Topology t);

// One link of a route, crossed in `direction`; `latency` is the link's plus that of the node at
// its upstream end (a switch's cut-through, the root complex), paid in either direction.
struct Crossing {
  Link* link;
  int direction;
  Picoseconds latency;
};

struct Route {
  std::vector<Crossing> crossings;  // in order, from the source to the destination
  Framing framing;                  // how the PCIe links on it split traffic into TLPs
};

// One end of a transfer: host memory (on socket `socket`'s NUMA node) or a device's memory.
struct Endpoint {
  int device = -1;  // -1: host memory
  int socket = -1;  // host memory's socket; -1: where the device's host buffers live by default
                    // (MachineGraph::hostSocketOf)
  static Endpoint host(int socket = -1) { return {-1, socket}; }
  static Endpoint of(int d) { return {d, -1}; }
  bool isHost() const { return device < 0; }
};

class Router {
 public:
  explicit Router(MachineGraph& graph);

  Topology topology(int a, int b) const;
  // Whether `a` may copy to and from `b` directly; when not, `why` says what is missing. Devices
  // of different servers of a cluster never are (they reach each other over the network).
  bool peersAllowed(int a, int b, std::string* why = nullptr) const;
  // Whether `a` and `b` are NPUs of different servers of a cluster, whose transfers (HCCL's RDMA
  // writes) go through their NICs and the cluster's switch.
  bool overNetwork(int a, int b) const;

  // The way from `from` to `to`, with framing for a transfer run by `engine`'s DMA.
  const Route& route(Endpoint from, Endpoint to, int engine);
  // The round trip of a read `device` makes to host memory (on `socket`, -1: its default one):
  // request and completion latency on every crossing both ways, plus the memory's own.
  Picoseconds hostReadRoundTrip(int device, int socket = -1);
  const MachineGraph& graph() const { return graph_; }
  // The CPU socket whose root complex `device` hangs off (through its switches).
  uint32_t rootSocket(int device) const;

 private:
  std::vector<int> ancestors(int node) const;  // node's parent, grandparent, ... up to its socket
  // From node up to (not past) stopAt; a switch with several uplinks is left by one into socket
  // `socket` when it has one (-1: any), picked by the downstream port the way came in by.
  std::vector<Crossing> upward(int node, int stopAt, int socket = -1) const;
  Crossing crossing(int linkIndex, int fromNode) const;
  Framing framing(const std::vector<Crossing>& crossings, int engine) const;
  MachineGraph& graph_;
  // (from, its socket, to, its socket, engine), filled on first use
  std::map<std::tuple<int, int, int, int, int>, Route> cache_;
};

}  // namespace ascendsim::models
