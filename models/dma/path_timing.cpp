#include "models/dma/path_timing.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "models/compute/ai_core_work.h"
#include "models/compute/kernel_access.h"
#include "models/pcie/pcie_protocol.h"

namespace ascendsim::models {
namespace {
const DmaModelRegistration kRegistered{
    {"dma-model",
     "pcie",
     "each copy in chunks through the components on its route: links, switches, root complex, "
     "memories",
     {"engines", "channels_per_engine", "outstanding_reads", "chunk_size", "setup_latency",
      "engine_bandwidth"},
     {}},
    [](const spec::SystemSpec& sys, MachineGraph& graph, Router& router) {
      return std::make_unique<PathTiming>(sys, graph, router);
    }};
}  // namespace

std::unique_ptr<TransferTiming> makeTransferTiming(const std::string& name,
                                                   const spec::SystemSpec& sys, MachineGraph& graph,
                                                   Router& router) {
  return kinds::Registry<TransferTimingFactory>::instance().at("DMA model", name)(sys, graph,
                                                                                  router);
}

namespace {
bool isPageable(const Task& t) {
  return t.src.kind == MemoryPlace::Kind::HostPageable ||
         t.dst.kind == MemoryPlace::Kind::HostPageable;
}
}  // namespace

uint32_t PathTiming::hostSocket(const Task& task, const MemoryPlace& host, int device) const {
  return graph_.hostSocketFor(host.socket, device, task.hostThreadInProcess);
}

Picoseconds PathTiming::roundTrip(int device, uint32_t socket) {
  if (socket == router_.rootSocket(device)) return roundTrip_.at(static_cast<size_t>(device));
  auto& rtt = farRoundTrips_[{device, socket}];
  if (rtt == 0) rtt = router_.hostReadRoundTrip(device, static_cast<int>(socket));
  return rtt;
}

PathTiming::PathTiming(const spec::SystemSpec& sys, MachineGraph& graph, Router& router)
    : sys_(sys), graph_(graph), router_(router) {
  runsOnDevice_ = sys.runMode == spec::RunMode::Device;
  for (size_t d = 0; d < sys.devices.size(); ++d) {
    const int i = static_cast<int>(d);
    roundTrip_.push_back(router.hostReadRoundTrip(i, static_cast<int>(router.rootSocket(i))));
  }
}

// Little's law: requests in flight = read rate x round trip / request size, with a quarter more
// so that the completions still streaming in do not hold the link back. A 2D copy's rows are
// requests of their own (at most MRRS each): the link's completion rate for them is lower, but
// each request brings less, so more are needed; the device's tags cap them.
PathTiming::ReadWindow PathTiming::windowFor(int device, uint64_t rowBytes) const {
  const auto known = windows_.find({device, rowBytes});
  if (known != windows_.end()) return known->second;
  const spec::DeviceSpec& dev = sys_.devices.at(static_cast<size_t>(device));
  uint32_t window = dev.dma.outstandingReads;
  double needed = 0;
  if (window == 0) {
    // (for the memory of the device's own socket: the window is the device's, wherever a buffer
    // lives; a farther one takes longer to answer)
    const uint32_t own = router_.rootSocket(device);
    const Route& down =
        router_.route(Endpoint::host(static_cast<int>(own)), Endpoint::of(device), device);
    double rate = 1e15;
    for (const Crossing& c : down.crossings)
      rate = std::min(rate, c.link->payloadRate(Traffic::Completion, rowBytes, down.framing));
    if (down.crossings.empty()) rate = graph_.hostMemory(own).readRate();
    const double request =
        static_cast<double>(rowBytes) / static_cast<double>(pcie::ceilDiv(rowBytes, dev.link.mrrs));
    needed =
        rate * static_cast<double>(roundTrip_.at(static_cast<size_t>(device))) * 1e-12 / request;
    window = static_cast<uint32_t>(std::min(std::ceil(needed * 1.25), 1e9));
  }
  ReadWindow w;
  w.requests = std::max<uint32_t>(1, std::min(window, dev.link.tags));
  w.perPiece = std::max<uint32_t>(1, w.requests / 8);
  // A piece holds its requests until its last byte lands, where each tag frees as its own
  // completion lands. With the window a quarter above Little's law that costs nothing; capped by
  // the tags (narrow rows) it would cost the piece's own link time on every round trip, so such
  // pieces are kept to 1/128 of the round trip on the link (the tags' rate within 0.8 %).
  if (w.requests < needed * 1.25) {
    w.perPiece =
        std::max<uint32_t>(1, std::min<uint32_t>(w.perPiece, static_cast<uint32_t>(needed / 128)));
  }
  windows_[{device, rowBytes}] = w;
  return w;
}

// A 2D copy's rows are read a request per MRRS of each row (a 700 B row: 512 B and 188 B): the
// window is derived for the requests its rows make.
uint32_t PathTiming::readWindow(int device, const Task& task) const {
  return readWindowOf(device, task).requests;
}

PathTiming::ReadWindow PathTiming::readWindowOf(int device, const Task& task) const {
  const uint64_t mrrs = sys_.devices.at(static_cast<size_t>(device)).link.mrrs;
  return windowFor(device, task.rowBytes == 0 ? mrrs : task.rowBytes);
}

// A piece: the staging buffer for pageable copies, else a DMA chunk; reads from host memory also
// at most an eighth of the channel's request window in requests, so requests stream rather than
// wait for a whole chunk (a piece holds its requests until its last byte lands). Shaped copies
// move whole rows, a request per row or MRRS of it; a row of more requests than a piece may hold
// moves as equal pieces of it (the last one of the row takes what is left).
uint64_t PathTiming::pieceBytes(int device, const Task& task, uint64_t offset) const {
  const spec::DeviceSpec& dev = sys_.devices.at(static_cast<size_t>(device));
  uint64_t piece =
      isPageable(task) && !runsOnDevice_ ? sys_.host.stagingBufferSize : dev.dma.chunkSize;
  const bool readsHost =
      !runsOnDevice_ && task.kind == TaskKind::Copy && task.src.kind != MemoryPlace::Kind::Device;
  const uint64_t left = task.bytes - offset;
  if (!readsHost || isPageable(task)) {
    if (task.rowBytes == 0) return std::min(piece, left);
    return std::min(std::max<uint64_t>(1, piece / task.rowBytes) * task.rowBytes, left);
  }
  const uint64_t mrrs = dev.link.mrrs;
  const uint64_t requests = readWindowOf(device, task).perPiece;
  if (task.rowBytes == 0) return std::min({piece, requests * mrrs, left});
  const uint64_t perRow = pcie::ceilDiv(task.rowBytes, mrrs);
  if (perRow <= requests) {
    const uint64_t rows = std::max<uint64_t>(
        1, std::min(requests / perRow, std::max<uint64_t>(1, piece / task.rowBytes)));
    return std::min(rows * task.rowBytes, left);
  }
  const uint64_t parts = pcie::ceilDiv(perRow, requests);
  const uint64_t part = pcie::ceilDiv(perRow, parts) * mrrs;
  return std::min(part, task.rowBytes - offset % task.rowBytes);
}

ChunkTiming PathTiming::moveChunk(int device, const Task& task, uint64_t offset,
                                  Picoseconds ready) {
  if (task.kind == TaskKind::Kernel) return kernelStep(device, task, offset, ready);
  const uint64_t bytes = pieceBytes(device, task, offset);
  // (a part of one row when rows are wider than a piece)
  const Shape shape = task.rowBytes == 0 || bytes < task.rowBytes || offset % task.rowBytes != 0
                          ? Shape{bytes, 1}
                          : Shape{task.rowBytes, bytes / task.rowBytes};
  uint32_t requests = 0;
  ready_ = ready;
  std::vector<Stage> st = stages(device, task, offset, shape, requests);
  size_t firstLink = addEngineStage(device, task, shape.bytes(), st) == 1 ? 2 : 1;
  // (host memory's write budget, when it leads, is no hop on the way out of the device)
  while (firstLink < st.size() && isMemoryShare(st[firstLink].resource)) ++firstLink;
  const auto [nextIssue, done] = flow(st, ready, &spans_, bookingOwner(device, task.channel));
  if (observer_) {
    for (size_t i = 0; i < st.size(); ++i) {
      if (st[i].memory == Stage::kNotMemory) continue;
      reportTransfer(task, offset, bytes, st[i].reads, st[i].writes, spans_[i].first,
                     spans_[i].second);
    }
  }
  // A staged piece holds one of the thread's two pinned buffers until its last byte is through
  // (H2D: the DMA has read it; D2H: the CPU has copied it out).
  const bool staged = isPageable(task) && !runsOnDevice_;
  // Posted writes free the channel's buffer once they are out on the device's link: the stage
  // after the source memory's read.
  Picoseconds released = done;
  if (!staged && requests == 0 && st.size() > firstLink + 1 && st[0].reads && st[0].memory >= 0 &&
      st[firstLink].memory == Stage::kNotMemory) {
    released = spans_[firstLink].second;
  }
  lastStages_.swap(st);  // kept for lastPathRepeats(), which few pieces ask
  lastRepeats_ = true;
  return {bytes, nextIssue, done, requests, released, staged};
}

// A memory timed burst by burst depends on where the bytes go, and an observer hears each piece:
// then no piece is like the one before.
bool PathTiming::lastPathRepeats(std::vector<PathUse>& path) const {
  if (!lastRepeats_ || observer_) return false;
  path.clear();
  for (const Stage& s : lastStages_) {
    if (s.service) return false;
    auto use = std::find_if(path.begin(), path.end(),
                            [&s](const PathUse& u) { return u.resource == s.resource; });
    if (use == path.end()) use = path.insert(path.end(), PathUse{s.resource});
    use->bytes += s.bytes;
    use->chunks += 1;
    use->busy += s.occupancy;
  }
  return true;
}

// The channel's DMA engine moves every byte its channels carry, at `dma.engine_bandwidth` shared
// between them: a stage where the engine handles the data, after the source device memory's read
// (device to host or to a peer, and copies inside one memory), else before the destination's write
// (from the host, memsets). Returns where it went, or 0 when the engine sets no limit.
size_t PathTiming::addEngineStage(int device, const Task& task, uint64_t bytes,
                                  std::vector<Stage>& st) {
  const spec::DmaSpec& dma = sys_.devices.at(static_cast<size_t>(device)).dma;
  Resource* engine = graph_.dmaEngine(
      device, static_cast<uint32_t>(std::max(task.channel, 0)) / dma.channelsPerEngine);
  if (!engine || st.empty()) return 0;
  const bool fromDevice = task.kind == TaskKind::Copy && task.src.kind == MemoryPlace::Kind::Device;
  const size_t at = fromDevice ? 1 : st.size() - 1;
  st.insert(st.begin() + static_cast<std::ptrdiff_t>(at),
            Stage{engine, transferTime(bytes, dma.engineBandwidth), 0, bytes});
  return at;
}

// The host bridge of the socket whose root port the route `r` enters the host by, which every
// root port of that socket shares: inbound it takes the device's writes on their way to host
// memory, outbound the read data on its way from host memory into completions. Payload bytes at
// `pcie.root_complex.bridge_bandwidth`; nothing when that sets no limit.
void PathTiming::addHostBridge(const Route& r, bool inbound, uint64_t bytes,
                               std::vector<Stage>& out) {
  const auto& nodes = graph_.nodes();
  for (const Crossing& c : r.crossings) {
    const GraphNode& upper = nodes[static_cast<size_t>(c.link->end(1))];
    if (upper.kind != GraphNode::Kind::Socket ||
        nodes[static_cast<size_t>(c.link->end(0))].kind == GraphNode::Kind::Socket) {
      continue;  // (not a link into a root port)
    }
    Resource* bridge = graph_.hostBridge(static_cast<uint32_t>(upper.index), inbound);
    if (!bridge) return;
    out.push_back({bridge, transferTime(bytes, sys_.rootComplex.bridgeRate(inbound)), 0, bytes});
    return;
  }
}

// Posted writes to host memory pass the device's root port and its socket's host bridge. The link
// carries only what they accept (flow-control credits hold the rest in the device), so their
// stages come before the link's: a link whose writes are held back by the host leaves room for
// the read requests sharing its direction.
void PathTiming::hostInbound(const Route& r, uint32_t socket, uint64_t bytes,
                             std::vector<Stage>& out) {
  addRootPort(r, true, bytes, out);
  addHostBridge(r, true, bytes, out);
  addHostMemoryShare(socket, false, bytes, out);
}

bool PathTiming::isMemoryShare(const Resource* r) const {
  for (const auto& [socket, mixed] : mixedMemories_) {
    if (r == mixed.reads || r == mixed.writes) return true;
  }
  return false;
}

// Host memory under reads and writes at once (devices reading it and others, or the same,
// writing it): it sustains its mixed-traffic rate (Memory::mixedRate: requests of many streams
// meet at each channel in no order, so each opens a row, and the bus turns around between reads
// and writes), split between them as the root ports pass them: reads `port_read_share` of it,
// writes the rest, the way the bridge's arbitration lets them in (a controller serves what
// arrives). A kind alone goes at its own sustained rate. Each kind books a budget of its own,
// `host.memoryN.reads` / `.writes`; nothing for memories that time each burst themselves.
void PathTiming::addHostMemoryShare(uint32_t socket, bool reads, uint64_t bytes,
                                    std::vector<Stage>& out) {
  Memory& memory = graph_.hostMemory(socket);
  const double share = sys_.rootComplex.portReadShare;
  MixedMemory& mixed = mixedMemories_[socket];
  if (!mixed.reads) {
    mixed.rate = memory.mixedRate(share);
    if (mixed.rate <= 0) return;
    mixed.reads = &graph_.resources().add(memory.port().name + ".reads");
    mixed.writes = &graph_.resources().add(memory.port().name + ".writes");
  }
  if (mixed.rate <= 0) return;
  Resource& own = reads ? *mixed.reads : *mixed.writes;
  Resource& other = reads ? *mixed.writes : *mixed.reads;
  // A run of the other kind's pieces gives way now: its later pieces then see this one and take
  // their share, as they would piece by piece.
  if (other.heldBy) other.heldBy->yieldAt(ready_);
  const bool both = !other.reserved.empty() && other.reserved.back().end > ready_;
  const double rate = both ? mixed.rate * (reads ? share : 1.0 - share)
                           : (reads ? memory.readRate() : memory.writeRate());
  out.push_back({&own, transferTime(bytes, rate), 0, bytes});
}

// The root port the route `r` enters the host by passes `pcie.root_complex.port_bandwidth` of
// payload in both directions together. A direction alone may use all of it; while the other
// direction has traffic booked at the port past the time this piece is ready (or a run of pieces
// holds it), the read completions (outbound) get `port_read_share` of it and the posted writes
// (inbound) the rest. Nothing when no port limit is set.
void PathTiming::addRootPort(const Route& r, bool inbound, uint64_t bytes,
                             std::vector<Stage>& out) {
  const Link* entry = nullptr;
  for (const Crossing& c : r.crossings) {
    if (graph_.rootPortOf(c.link, inbound)) entry = c.link;
  }
  if (!entry) return;
  Resource* port = graph_.rootPortOf(entry, inbound);
  const spec::RootComplexSpec& rc = sys_.rootComplex;
  const Resource& other = *graph_.rootPortOf(entry, !inbound);
  const bool shared =
      other.heldBy != nullptr || (!other.reserved.empty() && other.reserved.back().end > ready_);
  const double share = inbound ? 1.0 - rc.portReadShare : rc.portReadShare;
  out.push_back({port, transferTime(bytes, rc.portBandwidth * (shared ? share : 1.0)), 0, bytes});
}

// The CPU core of the calling thread copies between pageable memory and the pinned buffer: the
// whole piece before the DMA may take it (or after the DMA left it), and host memory serves the
// copy's read and write while the core copies. The runtime double-buffers (the scheduler lets a
// staged copy have two pieces in flight), so the core copies one piece while the DMA moves the
// other.
void PathTiming::stagingCopy(int device, const Task& task, uint64_t offset, const Shape& shape,
                             std::vector<Stage>& out) {
  HostCpu& cpu = graph_.hostCpu();
  out.push_back({&cpu.stagingEngine(task.hostThread), transferTime(shape.bytes(), cpu.copyRate()),
                 0, shape.bytes(), true});
  // (the pageable buffer, and the thread's staging buffers beside it on the same node)
  const bool toDevice = task.src.kind == MemoryPlace::Kind::HostPageable;
  const uint32_t socket = hostSocket(task, toDevice ? task.src : task.dst, device);
  Stage memory = graph_.hostMemory(socket).access({shape.bytes(), 1}, true, true, 0);
  memory.rateOnly = true;
  memory.alongside = true;            // the core reads and writes memory while it copies
  memory.memory = Stage::kNotMemory;  // the staging buffer is not the copy's source or destination
  if (memory.service) {
    // The thread's pinned staging buffers, two per host thread at the bottom of host memory, in
    // turn for each `host.staging_buffer` bytes of the copy.
    const uint64_t buffer =
        2 * static_cast<uint64_t>(task.hostThread) + offset / sys_.host.stagingBufferSize % 2;
    const uint64_t staging = buffer * sys_.host.stagingBufferSize;
    if (toDevice) {
      addRuns(memory, task.src, task.srcPitch, task, offset, shape, false);
      memory.runs.push_back({staging, shape.bytes(), true});
    } else {
      memory.runs.push_back({staging, shape.bytes(), false});
      addRuns(memory, task.dst, task.dstPitch, task, offset, shape, true);
    }
  }
  out.push_back(memory);
}

// The DMA channel `channel` of `device` as a pipe of its own, for links that limit one transfer.
Resource& PathTiming::dmaQueue(int device, int channel) {
  Resource*& queue = dmaQueues_[{device, std::max(channel, 0)}];
  if (!queue) {
    queue = &graph_.resources().add(sys_.devices.at(static_cast<size_t>(device)).name + ".dma.ch" +
                                    std::to_string(std::max(channel, 0)));
  }
  return *queue;
}

// Where a piece of `task` (from byte `offset` of it, `shape`) lies on one side of the copy, for
// memories timed burst by burst: one run, or one per row of a shaped copy.
void PathTiming::addRuns(Stage& st, const MemoryPlace& place, uint64_t pitch, const Task& task,
                         uint64_t offset, const Shape& shape, bool write) {
  if (!st.service) return;
  if (task.rowBytes == 0) {
    st.runs.push_back({place.address + offset, shape.bytes(), write});
    return;
  }
  const uint64_t firstRow = offset / task.rowBytes;
  const uint64_t step = pitch > 0 ? pitch : task.rowBytes;
  if (shape.rowBytes != task.rowBytes) {  // a part of one row
    st.runs.push_back(
        {place.address + firstRow * step + offset % task.rowBytes, shape.bytes(), write});
    return;
  }
  for (uint64_t r = 0; r < shape.rows; ++r)
    st.runs.push_back({place.address + (firstRow + r) * step, shape.rowBytes, write});
}

// The device's DMA reads host memory: read requests go up, memory answers, completions come down.
void PathTiming::hostRead(int device, const Task& task, uint64_t offset, const Shape& shape,
                          std::vector<Stage>& out, uint32_t& requests) {
  const int target = task.dst.device;
  const uint32_t socket = hostSocket(task, task.src, target);
  const Endpoint host = Endpoint::host(static_cast<int>(socket));
  const Route& up = router_.route(Endpoint::of(target), host, device);
  const Route& down = router_.route(host, Endpoint::of(target), device);
  requests = static_cast<uint32_t>(std::min<uint64_t>(
      shape.rows * pcie::ceilDiv(shape.rowBytes, down.framing.request), 1u << 30));
  // The device's read tags: each request holds one for a round trip.
  const spec::DeviceSpec& dev = sys_.devices.at(static_cast<size_t>(device));
  const Picoseconds tagTime = static_cast<Picoseconds>(
      std::ceil(static_cast<double>(requests) * static_cast<double>(roundTrip(device, socket)) /
                dev.link.tags));
  Stage tags{&graph_.readTags(device), tagTime, 0, shape.bytes()};
  tags.rateOnly = true;
  out.push_back(tags);
  for (const Crossing& c : up.crossings) {
    Stage s = c.link->carry(c.direction, Traffic::ReadRequest, shape, up.framing);
    s.latency = c.latency;
    out.push_back(s);
  }
  Memory& memory = graph_.hostMemory(socket);
  out.push_back(memory.access(shape, true, false, memory.readLatency()));
  addRuns(out.back(), task.src, task.srcPitch, task, offset, shape, false);
  addHostMemoryShare(socket, true, shape.bytes(), out);
  addHostBridge(down, false, shape.bytes(), out);
  addRootPort(down, false, shape.bytes(), out);
  for (const Crossing& c : down.crossings) {
    Stage s = c.link->carry(c.direction, Traffic::Completion, shape, down.framing);
    s.latency = c.latency;
    out.push_back(s);
  }
  out.push_back(graph_.deviceMemory(target).access(shape, false, true, 0));
  addRuns(out.back(), task.dst, task.dstPitch, task, offset, shape, true);
}

std::vector<Stage> PathTiming::stages(int device, const Task& task, uint64_t offset,
                                      const Shape& shape, uint32_t& requests) {
  std::vector<Stage> out;
  requests = 0;
  const bool srcDev = task.src.kind == MemoryPlace::Kind::Device,
             dstDev = task.dst.kind == MemoryPlace::Kind::Device;
  if (task.kind == TaskKind::Memset) {
    out.push_back(graph_.deviceMemory(task.dst.device).access(shape, false, true, 0));
    addRuns(out.back(), task.dst, task.dstPitch, task, offset, shape, true);
    return out;
  }
  if (runsOnDevice_ || (srcDev && dstDev && task.src.device == task.dst.device)) {
    // A copy inside one memory reads and writes it: both take its bus.
    Memory& m = graph_.deviceMemory(runsOnDevice_ ? 0 : task.src.device);
    out.push_back(m.access(shape, true, true, m.readLatency()));
    addRuns(out.back(), task.src, task.srcPitch, task, offset, shape, false);
    addRuns(out.back(), task.dst, task.dstPitch, task, offset, shape, true);
    return out;
  }
  if (!srcDev) {
    if (isPageable(task)) stagingCopy(task.dst.device, task, offset, shape, out);
    hostRead(device, task, offset, shape, out, requests);
    return out;
  }
  // Device memory is read, and the data travels as posted writes to host memory or to the peer.
  Memory& source = graph_.deviceMemory(task.src.device);
  out.push_back(source.access(shape, true, false, source.readLatency()));
  addRuns(out.back(), task.src, task.srcPitch, task, offset, shape, false);
  const uint32_t socket = dstDev ? 0 : hostSocket(task, task.dst, task.src.device);
  const Route& r = router_.route(
      Endpoint::of(task.src.device),
      dstDev ? Endpoint::of(task.dst.device) : Endpoint::host(static_cast<int>(socket)), device);
  if (!dstDev) hostInbound(r, socket, shape.bytes(), out);
  // One DMA queue's transfer moves at most the transfer rate of the device links it crosses
  // (HCCS: the rate of one SDMA transfer); transfers on other channels share the wire beside it.
  double queueRate = 0;
  for (const Crossing& c : r.crossings) {
    const double cap = c.link->transferRate();
    if (cap > 0) queueRate = queueRate > 0 ? std::min(queueRate, cap) : cap;
  }
  if (queueRate > 0) {
    out.push_back({&dmaQueue(device, task.channel), transferTime(shape.bytes(), queueRate), 0,
                   shape.bytes()});
  }
  for (const Crossing& c : r.crossings) {
    Stage s = c.link->carry(c.direction, Traffic::Write, shape, r.framing);
    s.latency = c.latency;
    out.push_back(s);
  }
  out.push_back((dstDev ? graph_.deviceMemory(task.dst.device) : graph_.hostMemory(socket))
                    .access(shape, false, true, 0));
  addRuns(out.back(), task.dst, task.dstPitch, task, offset, shape, true);
  if (!dstDev && isPageable(task)) stagingCopy(task.src.device, task, offset, shape, out);
  return out;
}

// A kernel reading host memory in place (zero copy): the same requests and completions as a DMA
// read of the host, the data landing in the cores instead of device memory.
void PathTiming::kernelHostRead(int device, const Task& task, uint64_t bytes,
                                std::vector<Stage>& out) {
  Task read;
  read.kind = TaskKind::Copy;
  read.hostThread = task.hostThread;
  read.hostThreadInProcess = task.hostThreadInProcess;
  read.src = {MemoryPlace::Kind::HostPinned, -1, task.kernel.hostAddress};
  read.dst = {MemoryPlace::Kind::Device, device, 0};
  uint32_t requests = 0;
  hostRead(device, read, 0, Shape{bytes, 1}, out, requests);
  out.pop_back();  // (no device memory on the way: the cores take the completions)
}

// A kernel writing host memory in place: posted writes up the device's route to host memory.
void PathTiming::kernelHostWrite(int device, const Task& task, uint64_t bytes,
                                 std::vector<Stage>& out) {
  const Shape shape{bytes, 1};
  const uint32_t socket = graph_.hostSocketFor(-1, device, task.hostThreadInProcess);
  const Route& r =
      router_.route(Endpoint::of(device), Endpoint::host(static_cast<int>(socket)), device);
  hostInbound(r, socket, bytes, out);
  for (const Crossing& c : r.crossings) {
    Stage st = c.link->carry(c.direction, Traffic::Write, shape, r.framing);
    st.latency = c.latency;
    out.push_back(st);
  }
  out.push_back(graph_.hostMemory(socket).access(shape, false, true, 0));
  if (out.back().service) out.back().runs.push_back({task.kernel.hostAddress, bytes, true});
}

// A kernel's reads as one stream through a memory timed burst by burst: the cores keep the tiles
// they double-buffer in flight (two per core, as the scheduler's window for kernels), so the
// reads of the tiles after this one, up to that bound, are queued in the memory's channels
// before this tile's end is known. (The bound is the double buffering the kernel model assumes,
// not a published queue depth of the cores' load pipes: assumed.)
std::shared_ptr<const StreamAhead> PathTiming::kernelStream(const spec::AiCoreSpec& cores,
                                                            const Task& task, uint64_t offset,
                                                            uint64_t burst) {
  const uint64_t step = kernelStepBytes(cores);
  auto st = std::make_shared<StreamAhead>();
  st->id = task.id;
  st->piece = offset / step;
  st->pieces = (task.bytes + step - 1) / step;
  st->ahead = kernelWindowBytes(cores) / step - 1;
  // (Called only while this step is served: the task outlives it.)
  st->reads = [&task, step, burst](uint64_t k, std::vector<AddressRun>& out) {
    const uint64_t at = k * step;
    const KernelSlice s = sliceOf(task.kernel, at, std::min(step, task.bytes - at));
    kernelRuns(task.kernel, false, s.readFrom, s.bytesRead, burst, 0, out);
  };
  return st;
}

// One step of a kernel: the AI Cores share device memory with the DMA channels piece by piece.
// One booking of the memory for a tile's reads and writes together: the cores double-buffer, so a
// tile's results stream out while the next tile streams in.
ChunkTiming PathTiming::kernelStep(int device, const Task& task, uint64_t offset,
                                   Picoseconds ready) {
  const spec::AiCoreSpec& cores = sys_.devices.at(static_cast<size_t>(device)).aicore;
  const uint64_t length = std::min(kernelStepBytes(cores), task.bytes - offset);
  const KernelSlice s = sliceOf(task.kernel, offset, length);
  ready_ = ready;
  std::vector<Stage> st;
  if (s.bytesRead + s.bytesWritten > 0) {  // pure arithmetic does not wait for the memory
    Memory& m = graph_.deviceMemory(device);
    Stage reads = m.access({s.bytesRead, 1}, true, false, m.readLatency());
    const Stage writes = m.access({s.bytesWritten, 1}, false, true, 0);
    reads.occupancy += writes.occupancy;
    reads.bytes += writes.bytes;
    reads.reads = s.bytesRead > 0;
    reads.writes = s.bytesWritten > 0;
    if (reads.service) {
      // The tile's bursts at the places the kernel's access pattern gives.
      const uint64_t burst = task.kernel.accessBytes > 0
                                 ? task.kernel.accessBytes
                                 : sys_.devices.at(static_cast<size_t>(device)).memory.burstBytes();
      kernelRuns(task.kernel, false, s.readFrom, s.bytesRead, burst, 0, reads.runs);
      kernelRuns(task.kernel, true, s.writtenFrom, s.bytesWritten, burst, task.kernel.bytesRead,
                 reads.runs);
      reads.stream = kernelStream(cores, task, offset, burst);
    }
    st.push_back(reads);
  }
  if (s.hostRead > 0) kernelHostRead(device, task, s.hostRead, st);
  st.push_back({&graph_.aiCores(device), coreTime(cores, s, task.kernel.opBytes), 0,
                s.bytesRead + s.bytesWritten});
  if (s.hostWritten > 0) kernelHostWrite(device, task, s.hostWritten, st);
  const auto [nextIssue, done] =
      flow(st, ready, observer_ ? &spans_ : nullptr, bookingOwner(device, -1));
  lastRepeats_ = false;  // a kernel's tiles follow its access pattern, not one shape
  if (observer_ && length > 0)
    reportKernel(device, task.kernel, offset, length, spans_.front().first, spans_.front().second);
  return {length, nextIssue, done, 0};
}

}  // namespace ascendsim::models
