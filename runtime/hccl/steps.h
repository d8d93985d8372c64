#pragma once
// Builds one rank's part of an operation as tasks on its streams: copies and inline reductions
// between device memories (the rank's DMA engine moves them through the machine's links and
// memories like any copy), and signals recorded and waited for across ranks, as HCCL's notify
// record / wait pairs. Every byte moves, and every reduction is applied, when its task ends.

#include <cstdint>
#include <vector>

#include "models/task/task.h"
#include "runtime/core/service_port.h"
#include "runtime/hccl/group.h"

namespace ascendsim::runtime::hccl {

class Steps {
 public:
  // `space`/`seq`: the operation (Group's signal spaces); `parties`: the ranks that take part.
  Steps(ServicePort& port, HostThread& t, Comm& comm, Stream& main, uint64_t space, uint64_t seq,
        uint32_t parties);
  ~Steps();  // the operation is queued: the group forgets its signals once every party's is
  Steps(const Steps&) = delete;
  Steps& operator=(const Steps&) = delete;

  Group& group() { return *comm_.group; }
  uint32_t me() const { return comm_.rank; }
  Stream& main() { return main_; }
  Stream& helper(uint32_t peer) { return *comm_.helpers.at(peer); }

  // A place in a staging buffer of rank `r`, `offset` bytes in.
  models::MemoryPlace cclIn(uint32_t r, uint64_t offset) const;
  models::MemoryPlace cclOut(uint32_t r, uint64_t offset) const;

  // Copies `bytes` from src to dst on stream `s` (nothing for 0 bytes).
  void copy(Stream& s, const models::MemoryPlace& dst, const models::MemoryPlace& src,
            uint64_t bytes);
  // dst = dst op src, element by element, as the DMA engine's inline reduction does while it
  // writes: timed as the copy it is, applied when it ends.
  void reduce(Stream& s, const models::MemoryPlace& dst, const models::MemoryPlace& src,
              uint64_t bytes, int32_t dataType, int32_t op);
  // dst = dst op src on the rank's AI Cores (a reduce kernel; both in the stream's device's
  // memory), where the DMA engine cannot reduce inline.
  void reduceOnCores(Stream& s, const models::MemoryPlace& dst, const models::MemoryPlace& src,
                     uint64_t bytes, int32_t dataType, int32_t op);
  // Whether this operation's reductions are the DMA engine's inline ones (else reduceOnCores).
  bool inlineReduce() const { return inline_; }
  void setInlineReduce(bool on) { inline_ = on; }
  void signal(Stream& s, uint32_t phase, uint32_t from, uint32_t to, uint64_t step = 0);
  void wait(Stream& s, uint32_t phase, uint32_t from, uint32_t to, uint64_t step = 0);
  // The helper streams of these peers start after what the rank's stream holds so far; and the
  // rank's stream goes on only once they have done their part.
  void fork();
  void fork(const std::vector<uint32_t>& peers);  // those peers' helper streams only
  void join();

 private:
  ServicePort& port_;
  HostThread& t_;
  Comm& comm_;
  Stream& main_;
  uint64_t space_, seq_;
  uint32_t parties_;
  bool forked_ = false;
  std::vector<uint32_t> forkedPeers_;
  bool inline_ = true;
};

inline models::MemoryPlace offsetBy(models::MemoryPlace p, uint64_t offset) {
  p.address += offset;
  return p;
}

}  // namespace ascendsim::runtime::hccl
