#include "spec/spec_writer.h"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <system_error>

#include "spec/memory_fields.h"

namespace ascendsim::spec {
namespace {

void writeMemory(YAML::Emitter& out, const DramSpec& m) {
  out << YAML::BeginMap;
  for (const MemoryField& field : memoryFields()) field.write(out, m);
  out << YAML::EndMap;
}

void writeLink(YAML::Emitter& out, const PcieLinkSpec& l) {
  out << YAML::BeginMap;
  out << YAML::Key << "generation" << YAML::Value << l.generation;
  // The speed follows the generation unless the link trained below it.
  if (l.rate != pcieGenerationRate(l.generation))
    out << YAML::Key << "speed" << YAML::Value << formatTransferRate(l.rate);
  out << YAML::Key << "lanes" << YAML::Value << l.lanes;
  out << YAML::Key << "mps" << YAML::Value << formatBytes(l.mps);
  out << YAML::Key << "mrrs" << YAML::Value << formatBytes(l.mrrs);
  out << YAML::Key << "rcb" << YAML::Value << l.rcb;
  out << YAML::Key << "ecrc" << YAML::Value << l.ecrc;
  out << YAML::Key << "tags" << YAML::Value << l.tags;
  out << YAML::Key << "latency" << YAML::Value << formatDuration(l.latency);
  out << YAML::EndMap;
}

void writeHost(YAML::Emitter& out, const HostSpec& h) {
  const ApiOverheads& o = h.apiOverhead;
  out << YAML::BeginMap;
  out << YAML::Key << "memory" << YAML::Value;
  writeMemory(out, h.memory);
  out << YAML::Key << "memory_socket" << YAML::Value << h.memorySocket;
  out << YAML::Key << "socket_link" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "bandwidth" << YAML::Value << formatBandwidth(h.socketLink.bandwidth);
  out << YAML::Key << "latency" << YAML::Value << formatDuration(h.socketLink.latency);
  out << YAML::EndMap;
  out << YAML::Key << "cpu_copy_bandwidth" << YAML::Value << formatBandwidth(h.cpuCopyBandwidth);
  out << YAML::Key << "cpu_copy_engines" << YAML::Value << h.cpuCopyEngines;
  out << YAML::Key << "staging_buffer" << YAML::Value << formatBytes(h.stagingBufferSize);
  out << YAML::Key << "api_overhead" << YAML::Value << YAML::BeginMap;
  const std::pair<const char*, Picoseconds> fields[] = {
      {"default", o.defaultCall},
      {"malloc", o.malloc},
      {"free", o.free},
      {"malloc_host", o.mallocHost},
      {"memcpy", o.memcpy},
      {"memcpy_async", o.memcpyAsync},
      {"memset", o.memset},
      {"memset_async", o.memsetAsync},
      {"event", o.event},
      {"synchronize", o.synchronize},
      {"stream_create", o.streamCreate},
      {"kernel_launch", o.kernelLaunch},
      {"fast_launch_stream_create", o.fastLaunchStreamCreate},
      {"fast_launch", o.fastLaunch},
      {"fast_sync", o.fastSync},
      {"model_execute", o.modelExecute},
  };
  for (const auto& [key, value] : fields)
    out << YAML::Key << key << YAML::Value << formatDuration(value);
  out << YAML::EndMap << YAML::EndMap;
}

void writeDevice(YAML::Emitter& out, const DeviceSpec& d) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value << d.name;
  if (!d.model.empty()) out << YAML::Key << "model" << YAML::Value << d.model;
  if (!d.soc.empty()) out << YAML::Key << "soc" << YAML::Value << d.soc;
  if (!d.port.empty()) out << YAML::Key << "port" << YAML::Value << d.port;
  out << YAML::Key << "link" << YAML::Value;
  writeLink(out, d.link);
  out << YAML::Key << "memory" << YAML::Value;
  writeMemory(out, d.memory);
  out << YAML::Key << "dma" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "model" << YAML::Value << d.dma.model;
  out << YAML::Key << "engines" << YAML::Value << d.dma.engines;
  out << YAML::Key << "channels_per_engine" << YAML::Value << d.dma.channelsPerEngine;
  out << YAML::Key << "outstanding_reads" << YAML::Value;
  if (d.dma.outstandingReads == 0) {
    out << "auto";
  } else {
    out << d.dma.outstandingReads;
  }
  out << YAML::Key << "chunk_size" << YAML::Value << formatBytes(d.dma.chunkSize);
  out << YAML::Key << "setup_latency" << YAML::Value << formatDuration(d.dma.setupLatency);
  out << YAML::Key << "engine_bandwidth" << YAML::Value
      << formatBandwidthLimit(d.dma.engineBandwidth);
  out << YAML::EndMap;
  out << YAML::Key << "scheduler" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "max_streams" << YAML::Value << d.scheduler.maxStreams;
  out << YAML::Key << "max_events" << YAML::Value << d.scheduler.maxEvents;
  out << YAML::Key << "queue_depth" << YAML::Value << d.scheduler.queueDepth;
  out << YAML::Key << "task_launch" << YAML::Value << formatDuration(d.scheduler.taskLaunch);
  out << YAML::EndMap;
  out << YAML::Key << "aicore" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "cores" << YAML::Value << d.aicore.cores;
  out << YAML::Key << "clock" << YAML::Value << formatFrequency(d.aicore.clock);
  out << YAML::Key << "vector_bytes_per_cycle" << YAML::Value << d.aicore.vectorBytesPerCycle;
  out << YAML::Key << "read_bytes_per_cycle" << YAML::Value << d.aicore.readBytesPerCycle;
  out << YAML::Key << "write_bytes_per_cycle" << YAML::Value << d.aicore.writeBytesPerCycle;
  out << YAML::Key << "scalar_ops_per_cycle" << YAML::Value << d.aicore.scalarOpsPerCycle;
  out << YAML::Key << "tile_size" << YAML::Value << formatBytes(d.aicore.tileSize);
  out << YAML::Key << "start_latency" << YAML::Value << formatDuration(d.aicore.startLatency);
  out << YAML::Key << "unified_buffer" << YAML::Value;
  if (d.aicore.unifiedBuffer == 0) {
    out << "auto";
  } else {
    out << formatBytes(d.aicore.unifiedBuffer);
  }
  out << YAML::EndMap;
  out << YAML::EndMap;
}

}  // namespace

std::string formatReal(double value) {
  char text[64];
  const auto [end, ec] = std::to_chars(text, text + sizeof text, value);
  return ec == std::errc() ? std::string(text, end) : std::to_string(value);
}

std::string writeMemorySpecYaml(const DramSpec& memory) {
  YAML::Emitter out;
  writeMemory(out, memory);
  return std::string(out.c_str()) + "\n";
}

namespace {
void writeTrace(YAML::Emitter& out, const TraceSpec& trace) {
  out << YAML::Key << "trace" << YAML::Value << YAML::BeginMap;
  if (!trace.path.empty()) out << YAML::Key << "path" << YAML::Value << trace.path;
  if (!trace.format.empty()) out << YAML::Key << "format" << YAML::Value << trace.format;
  if (!trace.report.empty()) out << YAML::Key << "report" << YAML::Value << trace.report;
  out << YAML::Key << "counter_interval" << YAML::Value << formatDuration(trace.counterInterval);
  out << YAML::Key << "max_size" << YAML::Value << formatBytes(trace.maxFileSize);
  out << YAML::Key << "dram_stats" << YAML::Value << trace.dramStats;
  out << YAML::EndMap;
}

// A cluster as its file gives it: each server the whole machine it is (no `extends` left).
std::string writeClusterYaml(const SystemSpec& sys) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  if (!sys.name.empty()) out << YAML::Key << "name" << YAML::Value << sys.name;
  if (!sys.description.empty()) out << YAML::Key << "description" << YAML::Value << sys.description;
  writeTrace(out, sys.trace);
  const ClusterSpec& c = sys.cluster;
  out << YAML::Key << "cluster" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "nic" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "model" << YAML::Value << c.nic.model;
  out << YAML::Key << "rate" << YAML::Value << formatBandwidth(c.nic.rate);
  out << YAML::Key << "latency" << YAML::Value << formatDuration(c.nic.latency);
  out << YAML::Key << "mtu" << YAML::Value << formatBytes(c.nic.mtu);
  out << YAML::Key << "frame_overhead" << YAML::Value << c.nic.frameOverhead;
  out << YAML::EndMap;
  out << YAML::Key << "switch" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "model" << YAML::Value << c.networkSwitch.model;
  out << YAML::Key << "port_rate" << YAML::Value << formatBandwidth(c.networkSwitch.portRate);
  out << YAML::Key << "latency" << YAML::Value << formatDuration(c.networkSwitch.latency);
  out << YAML::EndMap;
  out << YAML::Key << "servers" << YAML::Value << YAML::BeginSeq;
  for (const ServerSpec& server : c.servers) {
    YAML::Node machine = YAML::Load(writeSystemSpecYaml(*server.machine));
    machine.remove("trace");  // a server's trace settings are the cluster's
    machine["name"] = server.name;
    out << machine;
  }
  out << YAML::EndSeq << YAML::EndMap << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}
}  // namespace

std::string writeSystemSpecYaml(const SystemSpec& sys) {
  if (sys.cluster.active()) return writeClusterYaml(sys);
  YAML::Emitter out;
  out << YAML::BeginMap;
  if (!sys.name.empty()) out << YAML::Key << "name" << YAML::Value << sys.name;
  if (!sys.description.empty()) out << YAML::Key << "description" << YAML::Value << sys.description;
  out << YAML::Key << "run_mode" << YAML::Value << toString(sys.runMode);
  out << YAML::Key << "host" << YAML::Value;
  writeHost(out, sys.host);
  out << YAML::Key << "pcie" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "root_complex" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "ports" << YAML::Value << sys.rootComplex.ports;
  out << YAML::Key << "latency" << YAML::Value << formatDuration(sys.rootComplex.latency);
  out << YAML::Key << "completions_at_rcb" << YAML::Value << sys.rootComplex.completionsAtRcb;
  out << YAML::Key << "efficiency" << YAML::Value << formatReal(sys.rootComplex.efficiency);
  out << YAML::Key << "peer_to_peer" << YAML::Value << sys.rootComplex.peerToPeer;
  out << YAML::Key << "bridge_bandwidth" << YAML::Value
      << formatBandwidthLimit(sys.rootComplex.bridgeBandwidth);
  if (!sys.rootComplex.portSockets.empty()) {
    out << YAML::Key << "sockets" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (uint32_t s : sys.rootComplex.portSockets) out << s;
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
  out << YAML::Key << "switches" << YAML::Value << YAML::BeginSeq;
  for (const PcieSwitchSpec& sw : sys.switches) {
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << sw.name;
    out << YAML::Key << "upstream" << YAML::Value << sw.upstream;
    out << YAML::Key << "ports" << YAML::Value << sw.ports;
    out << YAML::Key << "latency" << YAML::Value << formatDuration(sw.latency);
    out << YAML::Key << "link" << YAML::Value;
    writeLink(out, sw.link);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  writeTrace(out, sys.trace);
  out << YAML::Key << "devices" << YAML::Value << YAML::BeginSeq;
  for (const DeviceSpec& d : sys.devices) writeDevice(out, d);
  out << YAML::EndSeq;
  if (!sys.deviceLinks.empty()) {
    out << YAML::Key << "device_links" << YAML::Value << YAML::BeginSeq;
    for (const DeviceLinkSpec& l : sys.deviceLinks) {
      out << YAML::Flow << YAML::BeginMap;
      out << YAML::Key << "model" << YAML::Value << l.model;
      out << YAML::Key << "devices" << YAML::Value << YAML::Flow << YAML::BeginSeq << l.a << l.b
          << YAML::EndSeq;
      out << YAML::Key << "lanes" << YAML::Value << l.lanes;
      out << YAML::Key << "speed" << YAML::Value << formatTransferRate(l.rate);
      out << YAML::Key << "packet_payload" << YAML::Value << formatBytes(l.packetPayload);
      out << YAML::Key << "packet_overhead" << YAML::Value << l.packetOverhead;
      out << YAML::Key << "latency" << YAML::Value << formatDuration(l.latency);
      out << YAML::Key << "transfer_rate" << YAML::Value << formatBandwidthLimit(l.transferRate);
      out << YAML::EndMap;
    }
    out << YAML::EndSeq;
  }
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace ascendsim::spec
