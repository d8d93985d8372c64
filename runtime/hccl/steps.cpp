#include "runtime/hccl/steps.h"
#include "runtime/core/data_mode.h"

#include "runtime/hccl/data_types.h"

namespace ascendsim::runtime::hccl {

using models::MemoryPlace;
using models::Task;
using models::TaskKind;

namespace {
// dst = dst op src over `bytes` of device memory (the shared SDMA reduction's arithmetic).
void reduceBytes(MemoryManager* mm, const MemoryPlace& dst, const MemoryPlace& src, uint64_t bytes,
                 int32_t dataType, int32_t op, bool saturate) {
  ops::reduceDeviceBytes(*mm, dst, src, bytes, reduceElement(dataType), reduceOperation(op),
                         saturate);
}
}  // namespace

Steps::Steps(ServicePort& port, HostThread& t, Comm& comm, Stream& main, uint64_t space,
             uint64_t seq, uint32_t parties)
    : port_(port), t_(t), comm_(comm), main_(main), space_(space), seq_(seq), parties_(parties) {}

Steps::~Steps() {
  comm_.group->queued(space_, seq_, parties_);
}

MemoryPlace Steps::cclIn(uint32_t r, uint64_t offset) const {
  return offsetBy(comm_.group->rank(r).inPlace, offset);
}

MemoryPlace Steps::cclOut(uint32_t r, uint64_t offset) const {
  return offsetBy(comm_.group->rank(r).outPlace, offset);
}

void Steps::copy(Stream& s, const MemoryPlace& dst, const MemoryPlace& src, uint64_t bytes) {
  if (bytes == 0 || (dst.device == src.device && dst.address == src.address)) return;
  auto task = std::make_unique<Task>();
  task->kind = TaskKind::Copy;
  task->src = src;
  task->dst = dst;
  task->bytes = bytes;
  MemoryManager* mm = &port_.memory();
  task->effect = [mm, dst, src, bytes] { mm->copy(dst, src, bytes); };
  port_.submit(t_, s, std::move(task));
}

void Steps::reduce(Stream& s, const MemoryPlace& dst, const MemoryPlace& src, uint64_t bytes,
                   int32_t dataType, int32_t op) {
  if (bytes == 0) return;
  port_.submit(t_, s,
               ops::sdmaReduceTask(port_.memory(), dst, src, bytes, reduceElement(dataType),
                                   reduceOperation(op), s.saturate));
}

void Steps::reduceOnCores(Stream& s, const MemoryPlace& dst, const MemoryPlace& src, uint64_t bytes,
                          int32_t dataType, int32_t op) {
  if (bytes == 0) return;
  const uint32_t element = elementSize(dataType);
  auto task = std::make_unique<Task>();
  task->kind = TaskKind::Kernel;
  task->dst = dst;
  // A vector kernel on every core: reads both operands, writes the result, one operation per
  // element.
  task->kernel.name = "HcclReduce";
  task->kernel.bytesRead = 2 * bytes;
  task->kernel.bytesWritten = bytes;
  task->kernel.ops = bytes / element;
  task->kernel.opBytes = element;
  task->kernel.readRanges = {{dst.address, bytes}, {src.address, bytes}};
  task->kernel.writeRanges = {{dst.address, bytes}};
  task->bytes = task->kernel.bytesRead + task->kernel.bytesWritten;
  MemoryManager* mm = &port_.memory();
  const bool saturate = s.saturate;
  task->effect = [mm, dst, src, bytes, dataType, op, saturate] {
    if (movesData()) reduceBytes(mm, dst, src, bytes, dataType, op, saturate);
  };
  port_.submit(t_, s, std::move(task));
}

void Steps::signal(Stream& s, uint32_t phase, uint32_t from, uint32_t to, uint64_t step) {
  std::shared_ptr<models::SyncPoint> sp =
      comm_.group->signal({space_, seq_, phase, from, to, step});
  auto task = std::make_unique<Task>();
  task->kind = TaskKind::EventRecord;
  task->sync = sp;
  sp->recordsSubmitted++;
  port_.submit(t_, s, std::move(task));
}

void Steps::wait(Stream& s, uint32_t phase, uint32_t from, uint32_t to, uint64_t step) {
  std::shared_ptr<models::SyncPoint> sp =
      comm_.group->signal({space_, seq_, phase, from, to, step});
  auto task = std::make_unique<Task>();
  task->kind = TaskKind::EventWait;
  task->sync = sp;
  task->waitForRecord = 1;
  port_.submit(t_, s, std::move(task));
  sp->waitsSubmitted++;
}

void Steps::fork() {
  std::vector<uint32_t> peers;
  for (uint32_t peer = 0; peer < comm_.helpers.size(); ++peer) {
    if (peer != me()) peers.push_back(peer);
  }
  fork(peers);
}

void Steps::fork(const std::vector<uint32_t>& peers) {
  forked_ = true;
  forkedPeers_ = peers;
  signal(main_, kFork, me(), me());
  for (uint32_t peer : forkedPeers_) wait(helper(peer), kFork, me(), me());
}

void Steps::join() {
  if (!forked_) return;
  for (uint32_t peer : forkedPeers_) signal(helper(peer), kJoin, me(), peer);
  for (uint32_t peer : forkedPeers_) wait(main_, kJoin, me(), peer);
}

}  // namespace ascendsim::runtime::hccl
