// The top level of a config: host, pcie, devices, run mode; and the topology checks.

#include "spec/system_loader.h"

#include <map>
#include <set>

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
  r.finish();
}

void readHost(const ConfigNode& node, Diagnostics& diag, HostSpec& host) {
  FieldReader r(node, "host", diag);
  if (const ConfigNode* m = r.require("memory")) readMemory(*m, "host.memory", diag, host.memory);
  r.bandwidth("cpu_copy_bandwidth", host.cpuCopyBandwidth, 1e6, 1e13);
  r.bytes("staging_buffer", host.stagingBufferSize, 4096, 1ull << 30);
  if (const ConfigNode* o = r.take("api_overhead")) readApiOverheads(*o, "host.api_overhead", diag, host.apiOverhead);
  r.finish();
}

void readRootComplex(const ConfigNode& node, Diagnostics& diag, RootComplexSpec& rc) {
  FieldReader r(node, "pcie.root_complex", diag);
  r.integer("ports", rc.ports, 1, 64);
  r.duration("latency", rc.latency, 0, 100000000);
  r.boolean("completions_at_rcb", rc.completionsAtRcb);
  r.finish();
}

struct Located {
  SourceLocation where;
  std::string path;
};

struct SwitchAt {
  Located name, upstream;
};

void readSwitch(const ConfigNode& node, const std::string& path, Diagnostics& diag,
                PcieSwitchSpec& sw, SwitchAt& at) {
  FieldReader r(node, path, diag);
  if (r.text("name", sw.name, true)) {
    at.name = {r.take("name")->where(), r.childPath("name")};
    if (!isIdentifier(sw.name)) r.error("name", "'" + sw.name + "' is not a valid name (letters, digits, '_' and '-')");
  }
  if (r.text("upstream", sw.upstream, true)) at.upstream = {r.take("upstream")->where(), r.childPath("upstream")};
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
  r.choice("model", d.model, {{"pcie", std::string("pcie")}, {"fixed-rate", std::string("fixed-rate")}});
  r.integer("engines", d.engines, 1, 64);
  r.integer("channels_per_engine", d.channelsPerEngine, 1, 64);
  r.integer("outstanding_reads", d.outstandingReads, 1, 4096);
  r.bytes("chunk_size", d.chunkSize, 64, 64ull << 20);
  if (d.chunkSize % 64 != 0) r.error("chunk_size", "chunk_size must be a multiple of 64B");
  r.duration("setup_latency", d.setupLatency, 0, 1000000000);
  r.integerOneOf("descriptor_size", d.descriptorSize, {32, 64});
  r.finish();
}

void readAiCore(const ConfigNode& node, const std::string& path, Diagnostics& diag, AiCoreSpec& a) {
  FieldReader r(node, path, diag);
  r.integer("cores", a.cores, 1, 1024);
  r.frequency("clock", a.clock, 1e6, 10e9);
  r.integer("vector_bytes_per_cycle", a.vectorBytesPerCycle, 1, 65536);
  r.integer("read_bytes_per_cycle", a.readBytesPerCycle, 1, 65536);
  r.integer("write_bytes_per_cycle", a.writeBytesPerCycle, 1, 65536);
  r.bytes("tile_size", a.tileSize, 512, 64ull << 20);
  r.duration("start_latency", a.startLatency, 0, 1000000000);
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
    r.error("name", "a group of " + std::to_string(count) + " devices cannot share one name; leave it out (devices are named npu0, npu1, ...)");
  }
  r.text("model", proto.model);
  if (const ConfigNode* l = r.take("link")) readLink(*l, r.childPath("link"), diag, proto.link);
  if (const ConfigNode* m = r.require("memory")) readMemory(*m, r.childPath("memory"), diag, proto.memory);
  if (const ConfigNode* d = r.take("dma")) readDma(*d, r.childPath("dma"), diag, proto.dma);
  if (const ConfigNode* s = r.take("scheduler")) readScheduler(*s, r.childPath("scheduler"), diag, proto.scheduler);
  if (const ConfigNode* a = r.take("aicore")) readAiCore(*a, r.childPath("aicore"), diag, proto.aicore);

  std::vector<std::string> ports;
  std::vector<Located> where;
  const ConfigNode* port = r.take("port");
  const ConfigNode* portList = r.take("ports");
  if (port && portList) {
    r.error("ports", "give either 'port' (one device) or 'ports' (a group), not both");
  } else if (port) {
    if (!port->isScalar()) {
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
      }
    }
  }
  if (!ports.empty() && ports.size() != count) {
    r.error(portList ? "ports" : "port", std::to_string(ports.size()) + " port(s) given for " +
                                              std::to_string(count) + " device(s); give one port per device");
  }
  if (ports.empty() && sys.runMode == RunMode::Host) {
    r.errorAtMap("missing 'port': in run mode host every device hangs on a PCIe port (for example port: rc.0)");
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
                 "switch name '" + sw.name + "' is used twice" + (sw.name == "rc" ? " ('rc' is the root complex)" : ""));
    }
    portCount[sw.name] = sw.ports;
  }
  std::map<std::string, std::string> occupant;  // port text -> who is plugged in
  auto plug = [&](const std::string& who, const std::string& portText, const Located& at) -> bool {
    auto ref = parsePortRef(portText);
    if (!ref) {
      diag.error(at.where, at.path, "'" + portText + "' is not a port; write OWNER.INDEX, e.g. rc.0 or sw0.3");
      return false;
    }
    auto owner = portCount.find(ref->owner);
    if (owner == portCount.end()) {
      std::vector<std::string> owners;
      for (const auto& [n, c] : portCount) owners.push_back(n);
      diag.error(at.where, at.path, "port '" + portText + "' names no switch or root complex called '" +
                                        ref->owner + "'" + FieldReader::suggestion(ref->owner, owners) +
                                        "; known: " + FieldReader::join(owners));
      return false;
    }
    if (ref->index >= owner->second) {
      diag.error(at.where, at.path, "port '" + portText + "' does not exist: '" + ref->owner + "' has " +
                                        std::to_string(owner->second) + " port(s), numbered from 0");
      return false;
    }
    auto [it, fresh] = occupant.emplace(ref->text(), who);
    if (!fresh) {
      diag.error(at.where, at.path, "port '" + portText + "' is already taken by " + it->second +
                                        "; one link per port");
      return false;
    }
    return true;
  };
  for (size_t i = 0; i < sys.switches.size(); ++i) {
    if (!sys.switches[i].upstream.empty()) plug("switch " + sys.switches[i].name, sys.switches[i].upstream, switchAt[i].upstream);
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
        diag.error(switchAt[i].upstream.where, switchAt[i].upstream.path,
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

}  // namespace

void readLink(const ConfigNode& node, const std::string& path, Diagnostics& diag, PcieLinkSpec& link) {
  FieldReader r(node, path, diag);
  const bool genGiven = r.integer("generation", link.generation, 1, 6);
  const double genRate = pcieGenerationRate(link.generation);
  if (genGiven) link.rate = genRate;
  if (r.transferRate("speed", link.rate, 2.5e9, 64e9)) {
    if (link.rate > genRate) {
      r.error("speed", formatTransferRate(link.rate) + " is faster than PCIe Gen" +
                           std::to_string(link.generation) + " allows (" + formatTransferRate(genRate) + " per lane)");
    } else if (link.rate != 2.5e9 && link.rate != 5e9 && link.rate != 8e9 && link.rate != 16e9 &&
               link.rate != 32e9 && link.rate != 64e9) {
      r.error("speed", formatTransferRate(link.rate) + " is not a PCIe speed; expected 2.5, 5, 8, 16, 32 or 64GT/s");
    }
  }
  r.integerOneOf("lanes", link.lanes, {1, 2, 4, 8, 16});
  r.bytesPowerOfTwo("mps", link.mps, 128, 4096);
  r.bytesPowerOfTwo("mrrs", link.mrrs, 128, 4096);
  uint32_t rcb = static_cast<uint32_t>(link.rcb);
  if (r.integerOneOf("rcb", rcb, {64, 128})) link.rcb = rcb;
  r.boolean("ecrc", link.ecrc);
  r.integer("tags", link.tags, 1, 4096);
  r.duration("latency", link.latency, 0, 100000000);
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

  if (const ConfigNode* t = r.take("trace")) {
    FieldReader tr(*t, "trace", diag);
    tr.text("path", sys.trace.path);
    tr.text("report", sys.trace.report);
    tr.duration("counter_interval", sys.trace.counterInterval, 1000, 1000000000000);
    tr.bytes("max_size", sys.trace.maxFileSize, 64 * 1024, 1ull << 50);
    tr.boolean("dram_stats", sys.trace.dramStats);
    tr.finish();
  }

  std::vector<Located> deviceAt;
  if (const ConfigNode* devs = r.require("devices")) {
    if (!devs->isList()) {
      r.error("devices", "expected a list of devices");
    } else {
      for (size_t i = 0; i < devs->items().size(); ++i) {
        readDeviceGroup(devs->items()[i], "devices[" + std::to_string(i) + "]", diag, sys, deviceAt);
      }
      if (devs->items().empty()) r.error("devices", "a machine needs at least one device");
    }
  }
  r.finish();
  if (sys.runMode == RunMode::Device && sys.devices.size() > 1) {
    r.error("run_mode", "run mode device (RC) runs the program on one device's CPU; this config has " +
                            std::to_string(sys.devices.size()) + " devices");
  }
  checkTopology(sys, switchAt, deviceAt, diag);
  return sys;
}

namespace {
SystemSpec finishLoading(const ConfigNode& root, Diagnostics& diag, std::vector<std::string> sources) {
  SystemSpec sys;
  if (diag.empty()) sys = readSystemSpec(root, diag);
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

SystemSpec defaultSystemSpec() { return loadSystemSpec("<builtin>/default.yaml"); }

}  // namespace ascendsim::spec
