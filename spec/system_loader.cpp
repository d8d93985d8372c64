// The top level of a config: host, pcie, devices, run mode; and the topology checks.

#include "spec/system_loader.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "spec/kind_registry.h"
#include "spec/machine_settings.h"
#include "spec/spec_readers.h"

namespace ascendsim::spec {
namespace {

bool isIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  }
  return true;
}

void readHost(const ConfigNode& node, Diagnostics& diag, HostSpec& host) {
  FieldReader r(node, "host", diag);
  readSettings(hostSettings(), r, host);
  r.finish();
}

void readRootComplex(const ConfigNode& node, Diagnostics& diag, RootComplexSpec& rc) {
  FieldReader r(node, "pcie.root_complex", diag);
  readSettings(rootComplexSettings(), r, rc);
  r.finish();
}

struct Located {
  SourceLocation where;
  std::string path;
};

// Two entries clash and the first came from a file this one extends: how to replace it instead.
std::string inheritedHint(const SourceLocation& first, const SourceLocation& second,
                          const std::string& list) {
  if (first.file == second.file || first.file.empty()) return "";
  return " (that one is inherited from " + first.file + ":" + std::to_string(first.line) + ":" +
         std::to_string(first.column) +
         " through `extends`: restated entries merge with the inherited ones by name, ends or "
         "position; to replace the inherited list write `" +
         list + ": !replace` before it)";
}

struct SwitchAt {
  Located name, upstream;
};

void readSwitch(const ConfigNode& node, const std::string& path, Diagnostics& diag,
                PcieSwitchSpec& sw, SwitchAt& at) {
  FieldReader r(node, path, diag);
  readSettings(switchSettings(), r, sw);
  if (const ConfigNode* name = node.find("name")) at.name = {name->where(), r.childPath("name")};
  if (const ConfigNode* up = node.find("upstream"))
    at.upstream = {up->where(), r.childPath("upstream")};
  r.finish();
}

// One entry of `devices:` describes one device, or `count` identical ones on a list of `ports`.
void readDeviceGroup(const ConfigNode& node, const std::string& path, Diagnostics& diag,
                     SystemSpec& sys, std::vector<Located>& portAt) {
  FieldReader r(node, path, diag);
  if (!r.isMap()) return;
  DeviceSpec proto;
  uint32_t count = 1;
  const bool counted = r.integer("count", count, 1, 1024);
  std::string name;
  r.text("name", name);
  if (!name.empty() && !isIdentifier(name)) r.error("name", "'" + name + "' is not a valid name");
  if (counted && count > 1 && !name.empty()) {
    r.error("name",
            "a group of " + std::to_string(count) +
                " devices cannot share one name; leave it out (devices are named npu0, npu1, ...)");
  }
  readSettings(deviceSettings(), r, proto);

  std::vector<std::string> ports;
  std::vector<Located> where;
  const ConfigNode* port = r.take("port");
  const ConfigNode* portList = r.take("ports");
  if (port && portList) {
    r.error("ports", "give either 'port' (one device) or 'ports' (a group), not both");
  } else if (port) {
    if (!port->isScalar() || port->value().empty()) {
      r.error("port", "expected a port such as sw0.1");
    } else {
      ports.push_back(port->value());
      where.push_back({port->where(), r.childPath("port")});
    }
  } else if (portList) {
    if (!portList->isList()) {
      r.error("ports", "expected a list of ports such as [sw0.0, sw0.1]");
    } else {
      for (size_t i = 0; i < portList->items().size(); ++i) {
        const ConfigNode& p = portList->items()[i];
        ports.push_back(p.isScalar() ? p.value() : "");
        where.push_back({p.where(), r.childPath("ports") + "[" + std::to_string(i) + "]"});
        if (ports.back().empty())
          diag.error(p.where(), where.back().path, "expected a port such as sw0.1");
      }
    }
  }
  if (!ports.empty() && ports.size() != count) {
    const ConfigNode* countNode = node.find("count");
    const ConfigNode* given = portList ? portList : port;
    std::string inherited;
    if (countNode && countNode->where().file != given->where().file) {
      inherited = " (count: " + std::to_string(count) + " is inherited from " +
                  countNode->where().file + ":" + std::to_string(countNode->where().line) +
                  " through `extends`; restate count, or name one device to change it alone)";
    }
    r.error(portList ? "ports" : "port", std::to_string(ports.size()) + " port(s) given for " +
                                             std::to_string(count) + " device(s)" + inherited +
                                             "; give one port per device");
  }
  if (ports.empty() && sys.runMode == RunMode::Host) {
    r.errorAtMap(
        "missing 'port': in run mode host every device hangs on a PCIe port (for example port: "
        "rc.0)");
  }
  r.finish();
  for (uint32_t i = 0; i < count; ++i) {
    DeviceSpec dev = proto;
    dev.name = name.empty() ? "npu" + std::to_string(sys.devices.size()) : name;
    if (i < ports.size()) dev.port = ports[i];
    sys.devices.push_back(dev);
    portAt.push_back(i < where.size() ? where[i] : Located{node.where(), path});
  }
}

// Which thing plugs into each port, whether every port exists, and that the switches form a tree.
void checkTopology(const SystemSpec& sys, const std::vector<SwitchAt>& switchAt,
                   const std::vector<Located>& deviceAt, Diagnostics& diag) {
  std::map<std::string, uint32_t> portCount{{"rc", sys.rootComplex.ports}};
  std::set<std::string> names{"rc"};
  for (size_t i = 0; i < sys.switches.size(); ++i) {
    const PcieSwitchSpec& sw = sys.switches[i];
    if (sw.name.empty()) continue;
    if (!names.insert(sw.name).second) {
      diag.error(switchAt[i].name.where, switchAt[i].name.path,
                 "switch name '" + sw.name + "' is used twice" +
                     (sw.name == "rc" ? " ('rc' is the root complex)" : ""));
    }
    portCount[sw.name] = sw.ports;
  }
  std::map<std::string, std::pair<std::string, SourceLocation>> occupant;  // port -> who, where
  auto plug = [&](const std::string& who, const std::string& portText, const Located& at) -> bool {
    auto ref = parsePortRef(portText);
    if (!ref) {
      diag.error(at.where, at.path,
                 "'" + portText + "' is not a port; write OWNER.INDEX, e.g. rc.0 or sw0.3");
      return false;
    }
    auto owner = portCount.find(ref->owner);
    if (owner == portCount.end()) {
      std::vector<std::string> owners;
      for (const auto& [n, c] : portCount) owners.push_back(n);
      diag.error(at.where, at.path,
                 "port '" + portText + "' names no switch or root complex called '" + ref->owner +
                     "'" + FieldReader::suggestion(ref->owner, owners) +
                     "; known: " + FieldReader::join(owners));
      return false;
    }
    if (ref->index >= owner->second) {
      diag.error(at.where, at.path,
                 "port '" + portText + "' does not exist: '" + ref->owner + "' has " +
                     std::to_string(owner->second) + " port(s), numbered from 0");
      return false;
    }
    auto [it, fresh] = occupant.emplace(ref->text(), std::make_pair(who, at.where));
    if (!fresh) {
      diag.error(at.where, at.path,
                 "port '" + portText + "' is already taken by " + it->second.first +
                     inheritedHint(it->second.second, at.where,
                                   who.rfind("switch", 0) == 0 ? "switches" : "devices") +
                     "; one link per port");
      return false;
    }
    return true;
  };
  for (size_t i = 0; i < sys.switches.size(); ++i) {
    const PcieSwitchSpec& sw = sys.switches[i];
    if (!sw.upstream.empty()) plug("switch " + sw.name, sw.upstream, switchAt[i].upstream);
    // Several uplinks: each into a root port of its own (a switch under a switch has one way up).
    for (const std::string& p : sw.moreUpstreams) {
      const auto ref = parsePortRef(p), first = parsePortRef(sw.upstream);
      if ((ref && ref->owner != "rc") || (first && first->owner != "rc")) {
        diag.error(switchAt[i].upstream.where, switchAt[i].upstream.path,
                   "switch " + sw.name +
                       " has several uplinks, so each must plug into a root "
                       "port (rc.N); '" +
                       (ref && ref->owner != "rc" ? p : sw.upstream) + "' is a switch's port");
        break;
      }
      if (!plug("switch " + sw.name, p, switchAt[i].upstream)) break;
    }
  }
  // Walk each switch up to the root complex; meeting a switch twice means a cycle.
  for (size_t i = 0; i < sys.switches.size(); ++i) {
    std::vector<std::string> chain{sys.switches[i].name};
    const PcieSwitchSpec* cur = &sys.switches[i];
    while (cur) {
      auto ref = parsePortRef(cur->upstream);
      if (!ref || ref->owner == "rc") break;
      const PcieSwitchSpec* next = sys.findSwitch(ref->owner);
      if (!next) break;
      if (next->name == chain.front()) {
        std::string cycle;
        for (const std::string& n : chain) cycle += n + " -> ";
        diag.error(
            switchAt[i].upstream.where, switchAt[i].upstream.path,
            "the switch tree has a cycle: " + cycle + chain.front() + " (it must lead up to rc)");
        break;
      }
      if (chain.size() > sys.switches.size()) break;  // a cycle not through this switch
      chain.push_back(next->name);
      cur = next;
    }
  }
  std::set<std::string> deviceNames;
  for (size_t i = 0; i < sys.devices.size(); ++i) {
    const DeviceSpec& d = sys.devices[i];
    if (!deviceNames.insert(d.name).second || names.count(d.name)) {
      diag.error(deviceAt[i].where, deviceAt[i].path, "device name '" + d.name + "' is used twice");
    }
    if (!d.port.empty()) plug("device " + d.name, d.port, deviceAt[i]);
  }
}

// One entry of `device_links:`: a kind of link and the pairs it joins, given as two devices or
// as a pattern over all devices (`pattern: full-mesh`, or `groups-of: N`, a full mesh inside each
// run of N consecutive devices).
void readDeviceLinks(const ConfigNode& node, const std::string& path, Diagnostics& diag,
                     SystemSpec& sys, std::map<std::pair<int, int>, Located>& seen) {
  FieldReader r(node, path, diag);
  if (!r.isMap()) {
    diag.error(
        node.where(), path,
        "expected a map such as { model: hccs, pattern: full-mesh, lanes: 8, speed: 56GT/s }");
    return;
  }
  DeviceLinkSpec proto;
  readSettings(deviceLinkSettings(), r, proto);

  const ConfigNode* pattern = r.take("pattern");
  const ConfigNode* groups = r.take("groups-of");
  const ConfigNode* pair = r.take("devices");
  const int given = (pattern != nullptr) + (groups != nullptr) + (pair != nullptr);
  std::vector<std::pair<int, int>> pairs;
  const int n = static_cast<int>(sys.devices.size());
  auto mesh = [&](int from, int to) {
    for (int i = from; i < to; ++i) {
      for (int j = i + 1; j < to; ++j) pairs.emplace_back(i, j);
    }
  };
  if (given != 1) {
    r.errorAtMap("give exactly one of 'pattern: full-mesh', 'groups-of: N' or 'devices: [A, B]'");
  } else if (pattern) {
    if (!pattern->isScalar() || pattern->value() != "full-mesh") {
      diag.error(pattern->where(), r.childPath("pattern"),
                 "the pattern is 'full-mesh' (or use 'groups-of: N' or 'devices: [A, B]')");
    } else {
      mesh(0, n);
    }
  } else if (groups) {
    uint32_t size = 0;
    if (r.integer("groups-of", size, 2, 1024)) {
      if (n % static_cast<int>(size) != 0) {
        r.error("groups-of", "the machine's " + std::to_string(n) +
                                 " devices do not split into groups of " + std::to_string(size));
      } else {
        for (int g = 0; g < n; g += static_cast<int>(size)) mesh(g, g + static_cast<int>(size));
      }
    }
  } else {
    if (!pair->isList() || pair->items().size() != 2 || !pair->items()[0].isScalar() ||
        !pair->items()[1].isScalar()) {
      diag.error(pair->where(), r.childPath("devices"),
                 "expected the two devices the link joins, e.g. [npu0, npu1]");
    } else {
      int ends[2];
      bool ok = true;
      std::vector<std::string> names;
      for (const DeviceSpec& d : sys.devices) names.push_back(d.name);
      for (int e = 0; e < 2; ++e) {
        const ConfigNode& item = pair->items()[static_cast<size_t>(e)];
        ends[e] = sys.findDevice(item.value());
        if (ends[e] < 0) {
          diag.error(item.where(), r.childPath("devices") + "[" + std::to_string(e) + "]",
                     "no device is called '" + item.value() + "'" +
                         FieldReader::suggestion(item.value(), names) +
                         "; devices: " + FieldReader::join(names));
          ok = false;
        }
      }
      if (ok && ends[0] == ends[1]) {
        diag.error(
            pair->where(), r.childPath("devices"),
            "a link joins two different devices, not " + pair->items()[0].value() + " to itself");
        ok = false;
      }
      if (ok) pairs.emplace_back(std::min(ends[0], ends[1]), std::max(ends[0], ends[1]));
    }
  }
  r.finish();
  for (const auto& [i, j] : pairs) {
    auto [it, fresh] = seen.emplace(std::make_pair(i, j), Located{node.where(), path});
    if (!fresh) {
      diag.error(node.where(), path,
                 "devices " + sys.devices[static_cast<size_t>(i)].name + " and " +
                     sys.devices[static_cast<size_t>(j)].name + " are already linked by " +
                     it->second.path +
                     inheritedHint(it->second.where, node.where(), "device_links") +
                     "; one link per pair (give it more lanes instead)");
      return;
    }
    DeviceLinkSpec l = proto;
    l.a = sys.devices[static_cast<size_t>(i)].name;
    l.b = sys.devices[static_cast<size_t>(j)].name;
    sys.deviceLinks.push_back(l);
  }
}

}  // namespace

void readLink(const ConfigNode& node, const std::string& path, Diagnostics& diag,
              PcieLinkSpec& link) {
  FieldReader r(node, path, diag);
  readSettings(pcieLinkSettings(), r, link);
  r.finish();
}

void readTrace(const ConfigNode& node, Diagnostics& diag, TraceSpec& trace) {
  FieldReader r(node, "trace", diag);
  readSettings(traceSettings(), r, trace);
  r.finish();
}

SystemSpec readSystemSpec(const ConfigNode& root, Diagnostics& diag) {
  SystemSpec sys;
  FieldReader r(root, "", diag);
  if (!r.isMap()) return sys;
  r.text("name", sys.name);
  r.text("description", sys.description);
  r.choice("run_mode", sys.runMode, {{"host", RunMode::Host}, {"device", RunMode::Device}});
  if (const ConfigNode* h = r.require("host")) readHost(*h, diag, sys.host);

  std::vector<SwitchAt> switchAt;
  if (const ConfigNode* p = r.take("pcie")) {
    FieldReader pr(*p, "pcie", diag);
    if (const ConfigNode* rc = pr.take("root_complex")) readRootComplex(*rc, diag, sys.rootComplex);
    if (const ConfigNode* sws = pr.take("switches")) {
      if (!sws->isList()) {
        pr.error("switches", "expected a list of switches");
      } else {
        for (size_t i = 0; i < sws->items().size(); ++i) {
          const std::string path = "pcie.switches[" + std::to_string(i) + "]";
          PcieSwitchSpec sw;
          SwitchAt at{{sws->items()[i].where(), path}, {sws->items()[i].where(), path}};
          readSwitch(sws->items()[i], path, diag, sw, at);
          sys.switches.push_back(sw);
          switchAt.push_back(at);
        }
      }
    }
    pr.finish();
  }

  if (const ConfigNode* t = r.take("trace")) readTrace(*t, diag, sys.trace);

  std::vector<Located> deviceAt;
  if (const ConfigNode* devs = r.require("devices")) {
    if (!devs->isList()) {
      r.error("devices", "expected a list of devices");
    } else {
      for (size_t i = 0; i < devs->items().size(); ++i) {
        readDeviceGroup(devs->items()[i], "devices[" + std::to_string(i) + "]", diag, sys,
                        deviceAt);
      }
      if (devs->items().empty()) r.error("devices", "a machine needs at least one device");
    }
  }
  if (const ConfigNode* links = r.take("device_links")) {
    std::map<std::pair<int, int>, Located> seen;
    if (!links->isList()) {
      r.error("device_links",
              "expected a list of links, e.g. [ { model: hccs, pattern: full-mesh } ]");
    } else {
      for (size_t i = 0; i < links->items().size(); ++i) {
        readDeviceLinks(links->items()[i], "device_links[" + std::to_string(i) + "]", diag, sys,
                        seen);
      }
    }
  }
  r.finish();
  for (size_t i = 0; i < sys.host.threadSockets.size(); ++i) {
    if (sys.host.threadSockets[i] < sys.rootComplex.sockets()) continue;
    r.error("host", "host.thread_sockets[" + std::to_string(i) + "]: socket " +
                        std::to_string(sys.host.threadSockets[i]) +
                        " names no socket: the root ports are on " +
                        std::to_string(sys.rootComplex.sockets()) +
                        " socket(s) (pcie.root_complex.sockets)");
  }
  if (sys.host.memoryPlacement == HostPlacement::Socket &&
      sys.host.memorySocket >= sys.rootComplex.sockets()) {
    r.error("host", "host.memory_socket " + std::to_string(sys.host.memorySocket) +
                        " names no socket: the root ports are on " +
                        std::to_string(sys.rootComplex.sockets()) +
                        " socket(s) (pcie.root_complex.sockets)");
  }
  if (sys.runMode == RunMode::Device && sys.devices.size() > 1) {
    r.error("run_mode",
            "run mode device (RC) runs the program on one device's CPU; this config has " +
                std::to_string(sys.devices.size()) + " devices");
  }
  // A copy model that charges memories their sustained rates has no bursts to time.
  for (const DeviceSpec& d : sys.devices) {
    const kinds::KindInfo* dma = kinds::findKind("dma-model", d.dma.model);
    if (!dma || !dma->limits.count("cycle_memory") || dma->limits.at("cycle_memory") != 0) continue;
    const char* which = d.memory.timing == "cycle"          ? "its memory"
                        : sys.host.memory.timing == "cycle" ? "host memory"
                                                            : nullptr;
    if (which) {
      r.error("devices", d.name + " uses dma.model: " + d.dma.model +
                             ", which times memories at their sustained rates, but " + which +
                             " has timing: cycle; use dma.model: pcie or timing: sustained");
    }
  }
  checkTopology(sys, switchAt, deviceAt, diag);
  for (size_t d = 0; d < sys.devices.size(); ++d) sys.devices[d].localId = static_cast<uint32_t>(d);
  return sys;
}

namespace {
SystemSpec finishLoading(const ConfigNode& root, Diagnostics& diag,
                         std::vector<std::string> sources) {
  SystemSpec sys;
  if (diag.empty()) {
    sys = root.isMap() && root.find("cluster") ? readClusterSpec(root, diag, sources)
                                               : readSystemSpec(root, diag);
  }
  if (!diag.empty()) throw ConfigError(diag.items());
  sys.sources = std::move(sources);
  return sys;
}
}  // namespace

SystemSpec loadSystemSpec(const std::string& ref) {
  Diagnostics diag;
  std::vector<std::string> sources;
  ConfigNode root = loadConfigDocument(ref, diag, sources);
  return finishLoading(root, diag, std::move(sources));
}

SystemSpec loadSystemSpecFromText(const std::string& text, const std::string& fileName) {
  Diagnostics diag;
  std::vector<std::string> sources;
  ConfigNode root = loadConfigDocumentFromText(text, fileName, diag, sources);
  return finishLoading(root, diag, std::move(sources));
}

SystemSpec defaultSystemSpec() {
  return loadSystemSpec("<builtin>/default.yaml");
}

SystemSpec loadSystemSpecOrDefault(const std::string& ref) {
  return ref.empty() ? defaultSystemSpec() : loadSystemSpec(ref);
}

DramSpec loadMemorySpec(const std::string& ref, const std::string& overrides) {
  Diagnostics diag;
  ConfigNode node;
  const std::vector<std::string> presets = builtinMemoryPresets();
  if (std::find(presets.begin(), presets.end(), ref) != presets.end()) {
    node = parseYaml("preset: " + ref + "\n", "<command line>", diag);
  } else if (std::filesystem::exists(ref)) {
    std::vector<std::string> sources;
    node = loadConfigDocument(ref, diag, sources);
  } else {
    std::string names;
    for (const std::string& p : presets) names += (names.empty() ? "" : ", ") + p;
    diag.error({"<command line>", 0, 0}, "memory",
               "'" + ref + "' is neither a built-in memory preset (" + names + ") nor a file");
  }
  if (diag.empty() && !overrides.empty())
    node.mergeFrom(parseYaml(overrides, "<command line>", diag));
  DramSpec out;
  if (diag.empty()) readMemory(node, "memory", diag, out);
  if (!diag.empty()) throw ConfigError(diag.items());
  return out;
}

}  // namespace ascendsim::spec
