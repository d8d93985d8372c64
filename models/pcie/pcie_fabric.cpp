#include "models/pcie/pcie_fabric.h"

#include <algorithm>
#include <cmath>

#include "models/dram/memory_traffic.h"
#include "models/dram/sustained_bandwidth.h"
#include "models/pcie/pcie_protocol.h"
#include "spec/pcie_topology.h"

namespace ascendsim::models::pcie {
namespace {

// Idle read latency of a memory: ACT, column read and one burst.
Picoseconds idleLatency(const spec::DramSpec& m) {
  const int64_t perClock = static_cast<int64_t>(m.dataRate / m.clock + 0.5);
  return (m.timings.tRCDRD + m.timings.tCL + m.burstLength / perClock) * m.tCK();
}

}  // namespace

Picoseconds Resource::reserve(Picoseconds earliest, Picoseconds length, Picoseconds now) {
  while (!reserved.empty() && reserved.front().second <= now) reserved.pop_front();
  if (reserved.empty() || earliest >= reserved.back().second) {  // the common case: after everything
    if (length > 0) reserved.emplace_back(earliest, earliest + length);
    return earliest;
  }
  // Bookings are sorted and disjoint, so their ends are sorted too: skip those over before `earliest`.
  auto it = std::partition_point(reserved.begin(), reserved.end(),
                                 [earliest](const std::pair<Picoseconds, Picoseconds>& b) { return b.second <= earliest; });
  Picoseconds start = earliest;
  for (; it != reserved.end(); ++it) {
    if (start + length <= it->first) break;  // fits in the gap before it
    start = std::max(start, it->second);
  }
  if (length > 0) reserved.insert(it, {start, start + length});
  return start;
}

void Resource::sample(Picoseconds start, Picoseconds end, uint64_t n) {
  if (binWidth <= 0 || n == 0) return;
  if (end <= start) {
    bins[start / binWidth] += static_cast<double>(n);
    return;
  }
  // Spread the bytes evenly over the bins the interval covers.
  const double perPs = static_cast<double>(n) / static_cast<double>(end - start);
  for (int64_t b = start / binWidth; b * binWidth < end; ++b) {
    const Picoseconds lo = std::max(start, b * binWidth), hi = std::min(end, (b + 1) * binWidth);
    bins[b] += perPs * static_cast<double>(hi - lo);
  }
}

Picoseconds Resource::interleave(Picoseconds earliest, Picoseconds length, Picoseconds now) {
  while (!reserved.empty() && reserved.front().second <= now) reserved.pop_front();
  if (reserved.empty() || earliest >= reserved.back().second) return reserve(earliest, length, now);
  reserved.back().second += length;
  return earliest;
}

Picoseconds transferTime(uint64_t bytes, double rate) {
  return static_cast<Picoseconds>(std::ceil(static_cast<double>(bytes) / rate * 1e12));
}

size_t PcieFabric::add(std::string name) {
  Resource r;
  r.name = std::move(name);
  resources_.push_back(std::move(r));
  return resources_.size() - 1;
}

PcieFabric::PcieFabric(const spec::SystemSpec& sys) : sys_(sys) {
  const SustainedRates host = sustainedSequentialRates(sys.host.memory);
  hostRead_ = host.read;
  hostWrite_ = host.write;
  hostLatency_ = idleLatency(sys.host.memory);
  hostMemory_ = add("host.memory");
  hostCpu_ = add("host.cpu-copy");

  // One up and one down resource per switch upstream link, shared by every device below it.
  std::vector<std::pair<size_t, size_t>> switchLinks;
  for (const spec::PcieSwitchSpec& sw : sys.switches) {
    switchLinks.emplace_back(add(sw.name + ".uplink.up"), add(sw.name + ".uplink.down"));
  }
  for (const spec::DeviceSpec& d : sys.devices) {
    const SustainedRates mem = sustainedSequentialRates(d.memory);
    deviceRead_.push_back(mem.read);
    deviceWrite_.push_back(mem.write);
    deviceLatency_.push_back(idleLatency(d.memory));
    DevicePath p;
    p.memory = add(d.name + ".memory");
    p.tags = add(d.name + ".read-tags");
    p.aicore = add(d.name + ".aicore");
    p.ecrc = d.link.ecrc;
    p.mps = d.link.mps;
    p.mrrs = d.link.mrrs;
    if (!d.port.empty()) {
      const size_t up = add(d.name + ".link.up"), down = add(d.name + ".link.down");
      auto ref = spec::parsePortRef(d.port);
      const spec::PcieSwitchSpec* above = ref ? sys.findSwitch(ref->owner) : nullptr;
      p.hops.push_back({&d.link, up, down, above ? above->latency : 0});
      while (above) {
        const size_t index = static_cast<size_t>(above - sys.switches.data());
        ref = spec::parsePortRef(above->upstream);
        const spec::PcieSwitchSpec* next = ref ? sys.findSwitch(ref->owner) : nullptr;
        p.hops.push_back({&above->link, switchLinks[index].first, switchLinks[index].second, next ? next->latency : 0});
        p.mps = std::min(p.mps, above->link.mps);  // a path carries the smallest payload size on it
        above = next;
      }
    }
    p.split = sys.rootComplex.completionsAtRcb ? std::min(d.link.rcb, p.mps) : p.mps;
    // Read tags bound throughput to tags x MRRS per round trip (request up, memory, completion down).
    Picoseconds roundTrip = 2 * sys.rootComplex.latency + hostLatency_;
    for (const Hop& h : p.hops) roundTrip += 2 * (h.link->latency + h.switchLatency);
    p.tagRate = static_cast<double>(std::min<uint64_t>(d.link.tags, d.dma.outstandingReads)) *
                static_cast<double>(p.mrrs) / (static_cast<double>(roundTrip) * 1e-12);
    paths_.push_back(std::move(p));
  }
}

Stage PcieFabric::memoryStage(size_t resource, uint64_t bytes, double rate, Picoseconds latency, int memory,
                              bool reads, bool writes) const {
  Stage st{&resources_[resource], transferTime(bytes, rate), latency, bytes};
  st.memory = memory;
  st.reads = reads;
  st.writes = writes;
  return st;
}

void PcieFabric::upStages(const DevicePath& p, uint64_t wireBytes, size_t hopCount, std::vector<Stage>& out,
                          bool requests) const {
  for (size_t i = 0; i < hopCount; ++i) {
    const Hop& h = p.hops[i];
    out.push_back({&resources_[h.up], transferTime(wireBytes, tlpBandwidth(*h.link, p.mps)),
                   h.link->latency + h.switchLatency, wireBytes, false, requests});
  }
}

void PcieFabric::downStages(const DevicePath& p, uint64_t wireBytes, size_t hopCount, std::vector<Stage>& out) const {
  for (size_t i = hopCount; i-- > 0;) {
    const Hop& h = p.hops[i];
    out.push_back({&resources_[h.down], transferTime(wireBytes, tlpBandwidth(*h.link, p.mps)),
                   h.link->latency + h.switchLatency, wireBytes});
  }
}

std::vector<Stage> PcieFabric::stages(int device, const Task& task, uint64_t bytes) const {
  std::vector<Stage> out;
  const bool rc = sys_.runMode == spec::RunMode::Device;
  const auto isDevice = [](const MemoryPlace& m) { return m.kind == MemoryPlace::Kind::Device; };
  const DevicePath& engine = paths_.at(static_cast<size_t>(device));
  if (task.kind == TaskKind::Memset) {
    const size_t d = static_cast<size_t>(task.dst.device);
    out.push_back(memoryStage(paths_[d].memory, bytes, deviceWrite_[d], 0, static_cast<int>(d), false, true));
    return out;
  }
  const bool srcDev = isDevice(task.src), dstDev = isDevice(task.dst);
  if (rc || (srcDev && dstDev && task.src.device == task.dst.device)) {
    // A copy inside one memory reads and writes it: both take its bus.
    const size_t d = static_cast<size_t>(rc ? 0 : task.src.device);
    const double copyRate = 1.0 / (1.0 / deviceRead_[d] + 1.0 / deviceWrite_[d]);
    out.push_back(memoryStage(paths_[d].memory, bytes, copyRate, deviceLatency_[d], static_cast<int>(d), true, true));
    return out;
  }
  const bool pageable = task.src.kind == MemoryPlace::Kind::HostPageable || task.dst.kind == MemoryPlace::Kind::HostPageable;
  if (!srcDev) {
    // Host to device: the CPU first stages pageable data into the pinned buffer; the device's DMA
    // then reads it: requests go up, the host's memory answers, completions come down.
    if (pageable) out.push_back({&resources_[hostCpu_], transferTime(bytes, sys_.host.cpuCopyBandwidth), 0, bytes, true});
    out.push_back({&resources_[engine.tags], transferTime(bytes, engine.tagRate), 0, bytes, false, false, true});
    upStages(engine, requestWireBytes(bytes, engine.mrrs, engine.ecrc), engine.hops.size(), out, true);
    out.push_back(memoryStage(hostMemory_, bytes, hostRead_, sys_.rootComplex.latency * 2 + hostLatency_,
                              MemoryTrafficObserver::kHostMemory, true, false));
    downStages(engine, completionWireBytes(bytes, engine.split, engine.ecrc), engine.hops.size(), out);
    const size_t d = static_cast<size_t>(task.dst.device);
    out.push_back(memoryStage(paths_[d].memory, bytes, deviceWrite_[d], 0, static_cast<int>(d), false, true));
    return out;
  }
  const size_t s = static_cast<size_t>(task.src.device);
  out.push_back(memoryStage(paths_[s].memory, bytes, deviceRead_[s], deviceLatency_[s], static_cast<int>(s), true, false));
  if (!dstDev) {
    // Device to host: posted writes up to the root complex, into host memory, then (pageable)
    // the CPU copies them out of the pinned buffer.
    upStages(paths_[s], writeWireBytes(bytes, paths_[s].mps, paths_[s].ecrc), paths_[s].hops.size(), out);
    out.push_back(memoryStage(hostMemory_, bytes, hostWrite_, sys_.rootComplex.latency, MemoryTrafficObserver::kHostMemory,
                              false, true));
    if (pageable) out.push_back({&resources_[hostCpu_], transferTime(bytes, sys_.host.cpuCopyBandwidth), 0, bytes, true});
    return out;
  }
  // Peer to peer: posted writes up to the switch both devices share, and down to the peer.
  const size_t t = static_cast<size_t>(task.dst.device);
  const auto srcAbove = spec::switchesAbove(sys_, sys_.devices[s]);
  const auto common = spec::commonSwitch(sys_, sys_.devices[s], sys_.devices[t]);
  const size_t upHops = common ? static_cast<size_t>(std::find(srcAbove.begin(), srcAbove.end(), *common) - srcAbove.begin()) + 1
                               : paths_[s].hops.size();
  const auto dstAbove = spec::switchesAbove(sys_, sys_.devices[t]);
  const size_t downHops = common ? static_cast<size_t>(std::find(dstAbove.begin(), dstAbove.end(), *common) - dstAbove.begin()) + 1
                                 : paths_[t].hops.size();
  const uint64_t mps = std::min(paths_[s].mps, paths_[t].mps);
  const uint64_t wire = writeWireBytes(bytes, mps, paths_[s].ecrc);
  upStages(paths_[s], wire, upHops, out);
  if (!common) out.push_back({&resources_[hostMemory_], 0, 2 * sys_.rootComplex.latency, 0});  // turns at the root
  downStages(paths_[t], wire, downHops, out);
  out.push_back(memoryStage(paths_[t].memory, bytes, deviceWrite_[t], 0, static_cast<int>(t), false, true));
  return out;
}

std::vector<Stage> PcieFabric::kernelStages(int device, uint64_t bytesRead, uint64_t bytesWritten,
                                             Picoseconds cores) const {
  const size_t d = static_cast<size_t>(device);
  const DevicePath& p = paths_.at(d);
  // One booking of the memory for a tile's reads and writes together: the cores double-buffer, so
  // a tile's results stream out while the next tile streams in, and the memory serves both back
  // to back. (Booking the writes apart, behind the cores' time, would leave gaps too short for
  // the next tile at this grain: idle memory that the hardware does not have.)
  const double occupancy = static_cast<double>(bytesRead) / deviceRead_[d] + static_cast<double>(bytesWritten) / deviceWrite_[d];
  std::vector<Stage> out;
  if (bytesRead + bytesWritten > 0) {  // pure arithmetic does not wait for the memory
    Stage memory{&resources_[p.memory], static_cast<Picoseconds>(std::ceil(occupancy * 1e12)), deviceLatency_[d],
                 bytesRead + bytesWritten};
    memory.memory = static_cast<int>(d);
    memory.reads = bytesRead > 0;
    memory.writes = bytesWritten > 0;
    out.push_back(memory);
  }
  out.push_back({&resources_[p.aicore], cores, 0, bytesRead + bytesWritten});
  return out;
}

std::pair<Picoseconds, Picoseconds> PcieFabric::flow(const std::vector<Stage>& stages, Picoseconds ready,
                                                     std::vector<std::pair<Picoseconds, Picoseconds>>* spans) {
  if (spans) spans->clear();
  Picoseconds head = ready;  // when the chunk's first byte reaches the next stage
  Picoseconds tail = ready;  // when its last byte has left the previous stage
  Picoseconds firstFree = ready;
  for (size_t i = 0; i < stages.size(); ++i) {
    const Stage& st = stages[i];
    // Cut-through: a stage may start as soon as the head arrives, but cannot finish before the
    // tail has; store-and-forward stages wait for the whole chunk.
    const Picoseconds earliest = st.wholeChunk ? tail : std::max(head, tail - st.occupancy);
    const Picoseconds start = st.interleaved ? st.resource->interleave(earliest, st.occupancy, ready)
                                             : st.resource->reserve(earliest, st.occupancy, ready);
    const Picoseconds end = start + (st.rateOnly ? 0 : st.occupancy);
    if (spans) spans->emplace_back(start, start + st.occupancy);
    st.resource->bytes += st.bytes;
    st.resource->busy += st.occupancy;
    st.resource->chunks++;
    st.resource->sample(start, start + st.occupancy, st.bytes);
    if (i == 0) firstFree = start + st.occupancy;
    head = (st.wholeChunk ? end : start) + st.latency;
    tail = end + st.latency;
  }
  return {firstFree, tail};
}

double PcieFabric::hostReadRate(int device, uint64_t chunk) const {
  const DevicePath& p = paths_.at(static_cast<size_t>(device));
  double rate = std::min({p.tagRate, hostRead_, deviceWrite_[static_cast<size_t>(device)]});
  for (const Hop& h : p.hops) {
    const double bw = tlpBandwidth(*h.link, p.mps);
    rate = std::min(rate, bw * static_cast<double>(chunk) / static_cast<double>(completionWireBytes(chunk, p.split, p.ecrc)));
    rate = std::min(rate, bw * static_cast<double>(chunk) / static_cast<double>(requestWireBytes(chunk, p.mrrs, p.ecrc)));
  }
  return rate;
}

double PcieFabric::hostWriteRate(int device, uint64_t chunk) const {
  const DevicePath& p = paths_.at(static_cast<size_t>(device));
  double rate = std::min(hostWrite_, deviceRead_[static_cast<size_t>(device)]);
  for (const Hop& h : p.hops) {
    rate = std::min(rate, tlpBandwidth(*h.link, p.mps) * static_cast<double>(chunk) /
                              static_cast<double>(writeWireBytes(chunk, p.mps, p.ecrc)));
  }
  return rate;
}

}  // namespace ascendsim::models::pcie
