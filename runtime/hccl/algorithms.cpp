#include "runtime/hccl/algorithms.h"

#include <algorithm>

#include "runtime/hccl/data_types.h"

namespace ascendsim::runtime::hccl {

using models::MemoryPlace;

namespace {

uint64_t ceilDiv(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

uint64_t roundUp(uint64_t v, uint64_t to) {
  return ceilDiv(v, to) * to;
}

// The most one rank's slice may hold in a staging buffer: whole 16 KiB units of it.
uint64_t sliceMax(const Group& g) {
  return std::max(kSliceAlign, g.cclBytes() / kSliceAlign * kSliceAlign);
}

// `total` bytes cut into one slice per rank, each a multiple of `align` (the last ones shorter,
// or empty).
struct Slices {
  uint64_t size = 0, total = 0;
  uint64_t offset(uint32_t j) const { return std::min(uint64_t{j} * size, total); }
  uint64_t bytes(uint32_t j) const { return std::min(total, offset(j) + size) - offset(j); }
};

Slices cut(uint64_t total, uint32_t parts, uint64_t align) {
  return {roundUp(ceilDiv(total, parts), align), total};
}

// Calls pass(k, offset, bytes) for the passes that cover `total` bytes, `perPass` at a time.
template <class Pass>
void inPasses(uint64_t total, uint64_t perPass, Pass pass) {
  uint64_t k = 0;
  for (uint64_t o = 0; o < total; o += perPass, ++k) pass(k, o, std::min(perPass, total - o));
}

uint32_t rightOf(const Steps& s, uint32_t size) {
  return (s.me() + 1) % size;
}

uint32_t leftOf(const Steps& s, uint32_t size) {
  return (s.me() + size - 1) % size;
}

// A rank's part `src` (in its own memory) of what `owner` accumulates in its CCL out at
// `accOffset`: reduce-written there by the DMA engine when it reduces inline; else copied into the
// owner's CCL in at `stageOffset`, for the owner to add in with absorb().
void contribute(Steps& s, Stream& st, uint32_t owner, uint64_t accOffset, uint64_t stageOffset,
                const MemoryPlace& src, uint64_t n, int32_t dataType, int32_t op) {
  if (s.inlineReduce()) {
    s.reduce(st, s.cclOut(owner, accOffset), src, n, dataType, op);
  } else {
    s.copy(st, s.cclIn(owner, stageOffset), src, n);
  }
}

// At the owner, once a contribution has arrived: a reduce kernel adds it in, unless the DMA
// engine already did.
void absorb(Steps& s, Stream& st, uint64_t accOffset, uint64_t stageOffset, uint64_t n,
            int32_t dataType, int32_t op) {
  if (!s.inlineReduce()) {
    s.reduceOnCores(st, s.cclOut(s.me(), accOffset), s.cclIn(s.me(), stageOffset), n, dataType, op);
  }
}

// The most one rank's slice of a reduction may hold: a whole staging buffer with inline
// reduction, else the region of the owner's CCL in each sender stages into.
// The all-gather half of a ring all-reduce, once the reduce half has left each member one
// finished chunk of `c` (at `base` in its CCL out): the member at `position` of a ring of `size`
// tells its left neighbour it is done (kRingDone, numbered `doneTag`), then in size - 1 steps
// copies the chunk it finished or last received into its right neighbour's CCL out; `tag(step)`
// numbers the pass's handshakes.
template <class Tag>
void ringGatherHalf(Steps& s, Stream& st, const Slices& c, uint64_t base, uint32_t size,
                    uint32_t position, uint32_t left, uint32_t right, uint64_t doneTag, Tag tag) {
  const uint32_t me = s.me();
  s.signal(st, kRingDone, me, left, doneTag);
  for (uint32_t step = 0; step + 1 < size; ++step) {
    const uint32_t chunk = (position + 1 + size - step) % size;
    if (step == 0) {
      s.wait(st, kRingDone, right, me, doneTag);
    } else {
      s.wait(st, kRingGather, left, me, tag(step - 1));
    }
    s.copy(st, s.cclOut(right, base + c.offset(chunk)), s.cclOut(me, base + c.offset(chunk)),
           c.bytes(chunk));
    s.signal(st, kRingGather, me, right, tag(step));
  }
  s.wait(st, kRingGather, left, me, tag(uint64_t{size} - 2));
}

uint64_t reduceSliceMax(const Steps& s, const Group& g) {
  return s.inlineReduce() ? sliceMax(g) : regionBytes(g);
}

// ---------------------------------------------------------------- full mesh

// Every rank copies its own slice into its CCL out, the peers add theirs into it (one helper
// stream per peer, all at once), and every rank reads each finished slice back from its owner.
void meshAllReduce(Steps& s, const MemoryPlace& send, const MemoryPlace& recv, uint64_t bytes,
                   int32_t dataType, int32_t op) {
  const uint32_t p = s.group().size(), me = s.me();
  const uint64_t region = regionBytes(s.group());
  s.fork();
  const uint64_t perPass = uint64_t{p} * reduceSliceMax(s, s.group());
  inPasses(bytes, perPass, [&](uint64_t k, uint64_t o, uint64_t n) {
    const Slices sl = cut(n, p, kSliceAlign);
    s.copy(s.main(), s.cclOut(me, 0), offsetBy(send, o + sl.offset(me)), sl.bytes(me));
    s.signal(s.main(), kReady, me, kEveryRank, k);
    for (uint32_t j = 0; j < p; ++j) {
      if (j == me) continue;
      Stream& h = s.helper(j);
      s.wait(h, kReady, j, kEveryRank, k);
      contribute(s, h, j, 0, me * region, offsetBy(send, o + sl.offset(j)), sl.bytes(j), dataType,
                 op);
      s.signal(h, kWritten, me, j, k);
    }
    for (uint32_t i = 0; i < p; ++i) {
      if (i == me) continue;
      s.wait(s.main(), kWritten, i, me, k);
      absorb(s, s.main(), 0, i * region, sl.bytes(me), dataType, op);
    }
    s.signal(s.main(), kFinal, me, kEveryRank, k);
    for (uint32_t j = 0; j < p; ++j) {
      if (j == me) continue;
      Stream& h = s.helper(j);
      s.wait(h, kFinal, j, kEveryRank, k);
      s.copy(h, offsetBy(recv, o + sl.offset(j)), s.cclOut(j, 0), sl.bytes(j));
      s.signal(h, kRead, me, j, k);
    }
    s.copy(s.main(), offsetBy(recv, o + sl.offset(me)), s.cclOut(me, 0), sl.bytes(me));
    for (uint32_t i = 0; i < p; ++i) {
      if (i != me) s.wait(s.main(), kRead, i, me, k);
    }
  });
  s.join();
}

// Small data: rank 0's CCL out gathers every rank's inline-reduced buffer, and every rank reads
// the result back from it.
void reduceToOneAllReduce(Steps& s, const MemoryPlace& send, const MemoryPlace& recv,
                          uint64_t bytes, int32_t dataType, int32_t op) {
  const uint32_t p = s.group().size(), me = s.me();
  const uint64_t region = regionBytes(s.group());
  Stream& m = s.main();
  if (me == 0) {
    s.copy(m, s.cclOut(0, 0), send, bytes);
    s.signal(m, kReady, 0, kEveryRank);
    for (uint32_t i = 1; i < p; ++i) {
      s.wait(m, kWritten, i, 0);
      absorb(s, m, 0, i * region, bytes, dataType, op);
    }
    s.signal(m, kFinal, 0, kEveryRank);
    s.copy(m, recv, s.cclOut(0, 0), bytes);
    for (uint32_t i = 1; i < p; ++i) s.wait(m, kRead, i, 0);
  } else {
    s.wait(m, kReady, 0, kEveryRank);
    contribute(s, m, 0, 0, me * region, send, bytes, dataType, op);
    s.signal(m, kWritten, me, 0);
    s.wait(m, kFinal, 0, kEveryRank);
    s.copy(m, recv, s.cclOut(0, 0), bytes);
    s.signal(m, kRead, me, 0);
  }
}

void meshReduceScatter(Steps& s, const MemoryPlace& send, const MemoryPlace& recv,
                       const Blocks& blocks, int32_t dataType, int32_t op) {
  const uint32_t p = s.group().size(), me = s.me();
  const uint64_t region = regionBytes(s.group());
  s.fork();
  inPasses(blocks.largest(), reduceSliceMax(s, s.group()), [&](uint64_t k, uint64_t o, uint64_t n) {
    const uint64_t mine = blocks.piece(me, o, n);
    s.copy(s.main(), s.cclOut(me, 0), offsetBy(send, blocks.offsets[me] + o), mine);
    s.signal(s.main(), kReady, me, kEveryRank, k);
    for (uint32_t j = 0; j < p; ++j) {
      if (j == me) continue;
      Stream& h = s.helper(j);
      s.wait(h, kReady, j, kEveryRank, k);
      contribute(s, h, j, 0, me * region, offsetBy(send, blocks.offsets[j] + o),
                 blocks.piece(j, o, n), dataType, op);
      s.signal(h, kWritten, me, j, k);
    }
    for (uint32_t i = 0; i < p; ++i) {
      if (i == me) continue;
      s.wait(s.main(), kWritten, i, me, k);
      absorb(s, s.main(), 0, i * region, mine, dataType, op);
    }
    s.copy(s.main(), offsetBy(recv, o), s.cclOut(me, 0), mine);
  });
  s.join();
}

void meshAllGather(Steps& s, const MemoryPlace& send, const MemoryPlace& recv,
                   const Blocks& blocks) {
  const uint32_t p = s.group().size(), me = s.me();
  s.fork();
  inPasses(blocks.largest(), sliceMax(s.group()), [&](uint64_t k, uint64_t o, uint64_t n) {
    const uint64_t mine = blocks.piece(me, o, n);
    s.copy(s.main(), s.cclOut(me, 0), offsetBy(send, o), mine);
    s.signal(s.main(), kReady, me, kEveryRank, k);
    s.copy(s.main(), offsetBy(recv, blocks.offsets[me] + o), offsetBy(send, o), mine);
    for (uint32_t j = 0; j < p; ++j) {
      if (j == me) continue;
      Stream& h = s.helper(j);
      s.wait(h, kReady, j, kEveryRank, k);
      s.copy(h, offsetBy(recv, blocks.offsets[j] + o), s.cclOut(j, 0), blocks.piece(j, o, n));
      s.signal(h, kRead, me, j, k);
    }
    for (uint32_t i = 0; i < p; ++i) {
      if (i != me) s.wait(s.main(), kRead, i, me, k);
    }
  });
  s.join();
}

// Scatter from the root's CCL out into every rank's, then all-gather from those.
void meshBroadcast(Steps& s, const MemoryPlace& buf, uint64_t bytes, uint32_t root) {
  const uint32_t p = s.group().size(), me = s.me();
  Stream& m = s.main();
  if (me != root) s.fork();
  inPasses(bytes, sliceMax(s.group()), [&](uint64_t k, uint64_t o, uint64_t n) {
    const Slices sl = cut(n, p, kSliceAlign);
    if (me == root) {
      s.copy(m, s.cclOut(root, 0), offsetBy(buf, o), n);
      s.signal(m, kReady, root, kEveryRank, k);
      for (uint32_t i = 0; i < p; ++i) {
        if (i != root) s.wait(m, kHave, i, kEveryRank, k);
      }
      for (uint32_t i = 0; i < p; ++i) {
        if (i != root) s.wait(m, kRead, i, root, k);
      }
      return;
    }
    s.wait(m, kReady, root, kEveryRank, k);
    s.copy(m, s.cclOut(me, sl.offset(me)), s.cclOut(root, sl.offset(me)), sl.bytes(me));
    s.signal(m, kHave, me, kEveryRank, k);
    s.copy(m, offsetBy(buf, o + sl.offset(me)), s.cclOut(me, sl.offset(me)), sl.bytes(me));
    for (uint32_t j = 0; j < p; ++j) {
      if (j == me) continue;
      Stream& h = s.helper(j);
      s.wait(h, j == root ? kReady : kHave, j, kEveryRank, k);
      s.copy(h, offsetBy(buf, o + sl.offset(j)), s.cclOut(j, sl.offset(j)), sl.bytes(j));
      s.signal(h, kRead, me, j, k);
    }
    for (uint32_t i = 0; i < p; ++i) {
      if (i != me && i != root) s.wait(m, kRead, i, me, k);
    }
  });
  s.join();
}

// Reduce-scatter as in AllReduce, then the root reads every finished slice.
void meshReduce(Steps& s, const MemoryPlace& send, const MemoryPlace& recv, uint64_t bytes,
                int32_t dataType, int32_t op, uint32_t root) {
  const uint32_t p = s.group().size(), me = s.me();
  const uint64_t region = regionBytes(s.group());
  Stream& m = s.main();
  s.fork();
  const uint64_t perPass = uint64_t{p} * reduceSliceMax(s, s.group());
  inPasses(bytes, perPass, [&](uint64_t k, uint64_t o, uint64_t n) {
    const Slices sl = cut(n, p, kSliceAlign);
    s.copy(m, s.cclOut(me, 0), offsetBy(send, o + sl.offset(me)), sl.bytes(me));
    s.signal(m, kReady, me, kEveryRank, k);
    for (uint32_t j = 0; j < p; ++j) {
      if (j == me) continue;
      Stream& h = s.helper(j);
      s.wait(h, kReady, j, kEveryRank, k);
      contribute(s, h, j, 0, me * region, offsetBy(send, o + sl.offset(j)), sl.bytes(j), dataType,
                 op);
      s.signal(h, kWritten, me, j, k);
    }
    for (uint32_t i = 0; i < p; ++i) {
      if (i == me) continue;
      s.wait(m, kWritten, i, me, k);
      absorb(s, m, 0, i * region, sl.bytes(me), dataType, op);
    }
    if (me != root) {
      s.signal(m, kFinal, me, root, k);
      s.wait(m, kRead, root, me, k);
      return;
    }
    s.copy(m, offsetBy(recv, o + sl.offset(me)), s.cclOut(me, 0), sl.bytes(me));
    for (uint32_t j = 0; j < p; ++j) {
      if (j == me) continue;
      Stream& h = s.helper(j);
      s.wait(h, kFinal, j, root, k);
      s.copy(h, offsetBy(recv, o + sl.offset(j)), s.cclOut(j, 0), sl.bytes(j));
      s.signal(h, kRead, root, j, k);
    }
  });
  s.join();
}

// ---------------------------------------------------------------- two levels (servers)

// HCCL's hierarchical AllReduce across the servers of a cluster (hicann/hccl docs, coll_algo_intro:
// intra-server reduce-scatter, inter-server all-reduce on 1/n of the data, intra-server
// all-gather). Rank r is local rank l = r % n of server s = r / n. Each pass is cut into n slices;
// the server's ranks inline-reduce slice l into local rank l's CCL out over HCCS (level 0, mesh),
// the ranks holding slice l in every server all-reduce it in a ring over their NICs (level 1:
// m - 1 reduce steps and m - 1 gather steps of a chunk of slice / m, each written into the right
// partner's CCL out), and every rank reads the finished slices back from its server's peers.
void hierarchicalAllReduce(Steps& s, const MemoryPlace& send, const MemoryPlace& recv,
                           uint64_t bytes, int32_t dataType, int32_t op) {
  const Hierarchy& h = s.group().hierarchy();
  const uint32_t n = h.perServer, m = h.servers, me = s.me();
  const uint32_t server = me / n, local = me % n, base = server * n;
  const uint32_t right = (server + 1) % m * n + local, left = (server + m - 1) % m * n + local;
  const uint64_t element = elementSize(dataType);
  std::vector<uint32_t> peers;  // the rank's server's other ranks
  for (uint32_t j = 0; j < n; ++j) {
    if (j != local) peers.push_back(base + j);
  }
  Stream& main = s.main();
  s.fork(peers);
  inPasses(bytes, uint64_t{n} * sliceMax(s.group()), [&](uint64_t k, uint64_t o, uint64_t total) {
    const Slices sl = cut(total, n, kSliceAlign);
    const uint64_t mine = sl.bytes(local);
    // Level 0: the server's sum of slice `local` in the rank's CCL out.
    s.copy(main, s.cclOut(me, 0), offsetBy(send, o + sl.offset(local)), mine);
    s.signal(main, kReady, me, kEveryRank, k);
    for (uint32_t peer : peers) {
      Stream& hs = s.helper(peer);
      s.wait(hs, kReady, peer, kEveryRank, k);
      s.reduce(hs, s.cclOut(peer, 0), offsetBy(send, o + sl.offset(peer - base)),
               sl.bytes(peer - base), dataType, op);
      s.signal(hs, kWritten, me, peer, k);
    }
    for (uint32_t peer : peers) s.wait(main, kWritten, peer, me, k);
    // Level 1: ring all-reduce of the slice between the servers.
    const Slices c = cut(mine, m, element);
    const uint64_t steps = uint64_t{m} * 2;
    s.signal(main, kInterReady, me, kEveryRank, k);
    for (uint32_t step = 0; step + 1 < m; ++step) {
      const uint32_t chunk = (server + m - step) % m;
      if (step == 0) {
        s.wait(main, kInterReady, right, kEveryRank, k);
      } else {
        s.wait(main, kRingReduce, left, me, k * steps + step - 1);
      }
      s.reduce(main, s.cclOut(right, c.offset(chunk)), s.cclOut(me, c.offset(chunk)),
               c.bytes(chunk), dataType, op);
      s.signal(main, kRingReduce, me, right, k * steps + step);
    }
    s.wait(main, kRingReduce, left, me, k * steps + m - 2);
    ringGatherHalf(s, main, c, 0, m, server, left, right, k,
                   [&](uint64_t step) { return k * steps + step; });
    // Level 0 again: every rank reads each finished slice from the rank that holds it.
    s.signal(main, kFinal, me, kEveryRank, k);
    for (uint32_t peer : peers) {
      Stream& hs = s.helper(peer);
      s.wait(hs, kFinal, peer, kEveryRank, k);
      s.copy(hs, offsetBy(recv, o + sl.offset(peer - base)), s.cclOut(peer, 0),
             sl.bytes(peer - base));
      s.signal(hs, kRead, me, peer, k);
    }
    s.copy(main, offsetBy(recv, o + sl.offset(local)), s.cclOut(me, 0), mine);
    for (uint32_t peer : peers) s.wait(main, kRead, peer, me, k);
  });
  s.join();
}

// HCCL's hierarchical AllGather across servers (coll_algo_intro: intra-server AllGather, then
// inter-server AllGather), for blocks of one size. In a pass over piece [o, o + np) of every
// block, block q sits at q x np in every CCL out. Each rank reads its server's blocks from its
// peers' CCL outs into its own (level 0, mesh); the m ranks of one local index then pass whole
// servers' runs of n blocks around the ring of servers through their NICs (level 1: m - 1 steps,
// each copying one server's run into the right partner's CCL out); last, each rank copies the
// blocks it did not have into its output.
void hierarchicalAllGather(Steps& s, const MemoryPlace& send, const MemoryPlace& recv,
                           const Blocks& blocks) {
  const Hierarchy& h = s.group().hierarchy();
  const uint32_t n = h.perServer, m = h.servers, p = n * m, me = s.me();
  const uint32_t server = me / n, local = me % n, base = server * n;
  const uint32_t right = (server + 1) % m * n + local, left = (server + m - 1) % m * n + local;
  std::vector<uint32_t> peers;
  for (uint32_t j = 0; j < n; ++j) {
    if (j != local) peers.push_back(base + j);
  }
  Stream& main = s.main();
  s.fork(peers);
  const uint64_t perPass = std::max<uint64_t>(1, sliceMax(s.group()) / p);
  const uint64_t steps = uint64_t{m} * 2;
  inPasses(blocks.largest(), perPass, [&](uint64_t k, uint64_t o, uint64_t np) {
    const uint64_t mine = blocks.piece(me, o, np);
    // Level 0: the server's blocks into the rank's CCL out.
    s.signal(main, kHave, me, me, k);  // the rank's CCL out is free for this pass
    s.copy(main, s.cclOut(me, me * np), offsetBy(send, o), mine);
    s.copy(main, offsetBy(recv, blocks.offsets[me] + o), offsetBy(send, o), mine);
    s.signal(main, kReady, me, kEveryRank, k);
    for (uint32_t peer : peers) {
      Stream& hs = s.helper(peer);
      s.wait(hs, kHave, me, me, k);
      s.wait(hs, kReady, peer, kEveryRank, k);
      s.copy(hs, s.cclOut(me, peer * np), s.cclOut(peer, peer * np), blocks.piece(peer, o, np));
      s.signal(hs, kRead, me, peer, k);
    }
    for (uint32_t peer : peers) {
      s.wait(main, kRead, me, peer, k);  // the rank has its peers' blocks
      s.wait(main, kRead, peer, me, k);  // and they have its own
    }
    // Level 1: whole servers' runs around the ring of servers.
    s.signal(main, kInterReady, me, kEveryRank, k);
    for (uint32_t step = 0; step + 1 < m; ++step) {
      const uint32_t run = (server + m - step) % m;
      if (step == 0) {
        s.wait(main, kInterReady, right, kEveryRank, k);
      } else {
        s.wait(main, kRingGather, left, me, k * steps + step - 1);
      }
      for (uint32_t q = run * n; q < run * n + n; ++q)
        s.copy(main, s.cclOut(right, q * np), s.cclOut(me, q * np), blocks.piece(q, o, np));
      s.signal(main, kRingGather, me, right, k * steps + step);
    }
    s.wait(main, kRingGather, left, me, k * steps + m - 2);
    for (uint32_t q = 0; q < p; ++q) {
      if (q != me)
        s.copy(main, offsetBy(recv, blocks.offsets[q] + o), s.cclOut(me, q * np),
               blocks.piece(q, o, np));
    }
  });
  s.join();
}

// HCCL's hierarchical ReduceScatter across servers (coll_algo_intro: inter-server
// ReduceScatter, then intra-server ReduceScatter), with inline reduction. In a pass over piece
// [o, o + np) of every block, block q sits at q x np in every CCL out. The m ranks of one local
// index reduce-scatter whole servers' runs of n blocks around the ring of servers through their
// NICs (level 1: m - 1 steps, each inline-reducing one run into the right partner's CCL out), so
// each rank holds its server's run summed over its local index; then each rank inline-reduces
// block j of that run into server peer j's CCL out over HCCS (level 0, mesh), and copies its own
// finished block out.
void hierarchicalReduceScatter(Steps& s, const MemoryPlace& send, const MemoryPlace& recv,
                               const Blocks& blocks, int32_t dataType, int32_t op) {
  const Hierarchy& h = s.group().hierarchy();
  const uint32_t n = h.perServer, m = h.servers, p = n * m, me = s.me();
  const uint32_t server = me / n, local = me % n, base = server * n;
  const uint32_t right = (server + 1) % m * n + local, left = (server + m - 1) % m * n + local;
  std::vector<uint32_t> peers;
  for (uint32_t j = 0; j < n; ++j) {
    if (j != local) peers.push_back(base + j);
  }
  Stream& main = s.main();
  s.fork(peers);
  const uint64_t element = elementSize(dataType);
  const uint64_t perPass = std::max(element, sliceMax(s.group()) / p / element * element);
  const uint64_t steps = uint64_t{m} * 2;
  inPasses(blocks.largest(), perPass, [&](uint64_t k, uint64_t o, uint64_t np) {
    for (uint32_t q = 0; q < p; ++q)
      s.copy(main, s.cclOut(me, q * np), offsetBy(send, blocks.offsets[q] + o),
             blocks.piece(q, o, np));
    // Level 1: servers' runs reduce-scattered around the ring of servers.
    s.signal(main, kInterReady, me, kEveryRank, k);
    for (uint32_t step = 0; step + 1 < m; ++step) {
      const uint32_t run = (server + 2 * m - step - 1) % m;
      if (step == 0) {
        s.wait(main, kInterReady, right, kEveryRank, k);
      } else {
        s.wait(main, kRingReduce, left, me, k * steps + step - 1);
      }
      for (uint32_t q = run * n; q < run * n + n; ++q)
        s.reduce(main, s.cclOut(right, q * np), s.cclOut(me, q * np), blocks.piece(q, o, np),
                 dataType, op);
      s.signal(main, kRingReduce, me, right, k * steps + step);
    }
    if (m > 1) s.wait(main, kRingReduce, left, me, k * steps + m - 2);
    // Level 0: block j of the server's run into server peer j's CCL out.
    s.signal(main, kReady, me, kEveryRank, k);
    for (uint32_t peer : peers) {
      Stream& hs = s.helper(peer);
      s.wait(hs, kReady, me, kEveryRank, k);
      s.wait(hs, kReady, peer, kEveryRank, k);
      s.reduce(hs, s.cclOut(peer, peer * np), s.cclOut(me, peer * np), blocks.piece(peer, o, np),
               dataType, op);
      s.signal(hs, kWritten, me, peer, k);
    }
    for (uint32_t peer : peers) {
      s.wait(main, kWritten, peer, me, k);  // its part is in the rank's block
      s.wait(main, kWritten, me, peer, k);  // the rank's part is in its block
    }
    s.copy(main, offsetBy(recv, o), s.cclOut(me, me * np), blocks.piece(me, o, np));
  });
  s.join();
}

// HCCL's hierarchical Broadcast across servers (coll_algo_intro: intra-server Scatter,
// inter-server Broadcast, intra-server AllGather). In a pass over [o, o + N) of the buffer, cut
// into n slices: the root's server's ranks each read slice l from the root's CCL out into their
// own; each of them passes its slice along the chain of servers to the rank of its local index in
// every other server (level 1, through the NICs); then every rank reads the slices it lacks from
// its server peers' CCL outs (level 0, mesh).
void hierarchicalBroadcast(Steps& s, const MemoryPlace& buf, uint64_t bytes, uint32_t root) {
  const Hierarchy& h = s.group().hierarchy();
  const uint32_t n = h.perServer, m = h.servers, me = s.me();
  const uint32_t server = me / n, local = me % n, base = server * n, rootServer = root / n;
  const uint32_t right = (server + 1) % m * n + local, left = (server + m - 1) % m * n + local;
  std::vector<uint32_t> peers;
  for (uint32_t j = 0; j < n; ++j) {
    if (j != local) peers.push_back(base + j);
  }
  Stream& main = s.main();
  s.fork(peers);
  inPasses(bytes, sliceMax(s.group()), [&](uint64_t k, uint64_t o, uint64_t total) {
    const Slices sl = cut(total, n, kSliceAlign);
    const uint64_t at = sl.offset(local), mine = sl.bytes(local);
    s.signal(main, kInterReady, me, kEveryRank, k);  // the rank's CCL out is free for the pass
    if (me == root) {
      s.copy(main, s.cclOut(me, 0), offsetBy(buf, o), total);
      s.signal(main, kReady, me, kEveryRank, k);
    } else if (server == rootServer) {
      s.wait(main, kReady, root, kEveryRank, k);
      s.copy(main, s.cclOut(me, at), s.cclOut(root, at), mine);
      s.signal(main, kHave, me, root, k);
    } else {
      s.wait(main, kChain, left, me, k);
    }
    if (right / n != rootServer) {  // pass the slice on to the next server
      s.wait(main, kInterReady, right, kEveryRank, k);
      s.copy(main, s.cclOut(right, at), s.cclOut(me, at), mine);
      s.signal(main, kChain, me, right, k);
    }
    s.signal(main, kFinal, me, kEveryRank, k);
    for (uint32_t peer : peers) {
      Stream& hs = s.helper(peer);
      if (me != root) {
        s.wait(hs, kFinal, peer, kEveryRank, k);
        s.copy(hs, offsetBy(buf, o + sl.offset(peer - base)),
               s.cclOut(peer, sl.offset(peer - base)), sl.bytes(peer - base));
      }
      s.signal(hs, kRead, me, peer, k);
    }
    if (me != root) s.copy(main, offsetBy(buf, o + at), s.cclOut(me, at), mine);
    for (uint32_t peer : peers) {
      s.wait(main, kRead, peer, me, k);
      if (me == root) s.wait(main, kHave, peer, root, k);
    }
  });
  s.join();
}

// ---------------------------------------------------------------- ring (ranks in order)

// Reduce-scatter around the ring (each step inline-reduces one chunk into the right neighbour's
// CCL out), then all-gather around it (each step copies a finished chunk there).
void ringAllReduce(Steps& s, const MemoryPlace& send, const MemoryPlace& recv, uint64_t bytes,
                   int32_t dataType, int32_t op) {
  const uint32_t p = s.group().size(), me = s.me();
  const uint32_t right = rightOf(s, p), left = leftOf(s, p);
  const uint64_t element = elementSize(dataType);
  Stream& m = s.main();
  inPasses(bytes, sliceMax(s.group()), [&](uint64_t k, uint64_t o, uint64_t n) {
    const Slices c = cut(n, p, element);
    s.copy(m, s.cclOut(me, 0), offsetBy(send, o), n);
    s.signal(m, kReady, me, kEveryRank, k);
    for (uint32_t step = 0; step + 1 < p; ++step) {
      const uint32_t chunk = (me + p - step) % p;
      if (step == 0) {
        s.wait(m, kReady, right, kEveryRank, k);
      } else {
        // The left neighbour's part of this chunk has come.
        s.wait(m, kRingReduce, left, me, k * p + step - 1);
        absorb(s, m, c.offset(chunk), c.offset(chunk), c.bytes(chunk), dataType, op);
      }
      const MemoryPlace from =
          step == 0 ? offsetBy(send, o + c.offset(chunk)) : s.cclOut(me, c.offset(chunk));
      contribute(s, m, right, c.offset(chunk), c.offset(chunk), from, c.bytes(chunk), dataType, op);
      s.signal(m, kRingReduce, me, right, k * p + step);
    }
    s.wait(m, kRingReduce, left, me, k * p + p - 2);
    const uint32_t mine = (me + 1) % p;
    absorb(s, m, c.offset(mine), c.offset(mine), c.bytes(mine), dataType, op);
    ringGatherHalf(s, m, c, 0, p, me, left, right, k, [&](uint64_t step) { return k * p + step; });
    s.copy(m, offsetBy(recv, o), s.cclOut(me, 0), n);
  });
}

// The 910's eight NPUs in two HCCS groups of four (Atlas 800-9000): HCCL runs its ring
// executors over four logical rings at once, each carrying a quarter of the data
// (hicann/hcomm topo_info_extractor.cc): two Hamiltonian cycles, each used in both directions.
const std::vector<std::vector<uint32_t>> kFourRingsOf910 = {{0, 1, 2, 6, 5, 4, 7, 3},
                                                            {0, 3, 7, 4, 5, 6, 2, 1},
                                                            {0, 2, 3, 1, 5, 7, 6, 4},
                                                            {0, 4, 6, 7, 5, 1, 3, 2}};

// One logical ring's AllReduce of [offset, offset + bytes) of the buffers, on stream `st`, in its
// own quarter of the staging buffers: as ringAllReduce, with the ranks in `order`.
void logicalRingAllReduce(Steps& s, Stream& st, uint32_t ring, const MemoryPlace& send,
                          const MemoryPlace& recv, uint64_t offset, uint64_t bytes,
                          int32_t dataType, int32_t op) {
  const std::vector<uint32_t>& order = kFourRingsOf910[ring];
  const uint32_t p = static_cast<uint32_t>(order.size()), me = s.me();
  const uint32_t pos =
      static_cast<uint32_t>(std::find(order.begin(), order.end(), me) - order.begin());
  const uint32_t right = order[(pos + 1) % p], left = order[(pos + p - 1) % p];
  const uint32_t rings = static_cast<uint32_t>(kFourRingsOf910.size());
  const uint64_t element = elementSize(dataType);
  const uint64_t quarter = s.group().cclBytes() / rings / kSliceAlign * kSliceAlign;
  const uint64_t base = ring * quarter;
  // Signal steps of this ring: (pass x p + step) x rings + ring.
  auto tag = [&](uint64_t k, uint64_t step) { return (k * p + step) * rings + ring; };
  inPasses(bytes, std::max(kSliceAlign, quarter), [&](uint64_t k, uint64_t o, uint64_t n) {
    const Slices c = cut(n, p, element);
    s.copy(st, s.cclOut(me, base), offsetBy(send, offset + o), n);
    s.signal(st, kReady, me, kEveryRank, tag(k, 0));
    for (uint32_t step = 0; step + 1 < p; ++step) {
      const uint32_t chunk = (pos + p - step) % p;
      if (step == 0) {
        s.wait(st, kReady, right, kEveryRank, tag(k, 0));
      } else {
        s.wait(st, kRingReduce, left, me, tag(k, step - 1));
        absorb(s, st, base + c.offset(chunk), base + c.offset(chunk), c.bytes(chunk), dataType, op);
      }
      const MemoryPlace from = step == 0 ? offsetBy(send, offset + o + c.offset(chunk))
                                         : s.cclOut(me, base + c.offset(chunk));
      contribute(s, st, right, base + c.offset(chunk), base + c.offset(chunk), from, c.bytes(chunk),
                 dataType, op);
      s.signal(st, kRingReduce, me, right, tag(k, step));
    }
    s.wait(st, kRingReduce, left, me, tag(k, p - 2));
    const uint32_t mine = (pos + 1) % p;
    absorb(s, st, base + c.offset(mine), base + c.offset(mine), c.bytes(mine), dataType, op);
    ringGatherHalf(s, st, c, base, p, pos, left, right, tag(k, 0),
                   [&](uint64_t step) { return tag(k, step); });
    s.copy(st, offsetBy(recv, offset + o), s.cclOut(me, base), n);
  });
}

// The four logical rings at once, each on a helper stream of its own, each on a quarter of the
// data (cut in element multiples).
void fourRingAllReduce(Steps& s, const MemoryPlace& send, const MemoryPlace& recv, uint64_t bytes,
                       int32_t dataType, int32_t op) {
  const uint32_t p = s.group().size(), me = s.me();
  const uint32_t rings = static_cast<uint32_t>(kFourRingsOf910.size());
  std::vector<uint32_t> streams;  // ring q runs on the helper stream of rank me + q + 1
  for (uint32_t q = 0; q < rings; ++q) streams.push_back((me + q + 1) % p);
  s.fork(streams);
  const Slices parts = cut(bytes, rings, elementSize(dataType));
  for (uint32_t q = 0; q < rings; ++q) {
    logicalRingAllReduce(s, s.helper(streams[q]), q, send, recv, parts.offset(q), parts.bytes(q),
                         dataType, op);
  }
  s.join();
}

// (Block b of a pass sits at b x n in the CCL buffers, n the pass's largest piece.)
void ringReduceScatter(Steps& s, const MemoryPlace& send, const MemoryPlace& recv,
                       const Blocks& blocks, int32_t dataType, int32_t op) {
  const uint32_t p = s.group().size(), me = s.me();
  const uint32_t right = rightOf(s, p), left = leftOf(s, p);
  const uint64_t element = elementSize(dataType);
  const uint64_t perPass = std::max(element, sliceMax(s.group()) / p / element * element);
  Stream& m = s.main();
  inPasses(blocks.largest(), perPass, [&](uint64_t k, uint64_t o, uint64_t n) {
    for (uint32_t b = 0; b < p; ++b)
      s.copy(m, s.cclOut(me, b * n), offsetBy(send, blocks.offsets[b] + o), blocks.piece(b, o, n));
    s.signal(m, kReady, me, kEveryRank, k);
    for (uint32_t step = 0; step + 1 < p; ++step) {
      const uint32_t b = (me + 2 * p - step - 1) % p;
      const uint64_t piece = blocks.piece(b, o, n);
      MemoryPlace from = s.cclOut(me, b * n);
      if (step == 0) {
        s.wait(m, kReady, right, kEveryRank, k);
        from = offsetBy(send, blocks.offsets[b] + o);
      } else {
        s.wait(m, kRingReduce, left, me, k * p + step - 1);
        absorb(s, m, b * n, b * n, piece, dataType, op);
      }
      contribute(s, m, right, b * n, b * n, from, piece, dataType, op);
      s.signal(m, kRingReduce, me, right, k * p + step);
    }
    const uint64_t mine = blocks.piece(me, o, n);
    s.wait(m, kRingReduce, left, me, k * p + p - 2);
    absorb(s, m, me * n, me * n, mine, dataType, op);
    s.copy(m, offsetBy(recv, o), s.cclOut(me, me * n), mine);
  });
}

void ringAllGather(Steps& s, const MemoryPlace& send, const MemoryPlace& recv,
                   const Blocks& blocks) {
  const uint32_t p = s.group().size(), me = s.me();
  const uint32_t right = rightOf(s, p), left = leftOf(s, p);
  const uint64_t perPass = std::max<uint64_t>(1, sliceMax(s.group()) / p);
  Stream& m = s.main();
  inPasses(blocks.largest(), perPass, [&](uint64_t k, uint64_t o, uint64_t n) {
    const uint64_t mine = blocks.piece(me, o, n);
    s.copy(m, s.cclOut(me, me * n), offsetBy(send, o), mine);
    s.copy(m, offsetBy(recv, blocks.offsets[me] + o), offsetBy(send, o), mine);
    s.signal(m, kReady, me, kEveryRank, k);
    for (uint32_t step = 0; step + 1 < p; ++step) {
      const uint32_t b = (me + p - step) % p;
      if (step == 0) {
        s.wait(m, kReady, right, kEveryRank, k);
      } else {
        s.wait(m, kRingGather, left, me, k * p + step - 1);
      }
      s.copy(m, s.cclOut(right, b * n), s.cclOut(me, b * n), blocks.piece(b, o, n));
      s.signal(m, kRingGather, me, right, k * p + step);
    }
    s.wait(m, kRingGather, left, me, k * p + p - 2);
    for (uint32_t b = 0; b < p; ++b) {
      if (b != me)
        s.copy(m, offsetBy(recv, blocks.offsets[b] + o), s.cclOut(me, b * n),
               blocks.piece(b, o, n));
    }
  });
}

// Along the ring from the root: each rank forwards the whole buffer to its right neighbour.
void chainBroadcast(Steps& s, const MemoryPlace& buf, uint64_t bytes, uint32_t root) {
  const uint32_t p = s.group().size(), me = s.me();
  const uint32_t right = rightOf(s, p), left = leftOf(s, p);
  Stream& m = s.main();
  inPasses(bytes, sliceMax(s.group()), [&](uint64_t k, uint64_t o, uint64_t n) {
    if (me == root) {
      s.copy(m, s.cclOut(me, 0), offsetBy(buf, o), n);
    } else {
      s.signal(m, kReady, me, kEveryRank, k);
      s.wait(m, kChain, left, me, k);
    }
    if (right != root) {
      s.wait(m, kReady, right, kEveryRank, k);
      s.copy(m, s.cclOut(right, 0), s.cclOut(me, 0), n);
      s.signal(m, kChain, me, right, k);
    }
    if (me != root) s.copy(m, offsetBy(buf, o), s.cclOut(me, 0), n);
  });
}

// Along the ring to the root: each rank inline-reduces its partial result into its right
// neighbour's CCL out, starting at the rank after the root.
void chainReduce(Steps& s, const MemoryPlace& send, const MemoryPlace& recv, uint64_t bytes,
                 int32_t dataType, int32_t op, uint32_t root) {
  const uint32_t p = s.group().size(), me = s.me();
  const uint32_t right = rightOf(s, p), left = leftOf(s, p);
  Stream& m = s.main();
  inPasses(bytes, sliceMax(s.group()), [&](uint64_t k, uint64_t o, uint64_t n) {
    s.copy(m, s.cclOut(me, 0), offsetBy(send, o), n);
    s.signal(m, kReady, me, kEveryRank, k);
    if (me != (root + 1) % p) {
      s.wait(m, kChain, left, me, k);
      absorb(s, m, 0, 0, n, dataType, op);
    }
    if (me == root) {
      s.copy(m, offsetBy(recv, o), s.cclOut(me, 0), n);
      return;
    }
    s.wait(m, kReady, right, kEveryRank, k);
    contribute(s, m, right, 0, 0, s.cclOut(me, 0), n, dataType, op);
    s.signal(m, kChain, me, right, k);
  });
}

}  // namespace

uint64_t regionBytes(const Group& g) {
  const uint64_t share = g.cclBytes() / g.size();
  return share >= kSliceAlign ? share / kSliceAlign * kSliceAlign
                              : std::max<uint64_t>(64, share / 64 * 64);
}

const char* allReduce(Steps& s, const MemoryPlace& send, const MemoryPlace& recv, uint64_t bytes,
                      int32_t dataType, int32_t op) {
  if (s.group().size() == 1) {
    s.copy(s.main(), recv, send, bytes);
    return "local copy";
  }
  if (s.group().hierarchy().active() && s.inlineReduce()) {
    hierarchicalAllReduce(s, send, recv, bytes, dataType, op);
    return s.group().hierarchy().level1 == "H-D_R"
               ? "level0 mesh, level1 H-D_R (one exchange of halves)"
               : "level0 mesh, level1 ring";
  }
  if (s.group().fourRings()) {
    fourRingAllReduce(s, send, recv, bytes, dataType, op);
    return "four logical rings";
  }
  if (!s.group().mesh()) {
    ringAllReduce(s, send, recv, bytes, dataType, op);
    return "ring";
  }
  if (bytes <= kSmallAllReduce && (s.inlineReduce() || bytes <= regionBytes(s.group()))) {
    reduceToOneAllReduce(s, send, recv, bytes, dataType, op);
    return "mesh reduce-broadcast";
  }
  meshAllReduce(s, send, recv, bytes, dataType, op);
  return "mesh";
}

Blocks Blocks::uniform(uint32_t ranks, uint64_t blockBytes) {
  Blocks b;
  for (uint32_t r = 0; r < ranks; ++r) {
    b.bytes.push_back(blockBytes);
    b.offsets.push_back(r * blockBytes);
  }
  return b;
}

uint64_t Blocks::largest() const {
  return bytes.empty() ? 0 : *std::max_element(bytes.begin(), bytes.end());
}

const char* reduceScatter(Steps& s, const MemoryPlace& send, const MemoryPlace& recv,
                          const Blocks& blocks, int32_t dataType, int32_t op) {
  if (s.group().size() == 1) {
    s.copy(s.main(), recv, offsetBy(send, blocks.offsets[0]), blocks.bytes[0]);
    return "local copy";
  }
  if (s.group().hierarchy().active() && s.inlineReduce()) {
    hierarchicalReduceScatter(s, send, recv, blocks, dataType, op);
    return "level1 ring, level0 mesh";
  }
  if (!s.group().mesh()) {
    ringReduceScatter(s, send, recv, blocks, dataType, op);
    return "ring";
  }
  meshReduceScatter(s, send, recv, blocks, dataType, op);
  return "mesh";
}

const char* allGather(Steps& s, const MemoryPlace& send, const MemoryPlace& recv,
                      const Blocks& blocks) {
  if (s.group().size() == 1) {
    s.copy(s.main(), offsetBy(recv, blocks.offsets[0]), send, blocks.bytes[0]);
    return "local copy";
  }
  if (s.group().hierarchy().active()) {
    hierarchicalAllGather(s, send, recv, blocks);
    return "level0 mesh, level1 ring";
  }
  if (!s.group().mesh()) {
    ringAllGather(s, send, recv, blocks);
    return "ring";
  }
  meshAllGather(s, send, recv, blocks);
  return "mesh";
}

const char* broadcast(Steps& s, const MemoryPlace& buf, uint64_t bytes, uint32_t root) {
  if (s.group().size() == 1) return "none";
  if (s.group().hierarchy().active()) {
    hierarchicalBroadcast(s, buf, bytes, root);
    return "level0 mesh scatter, level1 chain, level0 mesh all-gather";
  }
  if (!s.group().mesh()) {
    chainBroadcast(s, buf, bytes, root);
    return "ring";
  }
  meshBroadcast(s, buf, bytes, root);
  return "mesh";
}

const char* reduce(Steps& s, const MemoryPlace& send, const MemoryPlace& recv, uint64_t bytes,
                   int32_t dataType, int32_t op, uint32_t root) {
  if (s.group().size() == 1) {
    s.copy(s.main(), recv, send, bytes);
    return "local copy";
  }
  if (!s.group().mesh()) {
    chainReduce(s, send, recv, bytes, dataType, op, root);
    return "ring";
  }
  meshReduce(s, send, recv, bytes, dataType, op, root);
  return "mesh";
}

const char* allToAllV(Steps& s, const MemoryPlace& send, const std::vector<uint64_t>& sendBytes,
                      const std::vector<uint64_t>& sendOffsets, const MemoryPlace& recv,
                      const std::vector<uint64_t>& recvBytes,
                      const std::vector<uint64_t>& recvOffsets) {
  const uint32_t p = s.group().size(), me = s.me();
  Stream& m = s.main();
  const uint64_t region = regionBytes(s.group());
  s.copy(m, offsetBy(recv, recvOffsets[me]), offsetBy(send, sendOffsets[me]), sendBytes[me]);
  if (p == 1) return "local copy";
  s.fork();
  for (uint32_t i = 0; i < p; ++i) {
    if (i != me) s.signal(m, kReady, me, i, 0);
  }
  for (uint32_t j = 0; j < p; ++j) {
    if (j == me) continue;
    Stream& h = s.helper(j);
    inPasses(sendBytes[j], region, [&](uint64_t k, uint64_t o, uint64_t n) {
      s.wait(h, kReady, j, me, k);
      s.copy(h, s.cclIn(j, me * region), offsetBy(send, sendOffsets[j] + o), n);
      s.signal(h, kSent, me, j, k);
    });
  }
  for (uint32_t i = 0; i < p; ++i) {
    if (i == me) continue;
    inPasses(recvBytes[i], region, [&](uint64_t k, uint64_t o, uint64_t n) {
      s.wait(m, kSent, i, me, k);
      s.copy(m, offsetBy(recv, recvOffsets[i] + o), s.cclIn(me, i * region), n);
      if (o + n < recvBytes[i]) s.signal(m, kReady, me, i, k + 1);
    });
  }
  s.join();
  return "full-mesh direct";
}

const char* barrier(Steps& s) {
  const uint32_t p = s.group().size(), me = s.me();
  if (p == 1) return "none";
  s.signal(s.main(), kBarrier, me, kEveryRank);
  for (uint32_t i = 0; i < p; ++i) {
    if (i != me) s.wait(s.main(), kBarrier, i, kEveryRank);
  }
  return "notify all";
}

void send(Steps& s, Stream& st, const MemoryPlace& buf, uint64_t bytes, uint32_t to) {
  const uint32_t me = s.me();
  const uint64_t region = regionBytes(s.group());
  inPasses(bytes, region, [&](uint64_t k, uint64_t o, uint64_t n) {
    s.wait(st, kReady, to, me, k);
    s.copy(st, s.cclIn(to, me * region), offsetBy(buf, o), n);
    s.signal(st, kSent, me, to, k);
  });
}

void recv(Steps& s, Stream& st, const MemoryPlace& buf, uint64_t bytes, uint32_t from) {
  const uint32_t me = s.me();
  const uint64_t region = regionBytes(s.group());
  inPasses(bytes, region, [&](uint64_t k, uint64_t o, uint64_t n) {
    s.signal(st, kReady, me, from, k);
    s.wait(st, kSent, from, me, k);
    s.copy(st, offsetBy(buf, o), s.cclIn(me, from * region), n);
  });
}

// The root copies a pass of its blocks into its CCL out; every rank reads its own block from it.
const char* scatter(Steps& s, const MemoryPlace& send, const MemoryPlace& recv, uint64_t blockBytes,
                    uint32_t root) {
  const uint32_t p = s.group().size(), me = s.me();
  Stream& m = s.main();
  if (p == 1) {
    s.copy(m, recv, send, blockBytes);
    return "local copy";
  }
  const uint64_t perPass = std::max<uint64_t>(1, sliceMax(s.group()) / p);
  inPasses(blockBytes, perPass, [&](uint64_t k, uint64_t o, uint64_t n) {
    if (me == root) {
      for (uint32_t b = 0; b < p; ++b) {
        if (b != root) s.copy(m, s.cclOut(root, b * n), offsetBy(send, b * blockBytes + o), n);
      }
      s.signal(m, kReady, root, kEveryRank, k);
      s.copy(m, offsetBy(recv, o), offsetBy(send, root * blockBytes + o), n);
      for (uint32_t i = 0; i < p; ++i) {
        if (i != root) s.wait(m, kRead, i, root, k);
      }
      return;
    }
    s.wait(m, kReady, root, kEveryRank, k);
    s.copy(m, offsetBy(recv, o), s.cclOut(root, me * n), n);
    s.signal(m, kRead, me, root, k);
  });
  return s.group().mesh() ? "mesh" : "direct";
}

}  // namespace ascendsim::runtime::hccl
