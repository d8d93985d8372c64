#pragma once
// The HCCL calls a program sharing a machine served by `ascendsim exec --shared` sends to it
// (docs/multiprocess.md), with how each parameter travels (runtime/remote/marshal.h): each rank
// of an MPI or launcher job is a process of its own, and its calls reach the one machine, where
// the communicator's ranks meet as they do when they are threads of one program.

#include "acl/acl_base.h"
#include "hccl/hccl.h"
#include "hccl/hccl_comm.h"
#include "runtime/remote/marshal.h"

namespace ascendsim::remote {

// What a served HCCL call returns: the server's HcclResult, or the runtime's code of a call that
// did not get there (not served, no shared memory, no server) as HCCL would name it.
template <>
struct ServedResult<HcclResult> {
  static HcclResult from(aclError code) {
    if (code >= HCCL_SUCCESS && code <= HCCL_E_RESERVED) return static_cast<HcclResult>(code);
    switch (code) {
      case ACL_ERROR_RT_FEATURE_NOT_SUPPORT: return HCCL_E_NOT_SUPPORT;
      case ACL_ERROR_RT_MEMORY_ALLOCATION: return HCCL_E_MEMORY;
      case ACL_ERROR_RT_INTERNAL_ERROR: return HCCL_E_INTERNAL;
      case ACL_ERROR_INVALID_PARAM: return HCCL_E_PARA;  // refused before it was sent
      default: return HCCL_E_RUNTIME;  // an earlier asynchronous AscendCL call's failure
    }
  }
};

// communicators
ASCENDSIM_SERVED(HcclGetRootInfo, Out)
ASCENDSIM_SERVED(HcclCommInitRootInfoConfig, Val, In, Val, In, Out)
ASCENDSIM_SERVED(HcclCommInitClusterInfoConfig, Str, Val, In, Out)
ASCENDSIM_SERVED(HcclCommInitAll, Val, InArray<0>, OutArray<0>)
ASCENDSIM_SERVED(HcclCreateSubCommConfig, In, Val, InArray<1>, Val, Val, In, Out)
ASCENDSIM_SERVED(HcclGetRankSize, Val, Out)
ASCENDSIM_SERVED(HcclGetRankId, Val, Out)
ASCENDSIM_SERVED(HcclGetCommName, Val, OutChars<COMM_NAME_MAX_LENGTH>)
ASCENDSIM_SERVED(HcclBarrier, Val, Val)
ASCENDSIM_SERVED(HcclCommDestroy, Val)
ASCENDSIM_SERVED(HcclGetCommAsyncError, Val, Out)
ASCENDSIM_SERVED(HcclSetConfig, Val, Whole)
ASCENDSIM_SERVED(HcclGetConfig, Val, Out)
ASCENDSIM_SERVED(HcclCommSetMemoryRange, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(HcclCommUnsetMemoryRange, Val, Val)
ASCENDSIM_SERVED(HcclCommActivateCommMemory, Val, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(HcclCommDeactivateCommMemory, Val, Val)
ASCENDSIM_SERVED(HcclCommSymWinRegister, Val, Val, Val, Out, Val)
ASCENDSIM_SERVED(HcclCommSymWinDeregister, Val)
ASCENDSIM_SERVED(HcclCommSymWinGet, Val, Val, Val, Out, Out)
// operations (buffers are device memory and streams are handles: the same in every process)
ASCENDSIM_SERVED(HcclAllReduce, Val, Val, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(HcclReduceScatter, Val, Val, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(HcclAllGather, Val, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(HcclReduceScatterV, Val, RankArray<7>, RankArray<7>, Val, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(HcclAllGatherV, Val, Val, Val, RankArray<6>, RankArray<6>, Val, Val, Val)
ASCENDSIM_SERVED(HcclBroadcast, Val, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(HcclReduce, Val, Val, Val, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(HcclScatter, Val, Val, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(HcclSend, Val, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(HcclRecv, Val, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(HcclAlltoAll, Val, Val, Val, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(HcclAlltoAllV, Val, RankArray<8>, RankArray<8>, Val, Val, RankArray<8>,
                 RankArray<8>, Val, Val, Val)
ASCENDSIM_SERVED(HcclAlltoAllVC, Val, RankMatrix<5>, Val, Val, Val, Val, Val)
ASCENDSIM_SERVED(HcclBatchSendRecv, InArray<1>, Val, Val, Val)

}  // namespace ascendsim::remote
