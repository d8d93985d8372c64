#pragma once
// "pcie": the DMA engine moves a copy in pieces through the components on its route in the
// machine graph. Host reads send MRRS-sized read requests up and get completions back, so a piece
// holds read requests until its data lands, and a channel keeps at most `dma.outstanding_reads`
// of them in flight (the device's read tags bound all its channels together). Posted writes
// (device to host, peer to peer) and memsets stream without requests. Pageable copies are staged
// by the calling thread's CPU core through the pinned buffer, `host.staging_buffer` at a time.

#include <map>
#include <utility>
#include <vector>

#include "models/dma/transfer_timing.h"
#include "models/machine/machine_graph.h"
#include "models/machine/router.h"

namespace ascendsim::models {

class PathTiming : public TransferTiming {
 public:
  PathTiming(const spec::SystemSpec& sys, MachineGraph& graph, Router& router);
  ChunkTiming moveChunk(int device, const Task& task, uint64_t offset, Picoseconds ready) override;
  uint32_t readWindow(int device, const Task& task) const override;
  const char* name() const override { return "pcie"; }
  bool lastPathRepeats(std::vector<PathUse>& path) const override;

  // The stages one piece of `shape` crosses for `task` run by `device`'s DMA, in order, and the
  // read requests it sends (exposed for tests).
  std::vector<Stage> stages(int device, const Task& task, uint64_t offset, const Shape& shape,
                            uint32_t& requests);

 private:
  ChunkTiming kernelStep(int device, const Task& task, uint64_t offset, Picoseconds ready);
  static std::shared_ptr<const StreamAhead> kernelStream(const spec::AiCoreSpec& cores,
                                                         const Task& task, uint64_t offset,
                                                         uint64_t burst);
  uint64_t pieceBytes(int device, const Task& task, uint64_t offset) const;
  // The read window of `device`'s channels for rows of `rowBytes` (MRRS: contiguous), and the
  // requests one piece holds.
  struct ReadWindow {
    uint32_t requests = 0, perPiece = 0;
  };
  ReadWindow windowFor(int device, uint64_t rowBytes) const;
  ReadWindow readWindowOf(int device, const Task& task) const;
  void kernelHostRead(int device, const Task& task, uint64_t bytes, std::vector<Stage>& out);
  void kernelHostWrite(int device, const Task& task, uint64_t bytes, std::vector<Stage>& out);
  void hostRead(int device, const Task& task, uint64_t offset, const Shape& shape,
                std::vector<Stage>& out, uint32_t& requests);
  void stagingCopy(int device, const Task& task, uint64_t offset, const Shape& shape,
                   std::vector<Stage>& out);
  Resource& dmaQueue(int device, int channel);
  size_t addEngineStage(int device, const Task& task, uint64_t bytes, std::vector<Stage>& st);
  void addHostBridge(const Route& r, bool inbound, uint64_t bytes, std::vector<Stage>& out);
  void addRootPort(const Route& r, bool inbound, uint64_t bytes, std::vector<Stage>& out);
  void hostInbound(const Route& r, uint32_t socket, uint64_t bytes, std::vector<Stage>& out);
  // The socket of the host side `host` of `task` whose other side is `device`'s memory.
  uint32_t hostSocket(const Task& task, const MemoryPlace& host, int device) const;
  // The round trip of `device`'s reads of socket `socket`'s memory.
  Picoseconds roundTrip(int device, uint32_t socket);
  void addHostMemoryShare(uint32_t socket, bool reads, uint64_t bytes, std::vector<Stage>& out);
  bool isMemoryShare(const Resource* r) const;
  static void addRuns(Stage& st, const MemoryPlace& place, uint64_t pitch, const Task& task,
                      uint64_t offset, const Shape& shape, bool write);
  const spec::SystemSpec& sys_;
  MachineGraph& graph_;
  Router& router_;
  mutable std::map<std::pair<int, uint64_t>, ReadWindow> windows_;  // by (device, row width)
  std::vector<Picoseconds> roundTrip_;  // of a read to its default host memory, per device
  std::map<std::pair<int, uint32_t>, Picoseconds> farRoundTrips_;  // to other sockets' memories
  std::vector<std::pair<Picoseconds, Picoseconds>> spans_;  // stage bookings of the last piece
  std::map<std::pair<int, int>, Resource*> dmaQueues_;      // by (device, channel), as first used
  struct MixedMemory {
    Resource* reads = nullptr;
    Resource* writes = nullptr;
    double rate = 0;  // bytes/s of reads and writes together under mixed traffic
  };
  std::map<uint32_t, MixedMemory> mixedMemories_;  // by socket, as first used
  std::vector<Stage> lastStages_;                  // the last copy or memset piece's way
  bool lastRepeats_ = false;                       // false after a kernel's tile
  Picoseconds ready_ = 0;  // when the piece being planned may start (root port arbitration)
};

}  // namespace ascendsim::models
