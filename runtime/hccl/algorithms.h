#pragma once
// Each HCCL operation expanded, for one rank, into the steps HCCL's algorithms take on the
// communicator's topology (hicann/hcomm src/legacy/ascend910, as the facts sheet summarises it):
// - full HCCS mesh (910B, Atlas 800T A2): every rank moves one slice to or from each peer at once,
//   one helper stream per peer (AllReduce = reduce-scatter by inline-reducing writes into the
//   peers' staging buffers, then all-gather by reads from them; up to 256 KiB, reduce to rank 0
//   and read back; Broadcast = scatter + all-gather; Reduce = reduce-scatter + gather);
// - otherwise a ring over the ranks in order (p - 1 reduce steps, p - 1 gather steps; Broadcast
//   and Reduce along the chain);
// AlltoAll(V) and Send/Recv write straight into the receiver's staging buffer (its CCL in, one
// region per sender). Data larger than the staging buffers goes in passes.
// The user's buffers are places already checked to lie in the rank's device memory.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/hccl/steps.h"

namespace ascendsim::runtime::hccl {

constexpr uint64_t kSliceAlign = 16 * 1024;       // HCCL_MIN_SLICE_ALIGN_910B
constexpr uint64_t kSmallAllReduce = 256 * 1024;  // reduce-to-one below this (910B mesh)

// Each rank's block of a reduce-scatter's input or an all-gather's output: its bytes and its byte
// offset in the buffer (HcclReduceScatterV / HcclAllGatherV give them per rank; the plain
// operations' blocks are equal and back to back).
struct Blocks {
  std::vector<uint64_t> bytes, offsets;
  static Blocks uniform(uint32_t ranks, uint64_t blockBytes);
  uint64_t largest() const;
  // The bytes of block j that a pass over [o, o + n) of every block covers.
  uint64_t piece(uint32_t j, uint64_t o, uint64_t n) const {
    return bytes[j] > o ? std::min(n, bytes[j] - o) : 0;
  }
};

// Each returns the name of the algorithm it used, for the trace.
const char* allReduce(Steps& s, const models::MemoryPlace& send, const models::MemoryPlace& recv,
                      uint64_t bytes, int32_t dataType, int32_t op);
// `recv` receives the rank's own block.
const char* reduceScatter(Steps& s, const models::MemoryPlace& send,
                          const models::MemoryPlace& recv, const Blocks& blocks, int32_t dataType,
                          int32_t op);
// `send` holds the rank's own block.
const char* allGather(Steps& s, const models::MemoryPlace& send, const models::MemoryPlace& recv,
                      const Blocks& blocks);
const char* broadcast(Steps& s, const models::MemoryPlace& buf, uint64_t bytes, uint32_t root);
// `recv` is used only on the root.
const char* reduce(Steps& s, const models::MemoryPlace& send, const models::MemoryPlace& recv,
                   uint64_t bytes, int32_t dataType, int32_t op, uint32_t root);
// Per peer: bytes and byte offsets into the buffers.
const char* allToAllV(Steps& s, const models::MemoryPlace& send,
                      const std::vector<uint64_t>& sendBytes,
                      const std::vector<uint64_t>& sendOffsets, const models::MemoryPlace& recv,
                      const std::vector<uint64_t>& recvBytes,
                      const std::vector<uint64_t>& recvOffsets);
const char* barrier(Steps& s);
// The root's `send` (rank-size blocks of `blockBytes`) to every rank's `recv`; `send` is used only
// on the root.
const char* scatter(Steps& s, const models::MemoryPlace& send, const models::MemoryPlace& recv,
                    uint64_t blockBytes, uint32_t root);
// Point to point, on stream `st` of the rank: `s` is in the pair's own signal space.
void send(Steps& s, Stream& st, const models::MemoryPlace& buf, uint64_t bytes, uint32_t to);
void recv(Steps& s, Stream& st, const models::MemoryPlace& buf, uint64_t bytes, uint32_t from);

// The bytes of a receiver's CCL in that each sender may fill at a time (AlltoAll, Send/Recv).
uint64_t regionBytes(const Group& g);

}  // namespace ascendsim::runtime::hccl
