#include "tools/collectives/collective_bench.h"
#include "runtime/core/data_mode.h"

#include <stdexcept>
#include <thread>

#include "acl/acl.h"
#include "hccl/hccl_comm.h"
#include "runtime/hccl/data_types.h"

namespace ascendsim::tools {
namespace {

// A call that did not succeed: what it was and what the runtime said.
struct CallFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string recentMessage() {
  const char* msg = aclGetRecentErrMsg();
  return msg && *msg ? std::string(": ") + msg : std::string();
}

void acl(aclError rc, const char* call) {
  if (rc != ACL_SUCCESS)
    throw CallFailed(std::string(call) + " returned " + std::to_string(rc) + recentMessage());
}

void hccl(HcclResult rc, const std::string& call) {
  if (rc != HCCL_SUCCESS) {
    throw CallFailed(call + " returned " + std::to_string(rc) + " (" + HcclGetErrorString(rc) +
                     ")" + recentMessage());
  }
}

// Device memory of one rank, freed when the size is done.
struct DeviceBuffer {
  explicit DeviceBuffer(uint64_t bytes) {
    if (bytes > 0) acl(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST), "aclrtMalloc");
  }
  ~DeviceBuffer() {
    if (p) aclrtFree(p);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* p = nullptr;
};

}  // namespace

CollectiveLayout CollectiveBench::layout(uint64_t dataSize) const {
  return s_.collective.layout(dataSize, runtime::hccl::elementSize(s_.dataType), s_.ranks);
}

std::string CollectiveBench::run(const std::function<void(const SizeResult&)>& onSize) {
  results_.assign(s_.sizes.size(), {});
  for (size_t i = 0; i < s_.sizes.size(); ++i) {
    results_[i].dataSize = s_.sizes[i];
    results_[i].layout = layout(s_.sizes[i]);
    results_[i].ranks.resize(s_.ranks);
  }
  ranksDone_.assign(s_.sizes.size(), 0);
  failure_.clear();
  HcclRootInfo root{};
  try {
    acl(aclrtSetDevice(0), "aclrtSetDevice");
    hccl(HcclGetRootInfo(&root), "HcclGetRootInfo");
  } catch (const CallFailed& e) {
    return e.what();
  }
  std::vector<std::thread> threads;
  for (uint32_t r = 0; r < s_.ranks; ++r)
    threads.emplace_back([this, r, &root] { runRank(r, root); });
  // Each size's row as soon as every rank has it (this thread sleeps meanwhile, so the runtime
  // does not wait for it).
  for (size_t i = 0; i < s_.sizes.size(); ++i) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return ranksDone_[i] == s_.ranks || !failure_.empty(); });
    if (!failure_.empty()) break;
    const SizeResult row = results_[i];
    lock.unlock();
    onSize(row);
  }
  for (std::thread& t : threads) t.join();
  aclrtResetDevice(0);
  return failure_;
}

void CollectiveBench::runRank(uint32_t rank, const HcclRootInfo& root) {
  HcclComm comm = nullptr;
  aclrtStream stream = nullptr;
  aclrtEvent start = nullptr, end = nullptr;
  try {
    acl(aclrtSetDevice(static_cast<int32_t>(rank)), "aclrtSetDevice");
    hccl(HcclCommInitRootInfo(s_.ranks, &root, rank, &comm), "HcclCommInitRootInfo");
    acl(aclrtCreateStream(&stream), "aclrtCreateStream");
    acl(aclrtCreateEvent(&start), "aclrtCreateEvent");
    acl(aclrtCreateEvent(&end), "aclrtCreateEvent");
    for (size_t i = 0; i < s_.sizes.size(); ++i) {
      const RankResult result = measure(rank, s_.sizes[i], comm, stream, start, end);
      std::lock_guard<std::mutex> lock(mutex_);
      results_[i].ranks[rank] = result;
      ++ranksDone_[i];
      changed_.notify_all();
    }
  } catch (const std::exception& e) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure_.empty()) failure_ = "rank " + std::to_string(rank) + ": " + e.what();
    changed_.notify_all();
  }
  if (start) aclrtDestroyEvent(start);
  if (end) aclrtDestroyEvent(end);
  if (comm) HcclCommDestroy(comm);
  if (stream) aclrtDestroyStream(stream);
  aclrtResetDevice(static_cast<int32_t>(rank));
}

RankResult CollectiveBench::measure(uint32_t rank, uint64_t dataSize, HcclComm comm,
                                    aclrtStream stream, aclrtEvent start, aclrtEvent end) {
  const CollectiveLayout l = layout(dataSize);
  const CollectiveData data(s_.collective, l, s_.dataType, s_.op, s_.ranks, s_.root);
  DeviceBuffer send(l.sendBytes), recv(l.recvBytes);
  // With no bytes moved (ASCENDSIM_DATA=timing-only) the input is not made, but still sent (its
  // time is the same; its pages, never touched, take no memory).
  const bool moves = runtime::movesData();
  const std::vector<uint8_t> input = moves ? data.input(rank) : std::vector<uint8_t>();
  std::unique_ptr<uint8_t[]> untouched(moves ? nullptr : new uint8_t[l.sendBytes]);
  const void* from = moves ? static_cast<const void*>(input.data()) : untouched.get();
  acl(aclrtMemcpy(send.p, l.sendBytes, from, l.sendBytes, ACL_MEMCPY_HOST_TO_DEVICE),
      "aclrtMemcpy");
  const CollectiveCall call{send.p, recv.p, l.count, s_.dataType, s_.op, s_.root, comm, stream};
  RankResult result;
  result.avgUs = averageMicroseconds(call, start, end);
  if (s_.check == 0 || !data.checkable() || !moves) return result;  // check_result NULL

  // The checked call: the output cleared (so the timed calls' results cannot pass for its own),
  // the input copied in afresh, one call, every output byte compared.
  if (l.recvBytes > 0) acl(aclrtMemset(recv.p, l.recvBytes, 0, l.recvBytes), "aclrtMemset");
  acl(aclrtMemcpy(send.p, input.size(), input.data(), input.size(), ACL_MEMCPY_HOST_TO_DEVICE),
      "aclrtMemcpy");
  hccl(s_.collective.issue(call), s_.collective.hcclCall());
  acl(aclrtSynchronizeStream(stream), "aclrtSynchronizeStream");
  if (!data.checksRank(rank)) return result;
  const bool inPlace = s_.collective.kind() == Collective::Kind::Broadcast;
  std::vector<uint8_t> actual(inPlace ? l.sendBytes : l.recvBytes);
  acl(aclrtMemcpy(actual.data(), actual.size(), inPlace ? send.p : recv.p, actual.size(),
                  ACL_MEMCPY_DEVICE_TO_HOST),
      "aclrtMemcpy");
  result.mismatch = data.compare(rank, actual);
  result.check = result.mismatch ? CheckResult::Failed : CheckResult::Success;
  return result;
}

double CollectiveBench::averageMicroseconds(const CollectiveCall& call, aclrtEvent start,
                                            aclrtEvent end) {
  const std::string name = s_.collective.hcclCall();
  for (int i = 0; i < s_.warmupIters; ++i) hccl(s_.collective.issue(call), name);
  acl(aclrtRecordEvent(start, call.stream), "aclrtRecordEvent");
  for (int i = 0; i < s_.iters; ++i) hccl(s_.collective.issue(call), name);
  acl(aclrtRecordEvent(end, call.stream), "aclrtRecordEvent");
  acl(aclrtSynchronizeStream(call.stream), "aclrtSynchronizeStream");
  float ms = 0;
  acl(aclrtEventElapsedTime(&ms, start, end), "aclrtEventElapsedTime");
  return static_cast<double>(ms) * 1000.0 / s_.iters;
}

}  // namespace ascendsim::tools
