#include "spec/machine_settings.h"

#include <cctype>

#include "spec/memory_fields.h"
#include "spec/setting_builders.h"
#include "spec/spec_readers.h"

namespace ascendsim::spec {
namespace {

using namespace settings;

constexpr Picoseconds kUs = 1000000;
constexpr Picoseconds kMs = 1000 * kUs;
constexpr Picoseconds kSecond = 1000 * kMs;

bool isIdentifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  }
  return true;
}

template <class Spec>
Setting<Spec> memorySection(DramSpec Spec::*member, std::string meaning) {
  return {"memory",
          std::move(meaning),
          "required",
          text("map"),
          false,
          [member](FieldReader& r, Spec& s, bool) {
            if (const ConfigNode* m = r.require("memory"))
              readMemory(*m, r.childPath("memory"), r.diagnostics(), s.*member);
          },
          [member](YAML::Emitter& out, const Spec& s) {
            out << YAML::Key << "memory" << YAML::Value;
            writeMemorySection(out, s.*member);
          },
          ""};
}

// ------------------------------------------------------------------ trace
Settings<TraceSpec> declareTrace() {
  Settings<TraceSpec> f;
  f.push_back(optionalText(
      "path", &TraceSpec::path,
      "trace file (Chrome Trace Event JSON; `.sqlite` or `.db`: SQLite, see traces.md)", "none",
      "file path", "run.json"));
  Setting<TraceSpec> format = kind(
      "format", &TraceSpec::format, "trace-format",
      "the trace's format, whatever its name; `ASCENDSIM_TRACE_FORMAT` overrides it", "sqlite");
  format.defaultText = "by extension";
  format.write = [](YAML::Emitter& out, const TraceSpec& t) {
    if (!t.format.empty()) emit(out, "format", t.format);
  };
  f.push_back(format);
  f.push_back(optionalText("report", &TraceSpec::report,
                           "report file (JSON; `.txt`: the readable summary; `.csv`: one table; "
                           "report.md)",
                           "none", "file path", "run-report.json"));
  Setting<TraceSpec> reportFormat =
      kind("report_format", &TraceSpec::reportFormat, "report-format",
           "the report's format, whatever its name; `ASCENDSIM_REPORT_FORMAT` overrides it", "csv");
  reportFormat.defaultText = "by extension, else `json`";
  reportFormat.write = [](YAML::Emitter& out, const TraceSpec& t) {
    if (!t.reportFormat.empty()) emit(out, "report_format", t.reportFormat);
  };
  f.push_back(reportFormat);
  f.push_back(duration("counter_interval", &TraceSpec::counterInterval, 1000, kSecond,
                       "how often bandwidth counters are sampled"));
  f.push_back(bytes("max_size", &TraceSpec::maxFileSize, 64 * 1024, 1ull << 50,
                    "past this size the trace continues in `NAME.1.json`, `NAME.2.json`, ... "
                    "(each well-formed, with the process and track names repeated), and the run "
                    "says so on stderr"));
  f.push_back(boolean("dram_stats", &TraceSpec::dramStats,
                      "replay the run's memory traffic through the DRAM models for row-hit, "
                      "refresh and latency statistics in the report and trace (models.md); "
                      "`ASCENDSIM_DRAM_STATS=1` or `0` overrides it"));
  return f;
}

// ------------------------------------------------------------------ host
Settings<SocketLinkSpec> declareSocketLink() {
  Settings<SocketLinkSpec> f;
  f.push_back(bandwidth("bandwidth", &SocketLinkSpec::bandwidth, 1e6, 1e13,
                        "per direction; the default is assumed, not measured (models.md, \"Host "
                        "buffers per NUMA node\"): set it from a far-node copy on the machine"));
  f.push_back(duration("latency", &SocketLinkSpec::latency, 0, 100 * kUs,
                       "one way (pcie-bench's remote-NUMA penalty by default); remote reads pay "
                       "it twice"));
  return f;
}

Settings<ApiOverheads> declareApiOverheads() {
  Settings<ApiOverheads> f;
  auto call = [&f](const char* key, Picoseconds ApiOverheads::*member, const char* meaning) {
    f.push_back(duration(key, member, 0, kSecond, meaning));
  };
  call("default", &ApiOverheads::defaultCall, "any call not listed");
  call("malloc", &ApiOverheads::malloc, "aclrtMalloc and its kin");
  call("free", &ApiOverheads::free, "aclrtFree and its kin");
  call("malloc_host", &ApiOverheads::mallocHost, "aclrtMallocHost (pinned host memory)");
  call("memcpy", &ApiOverheads::memcpy, "the software part of a synchronous copy");
  call("memcpy_async", &ApiOverheads::memcpyAsync, "enqueuing an asynchronous copy");
  call("memset", &ApiOverheads::memset, "the software part of a synchronous memset");
  call("memset_async", &ApiOverheads::memsetAsync, "enqueuing an asynchronous memset");
  call("event", &ApiOverheads::event, "an event's record, wait or reset");
  call("synchronize", &ApiOverheads::synchronize, "the wake-up after the awaited work ends");
  call("stream_create", &ApiOverheads::streamCreate, "creating a stream");
  call("kernel_launch", &ApiOverheads::kernelLaunch,
       "the second phase of an operator (`aclnnAdd`) or `ascendsimLaunchComputeTask`");
  call("fast_launch_stream_create", &ApiOverheads::fastLaunchStreamCreate,
       "creating an `ACL_STREAM_FAST_LAUNCH` stream, which takes its resources up front");
  call("fast_launch", &ApiOverheads::fastLaunch, "the most any enqueue on such a stream costs");
  call("fast_sync", &ApiOverheads::fastSync,
       "an `ACL_STREAM_FAST_SYNC` stream's synchronize (polled), instead of `synchronize`");
  call("model_execute", &ApiOverheads::modelExecute,
       "launching a model run instance (`aclmdlRIExecute`/`ExecuteAsync`): one launch for all "
       "its tasks (an estimate until calibrated)");
  return f;
}

Settings<HostSpec> declareHost() {
  Settings<HostSpec> f;
  f.push_back(memorySection(&HostSpec::memory, "host DDR, a [memory section](#memory-sections)"));
  Setting<HostSpec> socket =
      integer("memory_socket", &HostSpec::memorySocket, 0, 63,
              "the CPU socket (NUMA node) host buffers are allocated on; devices on other sockets "
              "reach it over `socket_link`. `thread`: first touch, as Linux places pages: an "
              "`aclrtMallocHost` buffer on the socket of the thread that allocated it, pageable "
              "and registered memory on the socket of the thread that copies it "
              "(`thread_sockets`). `local`: each device's host buffers on its own root port's "
              "socket (as nvbandwidth allocates them)");
  socket.allowed = text("a socket `pcie.root_complex.sockets` names, `thread` or `local`");
  socket.defaultText = "thread";
  socket.sample = "local";
  const auto readSocket = socket.read;
  socket.read = [readSocket](FieldReader& r, HostSpec& h, bool required) {
    const ConfigNode* v = r.take("memory_socket");
    if (v && v->isScalar() && v->value() == "local") {
      h.memoryPlacement = HostPlacement::Local;
    } else if (v && v->isScalar() && v->value() == "thread") {
      h.memoryPlacement = HostPlacement::Thread;
    } else if (v && v->isScalar() &&
               v->value().find_first_not_of("0123456789") != std::string::npos) {
      r.error("memory_socket",
              "expected a socket number, `thread` or `local`, got '" + v->value() + "'");
    } else if (v) {
      h.memoryPlacement = HostPlacement::Socket;
      readSocket(r, h, required);  // take() above only marked the key as known
    }
  };
  const auto writeSocket = socket.write;
  socket.write = [writeSocket](YAML::Emitter& out, const HostSpec& h) {
    if (h.memoryPlacement == HostPlacement::Local) {
      emit(out, "memory_socket", std::string("local"));
    } else if (h.memoryPlacement == HostPlacement::Thread) {
      emit(out, "memory_socket", std::string("thread"));
    } else {
      writeSocket(out, h);
    }
  };
  f.push_back(socket);
  f.push_back(
      {"thread_sockets",
       "the CPU socket each host thread of the program runs on, by the thread's number (the main "
       "thread 0, then in order of creation; under `exec --shared` each process numbers its own), "
       "e.g. `[0, 0, 1]`; threads past the end of the list "
       "take it again from the start (`[1]`: all on socket 1, as `numactl --cpunodebind=1`). "
       "With `memory_socket: thread` a thread's buffers live on its socket",
       "all on socket 0", text("a list of sockets `pcie.root_complex.sockets` names"), false,
       [](FieldReader& r, HostSpec& h, bool) {
         const ConfigNode* s = r.take("thread_sockets");
         if (!s) return;
         if (!s->isList() || s->items().empty()) {
           r.error("thread_sockets",
                   "expected a list with the CPU socket of each host thread, e.g. [0, 1]");
           return;
         }
         h.threadSockets.clear();
         for (const ConfigNode& item : s->items()) {
           char* end = nullptr;
           const unsigned long v =
               item.isScalar() ? std::strtoul(item.value().c_str(), &end, 10) : 64;
           if (!item.isScalar() || item.value().empty() || *end || v > 63) {
             r.diagnostics().error(item.where(), r.childPath("thread_sockets"),
                                   "a socket number from 0 to 63");
             return;
           }
           h.threadSockets.push_back(static_cast<uint32_t>(v));
         }
       },
       [](YAML::Emitter& out, const HostSpec& h) {
         if (h.threadSockets.empty()) return;
         out << YAML::Key << "thread_sockets" << YAML::Value << YAML::Flow << YAML::BeginSeq;
         for (uint32_t s : h.threadSockets) out << s;
         out << YAML::EndSeq;
       },
       ""});  // (a list: tests/spec/machine_settings_test.cpp sets it)
  f.push_back(section("socket_link", &HostSpec::socketLink, socketLinkSettings,
                      "the link between CPU sockets, map below", "map", true));
  f.push_back(bandwidth("cpu_copy_bandwidth", &HostSpec::cpuCopyBandwidth, 1e6, 1e13,
                        "bytes/s one CPU core copies; bounds pageable copies staged through a "
                        "pinned buffer"));
  f.push_back(integer("cpu_copy_engines", &HostSpec::cpuCopyEngines, 0, 1024,
                      "CPU cores staging pageable copies at once: 0 gives each host thread its own "
                      "(the calling thread stages its copy), N shares N cores between all threads "
                      "(in the order they first stage)"));
  f.push_back(bytes("staging_buffer", &HostSpec::stagingBufferSize, 4096, 1ull << 30,
                    "size of one pinned bounce-buffer chunk for pageable copies"));
  f.push_back(section("api_overhead", &HostSpec::apiOverhead, apiOverheadSettings,
                      "host time each AscendCL call costs, map below", "map"));
  return f;
}

// ------------------------------------------------------------------ PCIe
Settings<PcieLinkSpec> declarePcieLink() {
  Settings<PcieLinkSpec> f;
  Setting<PcieLinkSpec> generation =
      integer("generation", &PcieLinkSpec::generation, 1, 6, "PCIe generation");
  generation.read = [](FieldReader& r, PcieLinkSpec& l, bool) {
    if (r.integer("generation", l.generation, 1, 6)) {
      l.rate = pcieGenerationRate(l.generation);
      // Gen4 brought 10-bit tags (768 outstanding reads); before it 8-bit extended tags (256).
      l.tags = l.generation >= 4 ? 768 : 256;
    }
  };
  generation.sample = "3";
  f.push_back(generation);
  f.push_back({"speed", "per-lane rate, if trained below the generation's top rate",
               "the generation's: 2.5, 5, 8, 16, 32, 64 GT/s",
               text("a PCIe rate no faster than the generation allows"), false,
               [](FieldReader& r, PcieLinkSpec& l, bool) {
                 const double genRate = pcieGenerationRate(l.generation);
                 if (!r.transferRate("speed", l.rate, 2.5e9, 64e9)) return;
                 if (l.rate > genRate) {
                   r.error("speed", formatTransferRate(l.rate) + " is faster than PCIe Gen" +
                                        std::to_string(l.generation) + " allows (" +
                                        formatTransferRate(genRate) + " per lane)");
                 } else if (l.rate != 2.5e9 && l.rate != 5e9 && l.rate != 8e9 && l.rate != 16e9 &&
                            l.rate != 32e9 && l.rate != 64e9) {
                   r.error("speed",
                           formatTransferRate(l.rate) +
                               " is not a PCIe speed; expected 2.5, 5, 8, 16, 32 or 64GT/s");
                 }
               },
               // The speed follows the generation unless the link trained below it.
               [](YAML::Emitter& out, const PcieLinkSpec& l) {
                 if (l.rate != pcieGenerationRate(l.generation))
                   emit(out, "speed", formatTransferRate(l.rate));
               },
               "8GT/s"});
  f.push_back(oneOf("lanes", &PcieLinkSpec::lanes, {1, 2, 4, 8, 16}, "link width"));
  f.push_back(powerOfTwoBytes("mps", &PcieLinkSpec::mps, 128, 4096, "max payload size"));
  f.push_back(powerOfTwoBytes("mrrs", &PcieLinkSpec::mrrs, 128, 4096, "max read request size"));
  f.push_back({"rcb", "read completion boundary, bytes", "64", text("64, 128"), false,
               [](FieldReader& r, PcieLinkSpec& l, bool) {
                 uint32_t rcb = static_cast<uint32_t>(l.rcb);
                 if (r.integerOneOf("rcb", rcb, {64, 128})) l.rcb = rcb;
               },
               [](YAML::Emitter& out, const PcieLinkSpec& l) { emit(out, "rcb", l.rcb); }, "128"});
  f.push_back(boolean("ecrc", &PcieLinkSpec::ecrc, "end-to-end CRC (4 B per TLP)"));
  Setting<PcieLinkSpec> tags =
      integer("tags", &PcieLinkSpec::tags, 1, 4096,
              "outstanding non-posted read requests of the whole device (all DMA channels)");
  tags.defaultText = "768 from Gen4 (10-bit tags), 256 before (8-bit extended tags)";
  f.push_back(tags);
  f.push_back(duration("latency", &PcieLinkSpec::latency, 0, 100 * kUs,
                       "one-way PHY and propagation latency"));
  return f;
}

Settings<RootComplexSpec> declareRootComplex() {
  Settings<RootComplexSpec> f;
  f.push_back(
      integer("ports", &RootComplexSpec::ports, 1, 64, "root ports, named `rc.0`, `rc.1`, ..."));
  f.push_back(duration("latency", &RootComplexSpec::latency, 0, 100 * kUs,
                       "one way from a root port to host memory"));
  f.push_back(boolean("completions_at_rcb", &RootComplexSpec::completionsAtRcb,
                      "split read completions at the device link's `rcb` instead of at MPS, as "
                      "some older root complexes do"));
  f.push_back(fraction("efficiency", &RootComplexSpec::efficiency, 0.05, 1.0,
                       "share of each root port's TLP rate the host bridge sustains (IOMMU, "
                       "ordering, coherence); `ascendsim calibrate` fits it to a measured machine",
                       "the share of each root port's TLP rate the host sustains"));
  f.push_back(boolean("peer_to_peer", &RootComplexSpec::peerToPeer,
                      "whether the host bridge forwards peer-to-peer traffic between its root "
                      "ports (devices with no shared switch or device link)"));
  f.push_back(bandwidthLimit(
      "bridge_bandwidth", &RootComplexSpec::bridgeBandwidth, 1e6, 1e14,
      "payload bytes/s each socket's host bridge (root complex, IIO) passes in each direction, "
      "all its root ports together: inbound the devices' writes to host memory, outbound the read "
      "data going out as completions (peer traffic the bridge forwards is not counted); "
      "`unlimited`: each root port's link and host memory bound the traffic. No preset sets it: "
      "no per-socket figure is published in the references"));
  f.push_back(bandwidthLimit(
      "bridge_inbound_bandwidth", &RootComplexSpec::bridgeInboundBandwidth, 1e6, 1e14,
      "payload bytes/s each socket's host bridge passes inbound only (devices writing host "
      "memory), all its root ports together; with `bridge_bandwidth` the smaller binds"));
  f.push_back(bandwidthLimit(
      "bridge_outbound_bandwidth", &RootComplexSpec::bridgeOutboundBandwidth, 1e6, 1e14,
      "payload bytes/s each socket's host bridge passes outbound only (host memory read by "
      "devices, as completions), all its root ports together; with `bridge_bandwidth` the "
      "smaller binds"));
  f.push_back(bandwidthLimit(
      "port_bandwidth", &RootComplexSpec::portBandwidth, 1e6, 1e14,
      "payload bytes/s each root port (the host interface behind it) passes in both directions "
      "together: the device's writes into host memory plus the host memory it reads; "
      "`unlimited`: each direction's link rate binds"));
  f.push_back(fraction("port_read_share", &RootComplexSpec::portReadShare, 0.01, 0.99,
                       "the share of `port_bandwidth` read completions (host to device) get while "
                       "the device also writes host memory; the writes get the rest, a direction "
                       "alone all of it. Host memory under reads and writes at once gives reads "
                       "the same share of its mixed-traffic rate",
                       "the read completions' share of a busy root port"));
  f.push_back(
      {"sockets",
       "the CPU socket of each root port, e.g. `[0, 0, 1, 1]`; devices on different sockets are "
       "never peers (ACL_RT_DEVS_TOPOLOGY_SYS)",
       "all on socket 0", text("one number 0 .. 63 per port"), false,
       [](FieldReader& r, RootComplexSpec& rc, bool) {
         const ConfigNode* s = r.take("sockets");
         if (!s) return;
         if (!s->isList()) {
           r.error("sockets",
                   "expected a list with the CPU socket of each root port, e.g. [0, 0, 1, 1]");
           return;
         }
         rc.portSockets.clear();
         for (const ConfigNode& item : s->items()) {
           char* end = nullptr;
           const unsigned long v =
               item.isScalar() ? std::strtoul(item.value().c_str(), &end, 10) : 64;
           if (!item.isScalar() || item.value().empty() || *end || v > 63) {
             r.diagnostics().error(item.where(), r.childPath("sockets"),
                                   "a socket number from 0 to 63");
             return;
           }
           rc.portSockets.push_back(static_cast<uint32_t>(v));
         }
         if (rc.portSockets.size() != rc.ports) {
           r.error("sockets", std::to_string(rc.portSockets.size()) + " socket(s) listed for " +
                                  std::to_string(rc.ports) + " root port(s); give one per port");
         }
       },
       [](YAML::Emitter& out, const RootComplexSpec& rc) {
         if (rc.portSockets.empty()) return;
         out << YAML::Key << "sockets" << YAML::Value << YAML::Flow << YAML::BeginSeq;
         for (uint32_t s : rc.portSockets) out << s;
         out << YAML::EndSeq;
       },
       ""});
  return f;
}

Settings<PcieSwitchSpec> declareSwitch() {
  Settings<PcieSwitchSpec> f;
  f.push_back(
      {"name", "the switch's name; its downstream ports are `NAME.0`, `NAME.1`, ...", "required",
       text("letters, digits, `_`, `-`; unique; not `rc`"), false,
       [](FieldReader& r, PcieSwitchSpec& sw, bool) {
         if (r.text("name", sw.name, true) && !isIdentifier(sw.name)) {
           r.error("name", "'" + sw.name + "' is not a valid name (letters, digits, '_' and '-')");
         }
       },
       [](YAML::Emitter& out, const PcieSwitchSpec& sw) { emit(out, "name", sw.name); }, ""});
  f.push_back(
      {"upstream",
       "the port its upstream link plugs into, or a list of root ports for several uplinks (each "
       "a `link`; host traffic takes one into its buffer's socket, devices spread over them by "
       "downstream port, models.md)",
       "required",
       text("`rc.N` or `SWITCH.N`, existing and free; the switches must form a tree under `rc`; "
            "a list: distinct `rc.N` ports"),
       false,
       [](FieldReader& r, PcieSwitchSpec& sw, bool) {
         const ConfigNode* v = r.take("upstream");
         if (!v || !v->isList()) {
           r.text("upstream", sw.upstream, true);
           return;
         }
         sw.moreUpstreams.clear();
         if (v->items().empty()) {
           r.error("upstream", "expected a port or a list of root ports, e.g. [rc.0, rc.1]");
           return;
         }
         for (size_t i = 0; i < v->items().size(); ++i) {
           const ConfigNode& item = v->items()[i];
           if (!item.isScalar() || item.value().empty()) {
             r.diagnostics().error(item.where(), r.childPath("upstream"),
                                   "expected a port such as rc.0");
             return;
           }
           if (i == 0) {
             sw.upstream = item.value();
           } else {
             sw.moreUpstreams.push_back(item.value());
           }
         }
       },
       [](YAML::Emitter& out, const PcieSwitchSpec& sw) {
         if (sw.moreUpstreams.empty()) {
           emit(out, "upstream", sw.upstream);
           return;
         }
         out << YAML::Key << "upstream" << YAML::Value << YAML::Flow << YAML::BeginSeq
             << sw.upstream;
         for (const std::string& p : sw.moreUpstreams) out << p;
         out << YAML::EndSeq;
       },
       ""});
  f.push_back(integer("ports", &PcieSwitchSpec::ports, 1, 128, "downstream ports"));
  f.push_back(duration("latency", &PcieSwitchSpec::latency, 0, 10 * kUs,
                       "cut-through port-to-port latency"));
  f.push_back(section("link", &PcieSwitchSpec::link, pcieLinkSettings,
                      "the upstream link, a [link section](#link-sections)", "map"));
  return f;
}

// ------------------------------------------------------------------ devices
Settings<DmaSpec> declareDma() {
  Settings<DmaSpec> f;
  f.push_back(kind("model", &DmaSpec::model, "dma-model",
                   "copy timing implementation of this device's DMA engines (devices may differ; "
                   "a copy is timed by the model of the device whose engine moves it): `pcie` "
                   "(chunks through the PCIe protocol, switches, root complex and memories, see "
                   "models.md) or `fixed-rate` (bytes over the narrowest rate on the path)",
                   "fixed-rate"));
  f.push_back(integer("engines", &DmaSpec::engines, 1, 64, "DMA (SDMA) engines"));
  f.push_back(integer("channels_per_engine", &DmaSpec::channelsPerEngine, 1, 64,
                      "channels per engine; each runs one copy task at a time"));
  f.push_back(automatic(
      "outstanding_reads", &DmaSpec::outstandingReads,
      "read requests (each at most MRRS) one DMA channel keeps in flight; `auto` derives it by "
      "Little's law: the device link's read rate x the round trip to host memory / MRRS (for 2D "
      "rows narrower than MRRS, which are a request each: their completion rate and width), plus "
      "a quarter; the link's `tags` cap it",
      "`auto`", "`auto`, 1 .. 4096", "64",
      [](FieldReader& r, DmaSpec& d) {
        r.integer("outstanding_reads", d.outstandingReads, 1, 4096);
      },
      [](uint32_t v) { return std::to_string(v); }));
  Setting<DmaSpec> chunk = bytes("chunk_size", &DmaSpec::chunkSize, 64, 64ull << 20,
                                 "bytes per DMA chunk", ", multiple of 64 B");
  chunk.read = [](FieldReader& r, DmaSpec& d, bool) {
    if (r.bytes("chunk_size", d.chunkSize, 64, 64ull << 20) && d.chunkSize % 64 != 0)
      r.error("chunk_size", "chunk_size must be a multiple of 64B");
  };
  f.push_back(chunk);
  f.push_back(duration("setup_latency", &DmaSpec::setupLatency, 0, kSecond,
                       "descriptor fetch and channel setup per task: a copy or memset is one "
                       "descriptor (an SDMA submission-queue entry) whatever its size, so its "
                       "fetch is part of this once-per-task time, not a per-chunk cost (assumed)"));
  f.push_back(bandwidthLimit(
      "engine_bandwidth", &DmaSpec::engineBandwidth, 1e6, 1e14,
      "bytes/s one engine moves, shared by all its channels (copies inside device memory, to and "
      "from the host and peers, memsets); `unlimited`: the engine sets no limit of its own, so "
      "copies are bound by the links and memories they cross. No preset sets it: no SDMA engine "
      "rate is published (HCCL's own task model in hcomm's `task_profiling.h` estimates 19.3 GB/s "
      "per SDMA task, which is below the PCIe rates pinned copies reach, so it is not an engine's "
      "limit). `fixed-rate` caps each copy at it"));
  return f;
}

Settings<SchedulerSpec> declareScheduler() {
  Settings<SchedulerSpec> f;
  f.push_back(integer("max_streams", &SchedulerSpec::maxStreams, 1, 65536,
                      "streams per device, default and internal ones included"));
  f.push_back(integer("max_events", &SchedulerSpec::maxEvents, 1, 1 << 20, "events per device"));
  f.push_back(integer("queue_depth", &SchedulerSpec::queueDepth, 1, 1 << 20,
                      "tasks one stream holds that have not ended at the launching thread's time "
                      "(a launch into a full stream waits for a slot; see runtime.md)"));
  f.push_back(duration("task_launch", &SchedulerSpec::taskLaunch, 0, kSecond,
                       "from a task reaching the head of its stream to its start"));
  return f;
}

Settings<AiCoreSpec> declareAiCore() {
  Settings<AiCoreSpec> f;
  f.push_back(integer("cores", &AiCoreSpec::cores, 1, 1024,
                      "cores an elementwise kernel spreads over (910B: the vector cores, two per "
                      "AI Core)"));
  f.push_back(frequency("clock", &AiCoreSpec::clock, 1e6, 10e9, "core clock"));
  f.push_back(integer("vector_bytes_per_cycle", &AiCoreSpec::vectorBytesPerCycle, 1, 65536,
                      "vector unit width per core: 64 float32 or 128 float16 operations per cycle "
                      "at 256"));
  f.push_back(integer("read_bytes_per_cycle", &AiCoreSpec::readBytesPerCycle, 1, 65536,
                      "bytes per cycle one core loads from device memory into its buffer (an "
                      "Ascend C kernel's MTE2)"));
  f.push_back(integer("write_bytes_per_cycle", &AiCoreSpec::writeBytesPerCycle, 1, 65536,
                      "bytes per cycle one core stores from its buffer to device memory (an "
                      "Ascend C kernel's MTE3)"));
  f.push_back(integer("scalar_ops_per_cycle", &AiCoreSpec::scalarOpsPerCycle, 1, 64,
                      "scalar instructions one core runs per cycle (an Ascend C kernel's scalar "
                      "code and instruction issue, docs/ascendc.md#timing)"));
  f.push_back(bytes("tile_size", &AiCoreSpec::tileSize, 512, 64ull << 20,
                    "bytes of traffic per tile, the grain at which a kernel books device memory; "
                    "each core has two tiles in flight (double buffering)"));
  f.push_back(duration("start_latency", &AiCoreSpec::startLatency, 0, kSecond,
                       "from a kernel's start to its cores running (block dispatch)"));
  // Ascend C moves data in and out of the Unified Buffer in 32-byte blocks.
  f.push_back(automatic(
      "unified_buffer", &AiCoreSpec::unifiedBuffer,
      "Unified Buffer per core that runs vector kernels: what "
      "`aclrtGetDeviceInfo(ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE)` answers and the on-chip space an "
      "Ascend C kernel's `TPipe` buffers may take",
      "`auto`: the SoC's, `192KiB` for `Ascend910B*` and `Ascend910_93*` (vector cores), "
      "`256KiB` for other SoCs and when `soc` is not given",
      "`auto`, 1KiB .. 16MiB, multiple of 32 B", "96KiB",
      [](FieldReader& r, AiCoreSpec& a) {
        if (r.bytes("unified_buffer", a.unifiedBuffer, 1024, 16ull << 20) &&
            a.unifiedBuffer % 32 != 0) {
          r.error("unified_buffer",
                  "unified_buffer must be a multiple of 32B (Ascend C's data block)");
        }
      },
      formatBytes));
  return f;
}

Settings<DeviceSpec> declareDevice() {
  Settings<DeviceSpec> f;
  f.push_back(optionalText("model", &DeviceSpec::model,
                           "free text shown in reports (\"Ascend 910B\")", "empty", "text",
                           "Ascend 910B"));
  f.push_back(
      {"soc",
       "the SoC version `aclrtGetSocName` returns (CANN's names: `Ascend910B4`, `Ascend310P3`, "
       "...)",
       "empty (aclrtGetSocName returns NULL)", text("`Ascend` followed by letters, digits or `_`"),
       false,
       [](FieldReader& r, DeviceSpec& d, bool) {
         if (!r.text("soc", d.soc)) return;
         // CANN's SoC versions: "Ascend" and letters, digits or underscores ("Ascend910B4",
         // "Ascend910_9391").
         bool ok = d.soc.size() > 6 && d.soc.compare(0, 6, "Ascend") == 0;
         for (char c : d.soc) ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '_');
         if (!ok)
           r.error("soc",
                   "'" + d.soc + "' is not a SoC version such as Ascend910B4 or Ascend310P3");
       },
       [](YAML::Emitter& out, const DeviceSpec& d) {
         if (!d.soc.empty()) emit(out, "soc", d.soc);
       },
       "Ascend310P3"});
  Setting<DeviceSpec> link =
      section("link", &DeviceSpec::link, pcieLinkSettings,
              "the device's PCIe link, a [link section](#link-sections)", "map");
  link.defaultText = "Gen4 x16";
  f.push_back(link);
  f.push_back(memorySection(&DeviceSpec::memory,
                            "device memory (HBM, LPDDR), a [memory section](#memory-sections)"));
  f.push_back(section("dma", &DeviceSpec::dma, dmaSettings, "DMA engines, below", "map"));
  f.push_back(section("scheduler", &DeviceSpec::scheduler, schedulerSettings,
                      "stream and event limits, below", "map"));
  f.push_back(section("aicore", &DeviceSpec::aicore, aiCoreSettings,
                      "the AI Cores that run kernels, below", "map"));
  return f;
}

// ------------------------------------------------------------------ links between devices
Settings<DeviceLinkSpec> declareDeviceLink() {
  Settings<DeviceLinkSpec> f;
  f.push_back(
      {"model", "kind of link", "required",
       [] { return quotedList(kinds::kindNames("device-link")); }, false,
       [](FieldReader& r, DeviceLinkSpec& l, bool) {
         const ConfigNode* m = r.take("model");
         const std::vector<std::string> names = kinds::kindNames("device-link");
         if (!m) {
           r.errorAtMap("missing 'model': the kind of link (" + FieldReader::join(names) + ")");
         } else if (!m->isScalar() || !kinds::findKind("device-link", m->value())) {
           r.diagnostics().error(
               m->where(), r.childPath("model"),
               "'" + (m->isScalar() ? m->value() : std::string("?")) +
                   "' is not a kind of device link; expected one of " + FieldReader::join(names) +
                   (m->isScalar() ? FieldReader::suggestion(m->value(), names) : ""));
         } else {
           l.model = m->value();
         }
       },
       [](YAML::Emitter& out, const DeviceLinkSpec& l) { emit(out, "model", l.model); }, ""});
  f.push_back(oneOf("lanes", &DeviceLinkSpec::lanes, {1, 2, 4, 8, 16}, "lanes per direction"));
  f.push_back({"speed", "per-lane rate (one bit per transfer)", "`56GT/s`",
               text("up to the kind's fastest (`ascendsim config kinds`: HCCS 56 GT/s, 910B)"),
               false,
               [](FieldReader& r, DeviceLinkSpec& l, bool) {
                 double maxRate = 0;
                 if (const kinds::KindInfo* kind = kinds::findKind("device-link", l.model)) {
                   auto limit = kind->limits.find("max_lane_rate");
                   if (limit != kind->limits.end()) maxRate = limit->second;
                 }
                 if (r.transferRate("speed", l.rate, 1e9, 1e12) && l.rate > maxRate) {
                   r.error("speed", formatTransferRate(l.rate) + " per lane is faster than any " +
                                        l.model + " link runs (" + formatTransferRate(maxRate) +
                                        " per lane at most)");
                 }
               },
               [](YAML::Emitter& out, const DeviceLinkSpec& l) {
                 emit(out, "speed", formatTransferRate(l.rate));
               },
               "28GT/s"});
  f.push_back(
      bytes("packet_payload", &DeviceLinkSpec::packetPayload, 16, 4096, "data bytes per packet"));
  f.push_back(integer("packet_overhead", &DeviceLinkSpec::packetOverhead, 0, 256,
                      "header, CRC and framing bytes per packet"));
  f.push_back(duration("latency", &DeviceLinkSpec::latency, 0, 100 * kUs, "one way, port to port"));
  f.push_back(bandwidthLimit("transfer_rate", &DeviceLinkSpec::transferRate, 1e6, 1e14,
                             "the most one DMA transfer (one channel's copy) moves over the link; "
                             "transfers on several channels share the wire. `unlimited`: only the "
                             "wire limits"));
  return f;
}

// ------------------------------------------------------------------ clusters
Settings<NicSpec> declareNic() {
  Settings<NicSpec> f;
  f.push_back(kind("model", &NicSpec::model, "nic", "kind of NIC", ""));
  Setting<NicSpec> rate = bandwidth("rate", &NicSpec::rate, 1e6, 1e13,
                                    "per direction (25GB/s is 200 Gb/s; `Gb/s` is accepted)");
  rate.allowed = text("1MB/s .. the kind's fastest (`ascendsim config kinds`)");
  rate.sample = "50GB/s";
  rate.read = [](FieldReader& r, NicSpec& nic, bool) {
    if (!r.bandwidth("rate", nic.rate, 1e6, 1e13)) return;
    if (const kinds::KindInfo* kind = kinds::findKind("nic", nic.model)) {
      auto limit = kind->limits.find("max_rate");
      if (limit != kind->limits.end() && nic.rate > limit->second) {
        r.error("rate", "a " + nic.model + " NIC runs at most " +
                            std::to_string(static_cast<int>(limit->second * 8 / 1e9)) + " Gb/s");
      }
    }
  };
  f.push_back(rate);
  f.push_back(duration("latency", &NicSpec::latency, 0, kMs,
                       "the NIC's own, one way (DMA to wire and wire to DMA)"));
  f.push_back(bytes("mtu", &NicSpec::mtu, 256, 9000, "payload bytes per frame"));
  f.push_back(integer("frame_overhead", &NicSpec::frameOverhead, 0, 1024,
                      "bytes per frame besides payload (RoCE v2 / IPv4 / Ethernet with preamble "
                      "and gap: 82)"));
  return f;
}

Settings<NetworkSwitchSpec> declareNetworkSwitch() {
  Settings<NetworkSwitchSpec> f;
  f.push_back(kind("model", &NetworkSwitchSpec::model, "network-switch", "kind of switch", ""));
  f.push_back(bandwidth("port_rate", &NetworkSwitchSpec::portRate, 1e6, 1e13,
                        "per port per direction; a NIC runs at the slower of its rate and this "
                        "(50GB/s is 400 Gb/s)"));
  f.push_back(duration("latency", &NetworkSwitchSpec::latency, 0, kMs, "port to port"));
  return f;
}

}  // namespace

#define ASCENDSIM_SETTINGS(function, Spec, declare)   \
  const Settings<Spec>& function() {                  \
    static const Settings<Spec> settings = declare(); \
    return settings;                                  \
  }
ASCENDSIM_SETTINGS(traceSettings, TraceSpec, declareTrace)
ASCENDSIM_SETTINGS(hostSettings, HostSpec, declareHost)
ASCENDSIM_SETTINGS(socketLinkSettings, SocketLinkSpec, declareSocketLink)
ASCENDSIM_SETTINGS(apiOverheadSettings, ApiOverheads, declareApiOverheads)
ASCENDSIM_SETTINGS(rootComplexSettings, RootComplexSpec, declareRootComplex)
ASCENDSIM_SETTINGS(switchSettings, PcieSwitchSpec, declareSwitch)
ASCENDSIM_SETTINGS(pcieLinkSettings, PcieLinkSpec, declarePcieLink)
ASCENDSIM_SETTINGS(deviceSettings, DeviceSpec, declareDevice)
ASCENDSIM_SETTINGS(dmaSettings, DmaSpec, declareDma)
ASCENDSIM_SETTINGS(schedulerSettings, SchedulerSpec, declareScheduler)
ASCENDSIM_SETTINGS(aiCoreSettings, AiCoreSpec, declareAiCore)
ASCENDSIM_SETTINGS(deviceLinkSettings, DeviceLinkSpec, declareDeviceLink)
ASCENDSIM_SETTINGS(nicSettings, NicSpec, declareNic)
ASCENDSIM_SETTINGS(networkSwitchSettings, NetworkSwitchSpec, declareNetworkSwitch)
#undef ASCENDSIM_SETTINGS

void writeMemorySection(YAML::Emitter& out, const DramSpec& memory) {
  out << YAML::BeginMap;
  writeSettings(memoryFields(), out, memory);
  out << YAML::EndMap;
}

std::vector<SettingsTable> settingsTables() {
  return {{"trace", settingRows(traceSettings())},
          {"host", settingRows(hostSettings())},
          {"host.socket_link", settingRows(socketLinkSettings())},
          {"host.api_overhead", settingRows(apiOverheadSettings())},
          {"pcie.root_complex", settingRows(rootComplexSettings())},
          {"pcie.switches[]", settingRows(switchSettings())},
          {"devices[]", settingRows(deviceSettings())},
          {"devices[].dma", settingRows(dmaSettings())},
          {"devices[].scheduler", settingRows(schedulerSettings())},
          {"devices[].aicore", settingRows(aiCoreSettings())},
          {"link", settingRows(pcieLinkSettings())},
          {"device_links[]", settingRows(deviceLinkSettings())},
          {"cluster.nic", settingRows(nicSettings())},
          {"cluster.switch", settingRows(networkSwitchSettings())},
          {"memory", settingRows(memoryFields())}};
}

const SettingsTable* findSettingsTable(const std::vector<SettingsTable>& tables,
                                       const std::string& section) {
  for (const SettingsTable& t : tables) {
    if (t.section == section) return &t;
  }
  return nullptr;
}

std::string settingsMarkdown(const std::vector<SettingRow>& rows) {
  std::string out = "| key | meaning | default | allowed |\n|---|---|---|---|\n";
  for (const SettingRow& r : rows) {
    out += "| `" + r.key + "` | " + r.meaning + " | " + r.defaultText + " | " + r.allowed + " |\n";
  }
  return out;
}

}  // namespace ascendsim::spec
