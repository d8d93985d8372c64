#include "models/machine/router.h"

#include <algorithm>

namespace ascendsim::models {

const char* topologyName(Topology t) {
  switch (t) {
    case Topology::Same: return "SELF";
    case Topology::Hccs: return "HCCS";
    case Topology::Pix: return "PIX";
    case Topology::Phb: return "PHB";
    case Topology::Sys: return "SYS";
    case Topology::Sio: return "SIO";
    case Topology::HccsSw: return "HCCS_SW";
  }
  return "?";
}

Router::Router(MachineGraph& graph) : graph_(graph) {}

std::vector<int> Router::ancestors(int node) const {
  std::vector<int> out;
  for (int p = graph_.nodes()[static_cast<size_t>(node)].parent; p >= 0;
       p = graph_.nodes()[static_cast<size_t>(p)].parent) {
    out.push_back(p);
  }
  return out;
}

Crossing Router::crossing(int linkIndex, int fromNode) const {
  Link& l = graph_.link(linkIndex);
  const int upper = l.end(1);  // PCIe links: end B is the upstream node
  return {&l, l.directionFrom(fromNode),
          l.latency() + graph_.nodes()[static_cast<size_t>(upper)].latency};
}

std::vector<Crossing> Router::upward(int node, int stopAt, int socket) const {
  std::vector<Crossing> out;
  int from = -1;  // the node the way came from
  for (int n = node; n != stopAt && n >= 0;) {
    const GraphNode& g = graph_.nodes()[static_cast<size_t>(n)];
    if (g.uplink < 0) break;
    int link = g.uplink;
    if (g.uplinks.size() > 1) {
      // Several uplinks (each into a root port): those into the wanted socket, else all; among
      // them the one the incoming downstream port picks.
      std::vector<int> into;
      for (int u : g.uplinks) {
        if (socket < 0 || graph_.link(u).end(1) == graph_.socketNode(static_cast<uint32_t>(socket)))
          into.push_back(u);
      }
      if (into.empty()) into = g.uplinks;
      const int port = from >= 0 ? std::max(graph_.nodes()[static_cast<size_t>(from)].port, 0) : 0;
      link = into[static_cast<size_t>(port) % into.size()];
    }
    out.push_back(crossing(link, n));
    from = n;
    n = graph_.link(link).end(1);  // PCIe links: end B is the upstream node
  }
  return out;
}

bool Router::overNetwork(int a, int b) const {
  const auto& devs = graph_.spec().devices;
  return graph_.networkSwitch() && a != b &&
         devs[static_cast<size_t>(a)].server != devs[static_cast<size_t>(b)].server;
}

Topology Router::topology(int a, int b) const {
  if (a == b) return Topology::Same;
  if (overNetwork(a, b)) return Topology::Sys;  // another machine altogether
  if (const Link* link = graph_.deviceLink(a, b)) return static_cast<Topology>(link->topologyBit());
  const std::vector<int> up = ancestors(graph_.deviceNode(a)),
                         other = ancestors(graph_.deviceNode(b));
  for (int n : up) {
    if (std::find(other.begin(), other.end(), n) == other.end()) continue;
    return graph_.nodes()[static_cast<size_t>(n)].kind == GraphNode::Kind::Switch ? Topology::Pix
                                                                                  : Topology::Phb;
  }
  return Topology::Sys;
}

bool Router::peersAllowed(int a, int b, std::string* why) const {
  const auto& devs = graph_.spec().devices;
  const std::string pair =
      devs[static_cast<size_t>(a)].name + " and " + devs[static_cast<size_t>(b)].name;
  if (overNetwork(a, b)) {
    if (why)
      *why = pair +
             " are in different servers of the cluster; only HCCL reaches across the "
             "network (RDMA through their NICs)";
    return false;
  }
  switch (topology(a, b)) {
    case Topology::Same:
      if (why) *why = "a device is not its own peer";
      return false;
    case Topology::Hccs:
    case Topology::Sio:
    case Topology::HccsSw:
    case Topology::Pix: return true;
    case Topology::Phb:
      if (graph_.spec().rootComplex.peerToPeer) return true;
      if (why)
        *why = pair +
               " share no device link and no PCIe switch, and this root complex does not forward "
               "peer-to-peer traffic (pcie.root_complex.peer_to_peer: false)";
      return false;
    case Topology::Sys:
      if (why)
        *why =
            pair +
            " hang off different CPU sockets; peer-to-peer traffic does not cross the socket link";
      return false;
  }
  return false;
}

Framing Router::framing(const std::vector<Crossing>& crossings, int engine) const {
  const spec::SystemSpec& sys = graph_.spec();
  const spec::PcieLinkSpec& own = sys.devices[static_cast<size_t>(engine)].link;
  Framing f;
  f.payload = own.mps;
  for (const Crossing& c : crossings) {
    if (c.link->payloadLimit() > 0) f.payload = std::min(f.payload, c.link->payloadLimit());
  }
  f.request = own.mrrs;
  f.completionSplit = sys.rootComplex.completionsAtRcb ? std::min(own.rcb, f.payload) : f.payload;
  f.ecrc = own.ecrc;
  return f;
}

const Route& Router::route(Endpoint from, Endpoint to, int engine) {
  const auto key = std::make_tuple(from.device, from.socket, to.device, to.socket, engine);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  Route r;
  // A device's way up to the socket whose memory the host buffer lives on (crossing the socket
  // link when its root port is on another socket).
  auto toHost = [&](int device, int bufferSocket) {
    const uint32_t memorySocket =
        bufferSocket >= 0 ? static_cast<uint32_t>(bufferSocket) : graph_.hostSocketOf(device);
    std::vector<Crossing> up =
        upward(graph_.deviceNode(device), -1, graph_.socketNode(memorySocket));
    // (the socket the way arrives at: its last PCIe link's upstream end)
    const int socket = up.empty() ? graph_.socketNode(memorySocket) : up.back().link->end(1);
    if (socket != graph_.socketNode(memorySocket)) {
      Link& l = graph_.socketLink(static_cast<uint32_t>(socket), memorySocket);
      up.push_back({&l, l.directionFrom(socket), l.latency()});
    }
    return up;
  };
  auto reversed = [](std::vector<Crossing> c) {
    std::reverse(c.begin(), c.end());
    for (Crossing& x : c) x.direction = 1 - x.direction;
    return c;
  };
  if (!from.isHost() && to.isHost()) {
    r.crossings = toHost(from.device, to.socket);
  } else if (from.isHost() && !to.isHost()) {
    r.crossings = reversed(toHost(to.device, from.socket));
  } else if (!from.isHost() && !to.isHost() && from.device != to.device) {
    if (overNetwork(from.device, to.device)) {
      // Out through the sender's NIC to the switch (and across it), in through the receiver's.
      Link& out = *graph_.nic(from.device);
      Link& in = *graph_.nic(to.device);
      r.crossings.push_back({&out, out.directionFrom(graph_.deviceNode(from.device)),
                             out.latency() + graph_.networkSwitch()->latency()});
      r.crossings.push_back({&in, in.directionFrom(graph_.networkNode()), in.latency()});
    } else if (Link* l = graph_.deviceLink(from.device, to.device)) {
      r.crossings.push_back({l, l->directionFrom(graph_.deviceNode(from.device)), l->latency()});
    } else {
      // Up to the nearest node both sit under (a switch, or the socket's root complex), and down.
      const int a = graph_.deviceNode(from.device), b = graph_.deviceNode(to.device);
      const std::vector<int> up = ancestors(a), other = ancestors(b);
      int meet = -1;
      for (int n : up) {
        if (std::find(other.begin(), other.end(), n) != other.end()) {
          meet = n;
          break;
        }
      }
      // (into the socket they meet at, when that is where they meet)
      const int at =
          meet >= 0 && graph_.nodes()[static_cast<size_t>(meet)].kind == GraphNode::Kind::Socket
              ? meet
              : -1;
      r.crossings = upward(a, meet, at);
      const std::vector<Crossing> down = reversed(upward(b, meet, at));
      r.crossings.insert(r.crossings.end(), down.begin(), down.end());
    }
  }
  r.framing = framing(r.crossings, engine);
  return cache_.emplace(key, std::move(r)).first->second;
}

uint32_t Router::rootSocket(int device) const {
  const std::vector<int> chain = ancestors(graph_.deviceNode(device));
  // Sockets are the graph's first nodes, numbered as the sockets are.
  return chain.empty() ? graph_.hostSocketOf(device) : static_cast<uint32_t>(chain.back());
}

Picoseconds Router::hostReadRoundTrip(int device, int socket) {
  const uint32_t memorySocket =
      socket >= 0 ? static_cast<uint32_t>(socket) : graph_.hostSocketOf(device);
  Picoseconds rtt = graph_.hostMemory(memorySocket).readLatency();
  for (const Crossing& c : route(Endpoint::of(device), Endpoint::host(socket), device).crossings)
    rtt += 2 * c.latency;
  return rtt;
}

}  // namespace ascendsim::models
