#pragma once
// Plain descriptions of a simulated machine, parsed and validated from YAML by loadSystemSpec().
// Models and the runtime are built from these structs and never see YAML.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "spec/units.h"

namespace ascendsim::spec {

// ---------------------------------------------------------------- memory (HBM, LPDDR, DDR)
enum class PagePolicy { Open, Closed };
// Whether the pseudo-channels of a channel share its command buses: as the standard has it (HBM:
// shared), shared, or a bus per pseudo-channel (what a simulator that makes each pseudo-channel a
// channel of its own has).
enum class CommandBusSharing { Standard, Shared, PerPseudoChannel };

// JEDEC timing constraints in clock cycles of the memory clock (tCK).
struct DramTimings {
  uint32_t tCL = 0, tCWL = 0, tRCDRD = 0, tRCDWR = 0, tRP = 0, tRAS = 0, tRC = 0;
  uint32_t tCCD_S = 0, tCCD_L = 0, tRRD_S = 0, tRRD_L = 0, tFAW = 0;
  uint32_t tWR = 0, tWTR_S = 0, tWTR_L = 0, tRTW = 0, tRTP = 0;
  uint32_t tREFI = 0, tRFC = 0, tRFCpb = 0;  // tRFCpb 0: no per-bank refresh
  uint32_t tCCDR = 0;                        // read to read on another rank / stack id; 0: tCCD_S
};

struct DramSpec {
  std::string preset;            // the named preset it started from ("hbm2e"), for reports
  std::string model = "banked";  // implementation name, chosen in YAML
  // How copies and kernels are timed on it: "sustained" (bytes at the rate `model` sustains for
  // sequential traffic) or "cycle" (every burst at its address through `model`).
  std::string timing = "sustained";
  std::string standard = "HBM2E";  // a registered DRAM standard (models/dram/standards/)
  uint64_t capacity = 0;           // bytes
  // Organisation. For DDR and LPDDR, `stacks` counts DIMMs or packages (usually 1).
  uint32_t stacks = 1;
  uint32_t channels = 8;        // per stack
  uint32_t pseudoChannels = 1;  // per channel (HBM pseudo-channels, DDR5 sub-channels)
  uint32_t ranks = 1;           // per (pseudo-)channel
  uint32_t bankGroups = 4;
  uint32_t banksPerGroup = 4;
  uint64_t pageSize = 1024;  // row size in bytes, per (pseudo-)channel
  uint32_t busWidth = 64;    // data bits per (pseudo-)channel
  uint32_t burstLength = 4;
  double clock = 1e9;     // Hz (tCK = 1 / clock)
  double dataRate = 2e9;  // transfers per second per pin
  DramTimings timings;
  PagePolicy pagePolicy = PagePolicy::Open;
  CommandBusSharing commandBus = CommandBusSharing::Standard;
  uint32_t queueDepth = 32;      // read queue entries per (pseudo-)channel
  uint32_t writeQueueDepth = 0;  // write queue entries per (pseudo-)channel; 0: as queueDepth
  // Write drain: writes go while the write queue holds more than high x its depth (or no read
  // waits), until it holds fewer than low x its depth while reads wait.
  double writeHighWatermark = 0.8, writeLowWatermark = 0.2;
  // Writes held back on the memory side so that reads go first, then sent together (the
  // controllers' write queues and the write-back cache in front of them); 0: none.
  uint64_t writeBuffer = 1ull << 20;
  // Banked model: drains that repeat one seen before are replayed, not issued burst by burst
  // (the same commands; models/dram/dram_channel_replay.cpp).
  bool drainReplay = true;
  uint32_t starvationCap = 16;  // times the oldest request may be passed over before it must go
  std::string addressMapping = "interleaved";  // see spec/address_mapping.h
  uint64_t interleaveGranule = 256;  // bytes placed on one channel before moving to the next

  // Derived figures.
  uint32_t effectiveWriteQueueDepth() const {
    return writeQueueDepth ? writeQueueDepth : queueDepth;
  }
  uint64_t rows() const;                 // rows per bank
  uint64_t burstBytes() const;           // bytes moved by one burst on one (pseudo-)channel
  uint32_t independentChannels() const;  // stacks x channels x pseudo-channels
  double peakBandwidth() const;          // bytes/s over every channel
  Picoseconds tCK() const;
};

// ---------------------------------------------------------------- PCIe
struct PcieLinkSpec {
  uint32_t generation = 4;  // 1..6
  uint32_t lanes = 16;      // 1, 2, 4, 8, 16
  double rate = 16e9;       // transfers/s per lane; defaults to the generation's top rate
  uint64_t mps = 256;       // max payload size, bytes
  uint64_t mrrs = 512;      // max read request size, bytes
  uint64_t rcb = 64;        // read completion boundary, bytes
  bool ecrc = false;
  uint32_t tags = 768;      // outstanding non-posted (read) requests the requester may have:
                            // 256 (8-bit extended tags) up to Gen3, 768 (10-bit tags) from Gen4
  Picoseconds latency = 0;  // one-way propagation and PHY latency

  // Bytes/s of the raw line after encoding (128b/130b from Gen3 on, FLIT for Gen6).
  double lineBandwidth() const;
};

struct RootComplexSpec {
  uint32_t ports = 4;
  Picoseconds latency = 100000;  // from the root port to host memory, one way
  bool completionsAtRcb =
      false;  // split read completions at the RCB instead of at MPS (older chipsets)
  // Share of each root port's TLP bandwidth the host bridge sustains (1: the link is the limit).
  // Real hosts lose a few percent to the IOMMU, coherence and ordering; `ascendsim calibrate` fits
  // it.
  double efficiency = 1.0;
  // Payload bytes/s each socket's host bridge passes in each direction, all its root ports
  // together (inbound: devices' writes to host memory; outbound: read completions to devices);
  // 0: no limit of its own (each root port's link and host memory bound the traffic).
  double bridgeBandwidth = 0;
  // The same limit for one direction only (0: none of its own); a direction passes at most the
  // smallest limit set for it.
  double bridgeInboundBandwidth = 0;
  double bridgeOutboundBandwidth = 0;
  // Payload bytes/s one root port (the host interface behind it) passes in both directions
  // together: the device's writes into host memory plus the read data going out to it. 0: no
  // limit (each direction's link rate binds).
  double portBandwidth = 0;
  // The share of `portBandwidth` read completions (host memory read by the device) get while
  // writes flow in the other direction; the writes get the rest. A direction alone may use all of
  // it.
  double portReadShare = 0.5;
  // Bytes/s the host bridge passes in one direction, 0 when nothing limits it.
  double bridgeRate(bool inbound) const;
  // Whether the host bridge forwards peer-to-peer traffic between its root ports (devices under
  // different switches of one socket); many chipsets do not, and then only a shared switch or a
  // device link makes two devices peers.
  bool peerToPeer = false;
  // The CPU socket (NUMA node) each root port belongs to; empty: all on socket 0.
  std::vector<uint32_t> portSockets;
  uint32_t socketOfPort(uint32_t port) const {
    return port < portSockets.size() ? portSockets[port] : 0;
  }
  uint32_t sockets() const;  // how many sockets the ports name (at least 1)
};

struct PcieSwitchSpec {
  std::string name;
  std::string upstream;  // "rc.0" or "sw0.3": the port this switch's upstream link plugs into
  // Further uplinks, each into a root port ("rc.N") with the same `link` (a switch wired to several
  // root ports, `upstream: [rc.0, rc.1]`). Host traffic takes an uplink into the socket its buffer
  // lives on when there is one, else any; among those a device takes the one its downstream port
  // picks (port index modulo their number). Peer traffic and topology follow `upstream`.
  std::vector<std::string> moreUpstreams;
  uint32_t ports = 4;            // downstream ports
  Picoseconds latency = 105000;  // cut-through port-to-port
  PcieLinkSpec link;             // the upstream link
};

// A port address such as "rc.2" or "sw1.0".
struct PortRef {
  std::string owner;  // "rc" or a switch name
  uint32_t index = 0;
  std::string text() const { return owner + "." + std::to_string(index); }
};
std::optional<PortRef> parsePortRef(const std::string& text);

// ---------------------------------------------------------------- host
struct ApiOverheads {
  Picoseconds defaultCall = 200000;
  Picoseconds malloc = 2000000;
  Picoseconds free = 1000000;
  Picoseconds mallocHost = 5000000;
  Picoseconds memcpy = 8000000;       // software part of a synchronous copy
  Picoseconds memcpyAsync = 3000000;  // enqueue cost of an asynchronous copy
  Picoseconds memset = 5000000;
  Picoseconds memsetAsync = 3000000;
  Picoseconds event = 1000000;        // record / wait / reset
  Picoseconds synchronize = 2000000;  // wake-up after the awaited work completes
  Picoseconds streamCreate = 10000000;
  Picoseconds kernelLaunch = 5000000;  // an operator's launch (aclnnAdd...): 2-7 us on GPU runtimes
  // Streams created with ACL_STREAM_FAST_LAUNCH take their internal resources at creation (it
  // costs more) and then enqueue faster; ACL_STREAM_FAST_SYNC streams are polled by
  // aclrtSynchronizeStream instead of waking the thread. Estimates until calibrated.
  Picoseconds fastLaunchStreamCreate = 20000000;
  Picoseconds fastLaunch = 1500000;  // enqueue of any task on a FAST_LAUNCH stream (at most)
  Picoseconds fastSync = 500000;     // a FAST_SYNC stream's synchronize, instead of `synchronize`
  // One launch of a model run instance (aclmdlRIExecuteAsync): the whole graph is handed to the
  // device at once, whatever its number of tasks. An estimate until calibrated (CUDA graph
  // launches take 2-3 us of host time).
  Picoseconds modelExecute = 3000000;
};

// The link between two CPU sockets (UPI, Kunpeng's Hydra/HCCS): a device's traffic to the other
// socket's memory crosses it.
struct SocketLinkSpec {
  double bandwidth = 30e9;       // bytes/s per direction
  Picoseconds latency = 110000;  // one way; remote NUMA reads pay it twice
};

// Which NUMA node a host buffer lives on (`host.memory_socket`).
enum class HostPlacement {
  Socket,  // every host buffer on `memorySocket` (numactl --membind)
  Local,   // each device's host buffers on the socket its root port hangs off (nvbandwidth)
  Thread,  // first touch: a pinned buffer on the socket of the thread that allocated it, pageable
           // and registered memory on the socket of the thread that copies it
};

struct HostSpec {
  DramSpec memory;  // all sockets together; split evenly between their NUMA nodes
  HostPlacement memoryPlacement = HostPlacement::Thread;
  uint32_t memorySocket = 0;  // the NUMA node of every host buffer with HostPlacement::Socket
  // The socket each host thread runs on, by the thread's number (in order of creation, the main
  // thread 0); threads past the end of the list take it again from the start. Empty: all on 0.
  std::vector<uint32_t> threadSockets;
  uint32_t socketOfThread(uint32_t thread) const {
    return threadSockets.empty() ? 0 : threadSockets[thread % threadSockets.size()];
  }
  SocketLinkSpec socketLink;
  double cpuCopyBandwidth = 10e9;  // bytes/s one core copies (pageable staging)
  // CPU cores that stage pageable copies at once: 0 gives each host thread its own (the thread
  // that calls the copy does it), N shares N between all threads.
  uint32_t cpuCopyEngines = 0;
  uint64_t stagingBufferSize = 2ull << 20;  // pinned bounce buffer chunk for pageable copies
  ApiOverheads apiOverhead;
};

// ---------------------------------------------------------------- devices
struct DmaSpec {
  std::string model = "pcie";  // copy timing implementation: a registered "dma-model" kind
  uint32_t engines = 4;
  uint32_t channelsPerEngine = 4;
  // Read requests (each at most MRRS) one channel keeps in flight; 0: derived by Little's law,
  // enough to cover the round trip to host memory at the link's rate.
  uint32_t outstandingReads = 0;
  uint64_t chunkSize = 64 * 1024;      // bytes per DMA chunk
  Picoseconds setupLatency = 1000000;  // per task: its descriptor's fetch and the channel's start
  // Bytes/s one engine moves, shared by its channels; 0: the engine sets no limit of its own (its
  // channels are bound by the links and memories they cross).
  double engineBandwidth = 0;
};

struct SchedulerSpec {
  uint32_t maxStreams = 2048;
  uint32_t maxEvents = 65536;
  uint32_t queueDepth = 1024;        // tasks pending on one stream
  Picoseconds taskLaunch = 1000000;  // from a task reaching the head of its queue to its start
};

// The AI Cores that run compute tasks (KERNEL_AICORE). A kernel spreads over all of them; each
// core streams its share of the inputs from device memory into its on-chip buffer a tile at a
// time, computes, and streams results back, so a kernel takes as long as the slowest of its
// vector units, the cores' own load/store paths and the device memory it shares with DMA.
struct AiCoreSpec {
  uint32_t cores = 40;                 // cores an elementwise kernel runs on (910B: vector cores)
  double clock = 1.65e9;               // Hz
  uint32_t vectorBytesPerCycle = 256;  // vector unit width: 64 float32 or 128 float16 per cycle
  uint32_t readBytesPerCycle = 64;     // per core, from device memory into the core's buffer
  uint32_t writeBytesPerCycle = 64;    // per core, from the core's buffer to device memory
  uint32_t scalarOpsPerCycle = 1;      // per core: scalar instructions (an Ascend C kernel's loops)
  uint64_t tileSize = 32 * 1024;       // bytes of traffic one core moves per pipeline step
  Picoseconds startLatency = 2000000;  // from a kernel's start to its cores running (dispatch)
  // Unified Buffer per core that runs vector kernels (bytes); 0 (`auto`): the SoC's,
  // unifiedBufferDefault.
  uint64_t unifiedBuffer = 0;
};

// The Unified Buffer a SoC's vector-kernel cores have: 192 KiB on the A2/A3 vector cores
// (Ascend910B*, Ascend910_93*), 256 KiB on the AI Cores of the others (910A, 310P) and when no SoC
// is named (Ascend C documentation, Unified Buffer size per product).
uint64_t unifiedBufferDefault(const std::string& soc);

struct DeviceSpec {
  std::string name;   // "npu0"
  std::string model;  // free text: "Ascend 910B"
  std::string soc;    // the SoC version CANN reports (aclrtGetSocName): "Ascend910B4"
  std::string port;   // "sw0.1"; empty only in run mode device with no PCIe
  PcieLinkSpec link;
  DramSpec memory;
  DmaSpec dma;
  SchedulerSpec scheduler;
  AiCoreSpec aicore;
  // In a cluster: the server the device belongs to (index into ClusterSpec::servers) and its
  // device id within that server (the rank table's device_id); 0 and its index otherwise.
  uint32_t server = 0;
  uint32_t localId = 0;
};

// ---------------------------------------------------------------- links between devices
// A point-to-point link between two devices (HCCS between Ascend NPUs). Its kind picks the
// implementation (`model`, a registered "device-link" kind with its highest lane rate).
struct DeviceLinkSpec {
  std::string model = "hccs";
  std::string a, b;  // the two devices' names
  uint32_t lanes = 8;
  double rate = 56e9;            // transfers/s per lane (one bit per transfer)
  uint64_t packetPayload = 256;  // data bytes per packet
  uint32_t packetOverhead = 16;  // header, CRC and framing bytes per packet
  Picoseconds latency = 300000;  // one way, port to port
  // The most one DMA queue's transfer moves over the link, bytes/s (0: the wire's rate). Several
  // transfers at once (HCCL's one per peer, copies on several streams) share the wire.
  double transferRate = 0;
  double bandwidth() const {
    return static_cast<double>(lanes) * rate / 8;
  }  // raw bytes/s per direction
};

// ---------------------------------------------------------------- clusters of servers
// A RoCE NIC beside every NPU of a cluster, cabled to a port of the cluster's switch (`model`: a
// registered "nic" kind). RDMA writes cross it as frames of at most `mtu` bytes of payload, each
// with `frameOverhead` bytes of headers, trailers and the Ethernet gap.
struct NicSpec {
  std::string model = "roce";
  double rate = 25e9;             // bytes/s per direction (200 Gb/s)
  Picoseconds latency = 1000000;  // one way, the NIC's own (DMA to wire and wire to DMA)
  uint64_t mtu = 4096;            // payload bytes per frame
  uint32_t frameOverhead = 82;    // bytes per frame besides its payload
};

// The switch joining the servers' NICs (`model`: a registered "network-switch" kind).
struct NetworkSwitchSpec {
  std::string model = "ethernet";
  double portRate = 50e9;        // bytes/s per port per direction (400 Gb/s)
  Picoseconds latency = 600000;  // port to port
};

struct SystemSpec;

// One server of a cluster: the machine it is (as loaded from its entry) and the devices of the
// cluster that are its, [firstDevice, firstDevice + devices).
struct ServerSpec {
  std::string name;
  uint32_t firstDevice = 0, devices = 0;
  std::shared_ptr<const SystemSpec> machine;
};

// Empty `servers`: one machine, no network. Otherwise the machine's devices, switches, ports and
// device links are those of every server (named "SERVER-NAME"), its host and root complex the
// first server's (the servers share one simulated host), and every NPU has a NIC on the switch.
struct ClusterSpec {
  std::vector<ServerSpec> servers;
  NicSpec nic;
  NetworkSwitchSpec networkSwitch;
  bool active() const { return !servers.empty(); }
};

enum class RunMode { Host, Device };

// Where a run's outputs go unless the command line or ASCENDSIM_TRACE / ASCENDSIM_REPORT say.
struct TraceSpec {
  std::string path;          // empty: no trace
  std::string format;        // a registered trace format; empty: by the path's extension
  std::string report;        // empty: no report
  std::string reportFormat;  // a registered report format; empty: by the report's extension
  Picoseconds counterInterval = 10000000;  // 10 us between bandwidth counter samples
  uint64_t maxFileSize = 1ull << 30;       // past this a trace continues in a numbered file
  bool dramStats = false;  // replay memory traffic through the DRAM models for statistics
};

struct SystemSpec {
  std::string name;
  std::string description;
  RunMode runMode = RunMode::Host;
  HostSpec host;
  RootComplexSpec rootComplex;
  std::vector<PcieSwitchSpec> switches;
  std::vector<DeviceSpec> devices;
  std::vector<DeviceLinkSpec> deviceLinks;
  ClusterSpec cluster;
  TraceSpec trace;
  std::vector<std::string> sources;  // files it was read from, outermost first

  const PcieSwitchSpec* findSwitch(const std::string& name) const;
  int findDevice(const std::string& name) const;  // index, or -1
};

const char* toString(PagePolicy p);
const char* toString(CommandBusSharing c);
const char* toString(RunMode m);

// Highest per-lane rate of a PCIe generation in transfers/s (Gen1 2.5e9 ... Gen6 64e9).
double pcieGenerationRate(uint32_t generation);

}  // namespace ascendsim::spec
