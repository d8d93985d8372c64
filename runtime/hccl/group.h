#pragma once
// The ranks of one communicator as every rank sees them (devices, staging buffers, the links
// between them), and the signals that order one rank's tasks after another's. HCCL stages its
// transfers through two buffers per rank in device memory (CCL in and CCL out, HCCL_BUFFSIZE MB
// each), so a rank can queue its whole part of an operation from its own arguments and what the
// communicator knows of the others: the buffers it writes into or reads from are the peers'
// staging buffers, never their user buffers.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "models/task/task.h"
#include "runtime/core/objects.h"

namespace ascendsim::runtime::hccl {

// A failed HCCL call: an HcclResult and what was wrong.
struct HcclFailure {
  int32_t code;
  std::string message;
};
[[noreturn]] inline void refuse(int32_t code, std::string message) {
  throw HcclFailure{code, std::move(message)};
}

// One signal between the tasks of ranks: recorded once on one stream, waited for on any number.
// `space` 0 holds the collective operations (numbered `seq` in the order every rank issues them);
// point-to-point pairs have a space each (their sends numbered by `seq`).
struct SignalKey {
  uint64_t space = 0;
  uint64_t seq = 0;
  uint32_t phase = 0;  // what it says (Phase)
  uint32_t from = 0;   // the rank that records it
  uint32_t to = 0;     // the rank it is for (kEveryRank: all of them)
  uint64_t step = 0;   // the pass or step of the operation
  bool operator<(const SignalKey& o) const {
    return std::tie(space, seq, phase, from, to, step) <
           std::tie(o.space, o.seq, o.phase, o.from, o.to, o.step);
  }
};
constexpr uint32_t kEveryRank = UINT32_MAX;

enum Phase : uint32_t {
  kReady = 1,    // the sender's staging buffer holds its part; peers may add to it / read it
  kWritten = 2,  // a rank has put its part into another's staging buffer
  kFinal = 3,    // a rank's staging buffer holds the finished result
  kRead = 4,     // a rank has read what it needed from another's staging buffer
  kHave = 5,     // a rank has its scattered part in its own staging buffer
  kRingReduce = 6,
  kRingGather = 7,
  kRingDone = 8,  // a rank no longer reads the parts of its staging buffer its left rank fills
  kChain = 9,
  kFork = 10,  // a rank's own stream reached the operation: its helper streams may start
  kJoin = 11,  // a helper stream has done its part
  kBarrier = 12,
  kSent = 13,
  kInterReady = 14,  // a rank's staging buffer holds its server's sum: its ring partners may add
};

// How a communicator's ranks sit in a cluster's servers: `servers` of `perServer` ranks each,
// rank r on server r / perServer, every server's ranks joined pairwise by HCCS. HCCL's two-level
// algorithms then run (level0 inside a server, level1 between servers); otherwise `servers` is 1.
struct Hierarchy {
  uint32_t servers = 1;
  uint32_t perServer = 0;
  std::string level1 = "ring";  // between servers (HCCL_ALGO's level1 for AllReduce)
  bool active() const { return servers > 1; }
};

struct RankPlace {
  int32_t device = -1;
  void* cclIn = nullptr;  // staging buffers, `Group::cclBytes` each
  void* cclOut = nullptr;
  models::MemoryPlace inPlace, outPlace;
};

class Group {
 public:
  Group(std::string name, std::vector<RankPlace> ranks, uint64_t cclBytes, bool mesh,
        std::string soc, Hierarchy hierarchy = {})
      : name_(std::move(name)),
        ranks_(std::move(ranks)),
        cclBytes_(cclBytes),
        mesh_(mesh),
        soc_(std::move(soc)),
        hierarchy_(std::move(hierarchy)) {}

  const std::string& name() const { return name_; }
  uint32_t size() const { return static_cast<uint32_t>(ranks_.size()); }
  const RankPlace& rank(uint32_t r) const { return ranks_.at(r); }
  uint64_t cclBytes() const { return cclBytes_; }
  // Every pair of ranks joined by its own HCCS link (the 910B's full mesh): HCCL's mesh
  // algorithms; otherwise its ring algorithms.
  bool mesh() const { return mesh_; }
  const std::string& soc() const { return soc_; }  // the ranks' SoC (its DMA engine's reductions)
  const Hierarchy& hierarchy() const { return hierarchy_; }
  // The 910's eight ranks in two HCCS groups of four (ranks 0-3 and 4-7): HCCL's AllReduce runs
  // on four logical rings at once.
  bool fourRings() const { return fourRings_; }
  void setFourRings(bool on) { fourRings_ = on; }

  // The sync point behind `key`, made by whichever rank asks first.
  std::shared_ptr<models::SyncPoint> signal(const SignalKey& key);
  // `rank` has queued its part of operation `seq` of `space`, which `parties` ranks take part
  // in: once all have, its signals are no longer looked up (the tasks hold them).
  void queued(uint64_t space, uint64_t seq, uint32_t parties);

  // The first description a rank gave of collective `seq` (kind, count, type, op, root ...): the
  // others must give the same. Returns the description already there, or stores `mine`.
  const std::string& describe(uint64_t seq, const std::string& mine);
  // What rank `from` sends rank `to` in operation `seq` of `space` (AlltoAllV, Send/Recv), told
  // by each of the two; returns the other side's figure once it has told it, else -1.
  int64_t pairBytes(uint64_t space, uint64_t seq, uint32_t from, uint32_t to, uint64_t bytes,
                    bool sender);

  // The staging memory is released when the last rank's communicator is destroyed.
  uint32_t liveRanks = 0;

 private:
  std::string name_;
  std::vector<RankPlace> ranks_;
  uint64_t cclBytes_;
  bool mesh_;
  std::string soc_;
  Hierarchy hierarchy_;
  bool fourRings_ = false;
  std::map<SignalKey, std::shared_ptr<models::SyncPoint>> signals_;
  std::map<std::pair<uint64_t, uint64_t>, uint32_t> queued_;  // (space, seq) -> ranks so far
  std::map<uint64_t, std::string> descriptions_;
  std::map<std::tuple<uint64_t, uint64_t, uint32_t, uint32_t>, std::pair<int64_t, int64_t>> pairs_;
};

// One rank's communicator (an HcclComm handle).
struct Comm {
  std::shared_ptr<Group> group;
  uint32_t rank = 0;
  int32_t device = -1;
  // Helper streams on the rank's device, one per peer (index: the peer's rank; none for itself),
  // for the transfers HCCL runs concurrently with one another.
  std::vector<Stream*> helpers;
  uint64_t nextOp = 0;                 // collectives issued
  uint64_t batches = 0;                // HcclBatchSendRecv calls
  std::vector<uint64_t> sends, recvs;  // point-to-point operations issued, per peer
};

}  // namespace ascendsim::runtime::hccl
