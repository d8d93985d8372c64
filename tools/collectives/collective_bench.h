#pragma once
// Runs a collective as hccl_test runs it, with the ranks as threads of this process (one per
// NPU, rank r on device r, one communicator from HcclGetRootInfo + HcclCommInitRootInfo) instead
// of one MPI process per NPU. At each data size every rank: fills its send buffer, queues the
// warm-up calls, records an event, queues `iters` calls back to back, records another, waits for
// its stream and takes the elapsed time over `iters` (its own, not the slowest rank's). Then it
// clears its output, copies in its input afresh, makes one more call and compares every output
// byte with what the collective must produce.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tools/collectives/collective.h"
#include "tools/collectives/collective_data.h"

namespace ascendsim::tools {

struct BenchSettings {
  Collective collective = *Collective::named("all_reduce");
  uint32_t ranks = 1;
  HcclDataType dataType = HCCL_DATA_TYPE_FP32;
  HcclReduceOp op = HCCL_REDUCE_SUM;
  uint32_t root = 0;
  int iters = 20, warmupIters = 10;
  int check = 1;  // 0 off, 1 on, 2 on and say where a result differs
  std::vector<uint64_t> sizes;
};

enum class CheckResult { Success, Failed, Skipped };  // printed success, failed, NULL

struct RankResult {
  double avgUs = 0;
  CheckResult check = CheckResult::Skipped;
  std::optional<Mismatch> mismatch;
};

struct SizeResult {
  uint64_t dataSize = 0;
  CollectiveLayout layout;
  std::vector<RankResult> ranks;
};

class CollectiveBench {
 public:
  explicit CollectiveBench(const BenchSettings& settings) : s_(settings) {}
  // Runs every size on every rank; `onSize` is called on the calling thread with each size's
  // results, in order, as soon as every rank has finished it. Returns what failed ("" if
  // nothing): the first AscendCL or HCCL call that did not succeed, with its message.
  std::string run(const std::function<void(const SizeResult&)>& onSize);

 private:
  CollectiveLayout layout(uint64_t dataSize) const;
  void runRank(uint32_t rank, const HcclRootInfo& root);
  RankResult measure(uint32_t rank, uint64_t dataSize, HcclComm comm, aclrtStream stream,
                     aclrtEvent start, aclrtEvent end);
  // hccl_test's timing: warm-up, event, `iters` calls back to back, event, wait; us per call.
  double averageMicroseconds(const CollectiveCall& call, aclrtEvent start, aclrtEvent end);

  BenchSettings s_;
  std::vector<SizeResult> results_;
  std::vector<uint32_t> ranksDone_;  // per size
  std::string failure_;
  std::mutex mutex_;  // guards results_, ranksDone_ and failure_
  std::condition_variable changed_;
};

}  // namespace ascendsim::tools
