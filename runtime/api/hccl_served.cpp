// The server's end of the HCCL calls in hccl_served.h: each runs HCCL's entry point on the
// connection's thread, which stands for the rank's thread, so the ranks of a communicator that
// are processes of their own meet on the one machine as threads of one program do. A process
// that goes without destroying its communicators has them destroyed.

#include <algorithm>
#include <cstdint>

#include "runtime/api/hccl_served.h"
#include "runtime/hccl/collectives.h"
#include "runtime/remote/served_handlers.h"

namespace ascendsim::remote {
namespace {

aclError serveInitAll(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&HcclCommInitAll> call;
  call.read(in);
  call.run();
  call.write(out);
  if (call.code == HCCL_SUCCESS) {
    for (HcclComm comm : call.slot<2>().value)
      s.process().hold(bitsOf(comm), [comm] { HcclCommDestroy(comm); });
  }
  return call.code;
}

// The program's communicator travels by value (the handle `comm` points to), its rankIds as an
// array; the sub-communicator it makes is the process's to give back.
aclError serveSubComm(Session& s, WireReader& in, WireWriter& out) {
  ServedCall<&HcclCreateSubCommConfig> call;
  call.read(in);
  if (call.arg<2>() && call.slot<2>().value.size() < call.arg<1>()) return HCCL_E_PARA;
  call.run();
  call.write(out);
  if (call.code == HCCL_SUCCESS && call.arg<6>()) {
    HcclComm made = *call.arg<6>();
    s.process().hold(bitsOf(made), [made] { HcclCommDestroy(made); });
  }
  return call.code;
}

// The counts came as arrays of what the program sent: the service refuses a communicator that
// needs more entries than the shortest holds.
template <auto Fn, size_t... Counts>
aclError serveCounts(Session&, WireReader& in, WireWriter& out) {
  ServedCall<Fn> call;
  call.read(in);
  const uint64_t entries = std::min({call.template slot<Counts>().entries()...});
  runtime::hccl::ReceivedCounts received(entries);
  call.run();
  call.write(out);
  return call.code;
}

aclError serveBatchSendRecv(Session&, WireReader& in, WireWriter& out) {
  ServedCall<&HcclBatchSendRecv> call;
  call.read(in);
  if (call.arg<0>() && call.slot<0>().value.size() < call.arg<1>()) return HCCL_E_PARA;
  call.run();
  call.write(out);
  return call.code;
}

const bool kRegistered = [] {
  addServed<&HcclGetRootInfo>();
  addServed<&HcclCommInitRootInfoConfig>(
      &serveAcquire<&HcclCommInitRootInfoConfig, &HcclCommDestroy, 4>);
  addServed<&HcclCommInitClusterInfoConfig>(
      &serveAcquire<&HcclCommInitClusterInfoConfig, &HcclCommDestroy, 3>);
  addServed<&HcclCommInitAll>(&serveInitAll);
  addServed<&HcclCreateSubCommConfig>(&serveSubComm);
  addServed<&HcclGetRankSize>();
  addServed<&HcclGetRankId>();
  addServed<&HcclGetCommName>();
  addServed<&HcclBarrier>();
  addServed<&HcclCommDestroy>(&serveRelease<&HcclCommDestroy>);
  addServed<&HcclGetCommAsyncError>();
  addServed<&HcclSetConfig>();
  addServed<&HcclGetConfig>();
  addServed<&HcclCommSetMemoryRange>();
  addServed<&HcclCommUnsetMemoryRange>();
  addServed<&HcclCommActivateCommMemory>();
  addServed<&HcclCommDeactivateCommMemory>();
  addServed<&HcclCommSymWinRegister>();
  addServed<&HcclCommSymWinDeregister>();
  addServed<&HcclCommSymWinGet>();
  addServed<&HcclAllReduce>();
  addServed<&HcclReduceScatter>();
  addServed<&HcclAllGather>();
  addServed<&HcclReduceScatterV>(&serveCounts<&HcclReduceScatterV, 1, 2>);
  addServed<&HcclAllGatherV>(&serveCounts<&HcclAllGatherV, 3, 4>);
  addServed<&HcclBroadcast>();
  addServed<&HcclReduce>();
  addServed<&HcclScatter>();
  addServed<&HcclSend>();
  addServed<&HcclRecv>();
  addServed<&HcclAlltoAll>();
  addServed<&HcclAlltoAllV>(&serveCounts<&HcclAlltoAllV, 1, 2, 5, 6>);
  addServed<&HcclAlltoAllVC>(&serveCounts<&HcclAlltoAllVC, 1>);
  addServed<&HcclBatchSendRecv>(&serveBatchSendRecv);
  return true;
}();

}  // namespace
}  // namespace ascendsim::remote
