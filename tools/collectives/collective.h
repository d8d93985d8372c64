#pragma once
// The collectives `ascendsim collectives` measures, each with hccl_test's conventions
// (hicann/oam-tools src/hccl_test/opbase_test/*_rootinfo_test.cc): how a data size becomes the
// element count of the HCCL call, the buffers every rank holds, the bytes alg_bandwidth counts,
// and nccl-tests' bus bandwidth factor on top of it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hccl/hccl.h"

namespace ascendsim::tools {

// One operation at one data size, on one rank.
struct CollectiveLayout {
  uint64_t count = 0;       // the element count the HCCL call takes (per rank block or per peer)
  uint64_t blockBytes = 0;  // bytes of one rank's block (gather, scatter, alltoall kinds)
  uint64_t sendBytes = 0;   // the send buffer (broadcast: its one buffer)
  uint64_t recvBytes = 0;   // the receive buffer (broadcast: 0)
  uint64_t algBytes = 0;    // what alg_bandwidth divides by the time
};

// The arguments of one call on one rank.
struct CollectiveCall {
  void* send = nullptr;
  void* recv = nullptr;
  uint64_t count = 0;
  HcclDataType dataType = HCCL_DATA_TYPE_FP32;
  HcclReduceOp op = HCCL_REDUCE_SUM;
  uint32_t root = 0;
  HcclComm comm = nullptr;
  aclrtStream stream = nullptr;
};

class Collective {
 public:
  enum class Kind { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AlltoAll, Scatter };

  // "all_reduce", ... (hccl_test's binary names without "_test"); nullopt for any other name.
  static std::optional<Collective> named(const std::string& name);
  static std::vector<std::string> names();

  Kind kind() const { return kind_; }
  std::string name() const;
  std::string hcclCall() const;  // "HcclAllReduce", ...
  bool reduces() const;          // takes -o
  bool hasRoot() const;          // takes -r
  // hccl_test aligns -b and -e to the rank count (need_ranksize_alignment) for these.
  bool alignsToRanks() const;
  CollectiveLayout layout(uint64_t dataSize, uint32_t elementSize, uint32_t ranks) const;
  // nccl-tests' bus bandwidth = alg_bandwidth x this (their size convention is hccl_test's).
  double busFactor(uint32_t ranks) const;
  // Queues the operation on the call's stream.
  HcclResult issue(const CollectiveCall& call) const;

 private:
  explicit Collective(Kind kind) : kind_(kind) {}
  Kind kind_;
};

}  // namespace ascendsim::tools
