// A cluster: several servers, each a machine of its own (`extends` a preset or a file, with
// overrides), joined by a RoCE NIC beside every NPU and one switch. The servers' machines are
// read and checked one by one as any machine is, then joined into one SystemSpec: every server's
// switches, devices and device links under its own name ("s1-npu3"), its root ports after the
// previous servers' on the one simulated host.

#include <set>

#include "spec/field_reader.h"
#include "spec/kind_registry.h"
#include "spec/machine_settings.h"
#include "spec/spec_readers.h"
#include "spec/spec_writer.h"
#include "spec/system_loader.h"

namespace ascendsim::spec {
namespace {

std::string prefixed(const std::string& server, const std::string& name) {
  return server + "-" + name;
}

// A port of a server ("rc.1", "sw0.2") as the joined machine names it.
std::string joinedPort(const std::string& server, const std::string& port, uint32_t rcOffset) {
  const std::optional<PortRef> ref = parsePortRef(port);
  if (!ref) return port;
  if (ref->owner == "rc") return "rc." + std::to_string(ref->index + rcOffset);
  return prefixed(server, ref->owner) + "." + std::to_string(ref->index);
}

// The host and root complex of a machine as YAML, ports aside (the servers must agree on them).
std::string hostText(const SystemSpec& m) {
  SystemSpec only;
  only.host = m.host;
  only.rootComplex = m.rootComplex;
  only.rootComplex.ports = 0;
  only.rootComplex.portSockets.clear();
  return writeSystemSpecYaml(only);
}

void readNic(const ConfigNode& node, Diagnostics& diag, NicSpec& nic) {
  FieldReader r(node, "cluster.nic", diag);
  readSettings(nicSettings(), r, nic);
  r.finish();
}

void readNetworkSwitch(const ConfigNode& node, Diagnostics& diag, NetworkSwitchSpec& sw) {
  FieldReader r(node, "cluster.switch", diag);
  readSettings(networkSwitchSettings(), r, sw);
  r.finish();
}

}  // namespace

SystemSpec readClusterSpec(const ConfigNode& root, Diagnostics& diag,
                           std::vector<std::string>& sources) {
  SystemSpec sys;
  FieldReader r(root, "", diag);
  r.text("name", sys.name);
  r.text("description", sys.description);
  if (const ConfigNode* t = r.take("trace")) readTrace(*t, diag, sys.trace);
  const ConfigNode* cluster = r.require("cluster");
  r.finish();
  if (!cluster) return sys;
  FieldReader cr(*cluster, "cluster", diag);
  if (const ConfigNode* nic = cr.take("nic")) readNic(*nic, diag, sys.cluster.nic);
  if (const ConfigNode* sw = cr.take("switch"))
    readNetworkSwitch(*sw, diag, sys.cluster.networkSwitch);
  const ConfigNode* servers = cr.require("servers");
  cr.finish();
  if (!servers) return sys;
  if (!servers->isList() || servers->items().size() < 2) {
    cr.error("servers",
             "expected a list of two or more servers, e.g. [ { name: s0, extends: "
             "atlas-800t-a2 }, { name: s1, extends: atlas-800t-a2 } ]");
    return sys;
  }
  std::set<std::string> names;
  uint32_t rcOffset = 0;
  for (size_t i = 0; i < servers->items().size(); ++i) {
    const ConfigNode& entry = servers->items()[i];
    const std::string path = "cluster.servers[" + std::to_string(i) + "]";
    const ConfigNode* nameNode = entry.isMap() ? entry.find("name") : nullptr;
    if (!nameNode || !nameNode->isScalar() || nameNode->value().empty()) {
      diag.error(entry.where(), path, "a server needs a `name` (and `extends: MACHINE`)");
      continue;
    }
    const std::string name = nameNode->value();
    if (!names.insert(name).second) {
      diag.error(nameNode->where(), path + ".name", "server '" + name + "' is named twice");
      continue;
    }
    if (const ConfigNode::Entry* t = entry.findEntry("trace")) {
      diag.error(t->value.where(), path + ".trace",
                 "a cluster has one trace: give `trace` at the top level, not per server");
      continue;
    }
    Diagnostics own;
    const ConfigNode machineTree = resolveExtends(entry, own, sources);
    auto machine = std::make_shared<SystemSpec>();
    if (own.empty()) *machine = readSystemSpec(machineTree, own);
    for (const Diagnostic& d : own.items()) diag.error(d.where, d.keyPath, d.message);
    if (!own.empty()) continue;
    if (machine->runMode != RunMode::Host) {
      diag.error(entry.where(), path,
                 "server '" + name +
                     "' runs in device mode; a cluster's "
                     "servers run in host mode");
      continue;
    }
    if (sys.cluster.servers.empty()) {
      sys.host = machine->host;
      sys.rootComplex = machine->rootComplex;
      sys.rootComplex.ports = 0;
      sys.rootComplex.portSockets.clear();
    } else if (hostText(*machine) != hostText(*sys.cluster.servers[0].machine)) {
      diag.error(entry.where(), path,
                 "server '" + name + "' has another host or root complex than '" +
                     sys.cluster.servers[0].name +
                     "': the servers of a cluster share one simulated host, so they must agree "
                     "on `host` and `pcie.root_complex` (all but its ports)");
      continue;
    }
    ServerSpec server;
    server.name = name;
    server.firstDevice = static_cast<uint32_t>(sys.devices.size());
    server.devices = static_cast<uint32_t>(machine->devices.size());
    for (PcieSwitchSpec sw : machine->switches) {
      sw.name = prefixed(name, sw.name);
      sw.upstream = joinedPort(name, sw.upstream, rcOffset);
      for (std::string& p : sw.moreUpstreams) p = joinedPort(name, p, rcOffset);
      sys.switches.push_back(sw);
    }
    for (size_t d = 0; d < machine->devices.size(); ++d) {
      DeviceSpec dev = machine->devices[d];
      dev.name = prefixed(name, dev.name);
      if (!dev.port.empty()) dev.port = joinedPort(name, dev.port, rcOffset);
      dev.server = static_cast<uint32_t>(sys.cluster.servers.size());
      dev.localId = static_cast<uint32_t>(d);
      sys.devices.push_back(dev);
    }
    for (DeviceLinkSpec l : machine->deviceLinks) {
      l.a = prefixed(name, l.a);
      l.b = prefixed(name, l.b);
      sys.deviceLinks.push_back(l);
    }
    for (uint32_t p = 0; p < machine->rootComplex.ports; ++p)
      sys.rootComplex.portSockets.push_back(machine->rootComplex.socketOfPort(p));
    rcOffset += machine->rootComplex.ports;
    sys.rootComplex.ports = rcOffset;
    server.machine = machine;
    sys.cluster.servers.push_back(server);
  }
  return sys;
}

}  // namespace ascendsim::spec
