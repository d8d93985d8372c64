// The top level of a config: host, pcie, devices, run mode; and the topology checks.

#include "spec/system_loader.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "spec/kind_registry.h"
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

void readApiOverheads(const ConfigNode& node, const std::string& path, Diagnostics& diag,
                      ApiOverheads& o) {
  FieldReader r(node, path, diag);
  const Picoseconds max = 1000000000000;  // 1 s
  r.duration("default", o.defaultCall, 0, max);
  r.duration("malloc", o.malloc, 0, max);
  r.duration("free", o.free, 0, max);
  r.duration("malloc_host", o.mallocHost, 0, max);
  r.duration("memcpy", o.memcpy, 0, max);
  r.duration("memcpy_async", o.memcpyAsync, 0, max);
  r.duration("memset", o.memset, 0, max);
  r.duration("memset_async", o.memsetAsync, 0, max);
  r.duration("event", o.event, 0, max);
  r.duration("synchronize", o.synchronize, 0, max);
  r.duration("stream_create", o.streamCreate, 0, max);
  r.duration("kernel_launch", o.kernelLaunch, 0, max);
  r.duration("fast_launch_stream_create", o.fastLaunchStreamCreate, 0, max);
  r.duration("fast_launch", o.fastLaunch, 0, max);
  r.duration("fast_sync", o.fastSync, 0, max);
  r.duration("model_execute", o.modelExecute, 0, max);
  r.finish();
}

void readHost(const ConfigNode& node, Diagnostics& diag, HostSpec& host) {
  FieldReader r(node, "host", diag);
  if (const ConfigNode* m = r.require("memory")) readMemory(*m, "host.memory", diag, host.memory);
  r.bandwidth("cpu_copy_bandwidth", host.cpuCopyBandwidth, 1e6, 1e13);
  r.integer("cpu_copy_engines", host.cpuCopyEngines, 0, 1024);
  r.integer("memory_socket", host.memorySocket, 0, 63);
  if (const ConfigNode* l = r.take("socket_link")) {
    FieldReader lr(*l, r.childPath("socket_link"), diag);
    lr.bandwidth("bandwidth", host.socketLink.bandwidth, 1e6, 1e13);
    lr.duration("latency", host.socketLink.latency, 0, 100000000);
    lr.finish();
  }
  r.bytes("staging_buffer", host.stagingBufferSize, 4096, 1ull << 30);
  if (const ConfigNode* o = r.take("api_overhead"))
    readApiOverheads(*o, "host.api_overhead", diag, host.apiOverhead);
  r.finish();
}

void readRootComplex(const ConfigNode& node, Diagnostics& diag, RootComplexSpec& rc) {
  FieldReader r(node, "pcie.root_complex", diag);
  r.integer("ports", rc.ports, 1, 64);
  r.duration("latency", rc.latency, 0, 100000000);
  r.boolean("completions_at_rcb", rc.completionsAtRcb);
  r.fraction("efficiency", rc.efficiency, 0.05, 1.0,
             "the share of each root port's TLP rate the host sustains");
  r.boolean("peer_to_peer", rc.peerToPeer);
  r.bandwidthLimit("bridge_bandwidth", rc.bridgeBandwidth, 1e6, 1e14);
  if (const ConfigNode* s = r.take("sockets")) {
    if (!s->isList()) {
      r.error("sockets",
              "expected a list with the CPU socket of each root port, e.g. [0, 0, 1, 1]");
    } else {
      rc.portSockets.clear();
      for (const ConfigNode& item : s->items()) {
        char* end = nullptr;
        const unsigned long v = item.isScalar() ? std::strtoul(item.value().c_str(), &end, 10) : 64;
        if (!item.isScalar() || item.value().empty() || *end || v > 63) {
          diag.error(item.where(), r.childPath("sockets"), "a socket number from 0 to 63");
          return;
        }
        rc.portSockets.push_back(static_cast<uint32_t>(v));
      }
      if (rc.portSockets.size() != rc.ports) {
        r.error("sockets", std::to_string(rc.portSockets.size()) + " socket(s) listed for " +
                               std::to_string(rc.ports) + " root port(s); give one per port");
      }
    }
  }
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
  if (r.text("name", sw.name, true)) {
    at.name = {r.take("name")->where(), r.childPath("name")};
    if (!isIdentifier(sw.name))
      r.error("name", "'" + sw.name + "' is not a valid name (letters, digits, '_' and '-')");
  }
  if (r.text("upstream", sw.upstream, true))
    at.upstream = {r.take("upstream")->where(), r.childPath("upstream")};
  r.integer("ports", sw.ports, 1, 128);
  r.duration("latency", sw.latency, 0, 10000000);
  if (const ConfigNode* l = r.take("link")) readLink(*l, r.childPath("link"), diag, sw.link);
  r.finish();
}

void readScheduler(const ConfigNode& node, const std::string& path, Diagnostics& diag,
                   SchedulerSpec& s) {
  FieldReader r(node, path, diag);
  r.integer("max_streams", s.maxStreams, 1, 65536);
  r.integer("max_events", s.maxEvents, 1, 1 << 20);
  r.integer("queue_depth", s.queueDepth, 1, 1 << 20);
  r.duration("task_launch", s.taskLaunch, 0, 1000000000);
  r.finish();
}

void readDma(const ConfigNode& node, const std::string& path, Diagnostics& diag, DmaSpec& d) {
  FieldReader r(node, path, diag);
  r.kind("model", d.model, "dma-model");
  r.integer("engines", d.engines, 1, 64);
  r.integer("channels_per_engine", d.channelsPerEngine, 1, 64);
  if (const ConfigNode* o = r.take("outstanding_reads");
      o && o->isScalar() && o->value() == "auto") {
    d.outstandingReads = 0;
  } else if (o) {
    // Re-read it as a number (take() above only marked it as known).
    r.integer("outstanding_reads", d.outstandingReads, 1, 4096);
  }
  r.bytes("chunk_size", d.chunkSize, 64, 64ull << 20);
  if (d.chunkSize % 64 != 0) r.error("chunk_size", "chunk_size must be a multiple of 64B");
  r.duration("setup_latency", d.setupLatency, 0, 1000000000);
  r.bandwidthLimit("engine_bandwidth", d.engineBandwidth, 1e6, 1e14);
  r.finish();
}

void readAiCore(const ConfigNode& node, const std::string& path, Diagnostics& diag, AiCoreSpec& a) {
  FieldReader r(node, path, diag);
  r.integer("cores", a.cores, 1, 1024);
  r.frequency("clock", a.clock, 1e6, 10e9);
  r.integer("vector_bytes_per_cycle", a.vectorBytesPerCycle, 1, 65536);
  r.integer("read_bytes_per_cycle", a.readBytesPerCycle, 1, 65536);
  r.integer("write_bytes_per_cycle", a.writeBytesPerCycle, 1, 65536);
  r.integer("scalar_ops_per_cycle", a.scalarOpsPerCycle, 1, 64);
  r.bytes("tile_size", a.tileSize, 512, 64ull << 20);
  r.duration("start_latency", a.startLatency, 0, 1000000000);
  // `auto`: the SoC's (0 here, so that a change of `soc` carries it along). Ascend C moves data in
  // and out of the Unified Buffer in 32-byte blocks.
  if (const ConfigNode* u = r.take("unified_buffer"); u && u->isScalar() && u->value() == "auto") {
    a.unifiedBuffer = 0;
  } else if (u && r.bytes("unified_buffer", a.unifiedBuffer, 1024, 16ull << 20) &&
             a.unifiedBuffer % 32 != 0) {
    r.error("unified_buffer", "unified_buffer must be a multiple of 32B (Ascend C's data block)");
  }
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
  r.text("model", proto.model);
  if (r.text("soc", proto.soc)) {
    // CANN's SoC versions: "Ascend" and letters, digits or underscores ("Ascend910B4",
    // "Ascend910_9391").
    bool ok = proto.soc.size() > 6 && proto.soc.compare(0, 6, "Ascend") == 0;
    for (char c : proto.soc) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
    if (!ok)
      r.error("soc", "'" + proto.soc + "' is not a SoC version such as Ascend910B4 or Ascend310P3");
  }
  if (const ConfigNode* l = r.take("link")) readLink(*l, r.childPath("link"), diag, proto.link);
  if (const ConfigNode* m = r.require("memory"))
    readMemory(*m, r.childPath("memory"), diag, proto.memory);
  if (const ConfigNode* d = r.take("dma")) readDma(*d, r.childPath("dma"), diag, proto.dma);
  if (const ConfigNode* s = r.take("scheduler"))
    readScheduler(*s, r.childPath("scheduler"), diag, proto.scheduler);
  if (const ConfigNode* a = r.take("aicore"))
    readAiCore(*a, r.childPath("aicore"), diag, proto.aicore);

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
    if (!sys.switches[i].upstream.empty())
      plug("switch " + sys.switches[i].name, sys.switches[i].upstream, switchAt[i].upstream);
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
  {
    const ConfigNode* m = r.take("model");
    const std::vector<std::string> names = kinds::kindNames("device-link");
    if (!m) {
      r.errorAtMap("missing 'model': the kind of link (" + FieldReader::join(names) + ")");
    } else if (!m->isScalar() || !kinds::findKind("device-link", m->value())) {
      diag.error(m->where(), r.childPath("model"),
                 "'" + (m->isScalar() ? m->value() : std::string("?")) +
                     "' is not a kind of device link; expected one of " + FieldReader::join(names) +
                     (m->isScalar() ? FieldReader::suggestion(m->value(), names) : ""));
    } else {
      proto.model = m->value();
    }
  }
  double maxRate = 0;
  if (const kinds::KindInfo* kind = kinds::findKind("device-link", proto.model)) {
    auto limit = kind->limits.find("max_lane_rate");
    if (limit != kind->limits.end()) maxRate = limit->second;
  }
  r.integerOneOf("lanes", proto.lanes, {1, 2, 4, 8, 16});
  if (r.transferRate("speed", proto.rate, 1e9, 1e12) && proto.rate > maxRate) {
    r.error("speed", formatTransferRate(proto.rate) + " per lane is faster than any " +
                         proto.model + " link runs (" + formatTransferRate(maxRate) +
                         " per lane at most)");
  }
  r.bytes("packet_payload", proto.packetPayload, 16, 4096);
  r.integer("packet_overhead", proto.packetOverhead, 0, 256);
  r.duration("latency", proto.latency, 0, 100000000);
  r.bandwidthLimit("transfer_rate", proto.transferRate, 1e6, 1e14);

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
  const bool genGiven = r.integer("generation", link.generation, 1, 6);
  const double genRate = pcieGenerationRate(link.generation);
  if (genGiven) link.rate = genRate;
  if (r.transferRate("speed", link.rate, 2.5e9, 64e9)) {
    if (link.rate > genRate) {
      r.error("speed", formatTransferRate(link.rate) + " is faster than PCIe Gen" +
                           std::to_string(link.generation) + " allows (" +
                           formatTransferRate(genRate) + " per lane)");
    } else if (link.rate != 2.5e9 && link.rate != 5e9 && link.rate != 8e9 && link.rate != 16e9 &&
               link.rate != 32e9 && link.rate != 64e9) {
      r.error("speed", formatTransferRate(link.rate) +
                           " is not a PCIe speed; expected 2.5, 5, 8, 16, 32 or 64GT/s");
    }
  }
  r.integerOneOf("lanes", link.lanes, {1, 2, 4, 8, 16});
  // Gen4 brought 10-bit tags (768 outstanding reads); before it 8-bit extended tags (256).
  if (genGiven) link.tags = link.generation >= 4 ? 768 : 256;
  r.bytesPowerOfTwo("mps", link.mps, 128, 4096);
  r.bytesPowerOfTwo("mrrs", link.mrrs, 128, 4096);
  uint32_t rcb = static_cast<uint32_t>(link.rcb);
  if (r.integerOneOf("rcb", rcb, {64, 128})) link.rcb = rcb;
  r.boolean("ecrc", link.ecrc);
  r.integer("tags", link.tags, 1, 4096);
  r.duration("latency", link.latency, 0, 100000000);
  r.finish();
}

void readTrace(const ConfigNode& node, Diagnostics& diag, TraceSpec& trace) {
  FieldReader tr(node, "trace", diag);
  tr.text("path", trace.path);
  tr.kind("format", trace.format, "trace-format");
  tr.text("report", trace.report);
  tr.duration("counter_interval", trace.counterInterval, 1000, 1000000000000);
  tr.bytes("max_size", trace.maxFileSize, 64 * 1024, 1ull << 50);
  tr.boolean("dram_stats", trace.dramStats);
  tr.finish();
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
  if (sys.host.memorySocket >= sys.rootComplex.sockets()) {
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
