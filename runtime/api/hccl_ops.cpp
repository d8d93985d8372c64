// HCCL's collective and point-to-point operations (hccl/hccl.h) over the runtime's collectives
// service: arguments checked with HCCL's codes, each operation queued on the rank's stream.

#include "hccl/hccl.h"

#include "runtime/api/hccl_call.h"
#include "runtime/hccl/data_types.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;

namespace {
TraceArgs opArgs(uint64_t count, int32_t dataType, aclrtStream stream) {
  return {arg("count", count), arg("dataType", hccl::dataTypeName(dataType)), streamArg(stream)};
}
}  // namespace

HCCL_API HcclResult HcclAllReduce(void* sendBuf, void* recvBuf, uint64_t count,
                                  HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                  aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclAllReduce, sendBuf, recvBuf, count, dataType, op, comm, stream);
  return runHccl(
      "HcclAllReduce", &ascendsim::spec::ApiOverheads::kernelLaunch,
      [&](ServicePort& port, HostThread& t) {
        t.callArgs = opArgs(count, rawEnum(dataType), stream);
        t.callArgs.push_back(arg("op", hccl::reduceOpName(rawEnum(op))));
        t.callArgs.push_back(arg(
            "algorithm", collectives().allReduce(port, t, sendBuf, recvBuf, count,
                                                 rawEnum(dataType), rawEnum(op), comm, stream)));
      });
}

HCCL_API HcclResult HcclReduceScatter(void* sendBuf, void* recvBuf, uint64_t recvCount,
                                      HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                      aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclReduceScatter, sendBuf, recvBuf, recvCount, dataType, op, comm, stream);
  return runHccl("HcclReduceScatter", &ascendsim::spec::ApiOverheads::kernelLaunch,
                 [&](ServicePort& port, HostThread& t) {
                   t.callArgs = opArgs(recvCount, rawEnum(dataType), stream);
                   t.callArgs.push_back(arg("op", hccl::reduceOpName(rawEnum(op))));
                   t.callArgs.push_back(arg(
                       "algorithm",
                       collectives().reduceScatter(port, t, sendBuf, recvBuf, recvCount,
                                                   rawEnum(dataType), rawEnum(op), comm, stream)));
                 });
}

HCCL_API HcclResult HcclAllGather(void* sendBuf, void* recvBuf, uint64_t sendCount,
                                  HcclDataType dataType, HcclComm comm, aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclAllGather, sendBuf, recvBuf, sendCount, dataType, comm, stream);
  return runHccl("HcclAllGather", &ascendsim::spec::ApiOverheads::kernelLaunch,
                 [&](ServicePort& port, HostThread& t) {
                   t.callArgs = opArgs(sendCount, rawEnum(dataType), stream);
                   t.callArgs.push_back(arg(
                       "algorithm", collectives().allGather(port, t, sendBuf, recvBuf, sendCount,
                                                            rawEnum(dataType), comm, stream)));
                 });
}

HCCL_API HcclResult HcclReduceScatterV(void* sendBuf, const void* sendCounts,
                                       const void* sendDispls, void* recvBuf, uint64_t recvCount,
                                       HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                       aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclReduceScatterV, sendBuf, sendCounts, sendDispls, recvBuf, recvCount,
                    dataType, op, comm, stream);
  return runHccl("HcclReduceScatterV", &ascendsim::spec::ApiOverheads::kernelLaunch,
                 [&](ServicePort& port, HostThread& t) {
                   t.callArgs = opArgs(recvCount, rawEnum(dataType), stream);
                   t.callArgs.push_back(arg("op", hccl::reduceOpName(rawEnum(op))));
                   t.callArgs.push_back(arg(
                       "algorithm", collectives().reduceScatterV(
                                        port, t, sendBuf, static_cast<const uint64_t*>(sendCounts),
                                        static_cast<const uint64_t*>(sendDispls), recvBuf,
                                        recvCount, rawEnum(dataType), rawEnum(op), comm, stream)));
                 });
}

HCCL_API HcclResult HcclAllGatherV(void* sendBuf, uint64_t sendCount, void* recvBuf,
                                   const void* recvCounts, const void* recvDispls,
                                   HcclDataType dataType, HcclComm comm, aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclAllGatherV, sendBuf, sendCount, recvBuf, recvCounts, recvDispls, dataType,
                    comm, stream);
  return runHccl(
      "HcclAllGatherV", &ascendsim::spec::ApiOverheads::kernelLaunch,
      [&](ServicePort& port, HostThread& t) {
        t.callArgs = opArgs(sendCount, rawEnum(dataType), stream);
        t.callArgs.push_back(
            arg("algorithm", collectives().allGatherV(port, t, sendBuf, sendCount, recvBuf,
                                                      static_cast<const uint64_t*>(recvCounts),
                                                      static_cast<const uint64_t*>(recvDispls),
                                                      rawEnum(dataType), comm, stream)));
      });
}

HCCL_API HcclResult HcclBroadcast(void* buf, uint64_t count, HcclDataType dataType, uint32_t root,
                                  HcclComm comm, aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclBroadcast, buf, count, dataType, root, comm, stream);
  return runHccl("HcclBroadcast", &ascendsim::spec::ApiOverheads::kernelLaunch,
                 [&](ServicePort& port, HostThread& t) {
                   t.callArgs = opArgs(count, rawEnum(dataType), stream);
                   t.callArgs.push_back(arg("root", root));
                   t.callArgs.push_back(arg(
                       "algorithm", collectives().broadcast(port, t, buf, count, rawEnum(dataType),
                                                            root, comm, stream)));
                 });
}

HCCL_API HcclResult HcclReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType,
                               HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclReduce, sendBuf, recvBuf, count, dataType, op, root, comm, stream);
  return runHccl(
      "HcclReduce", &ascendsim::spec::ApiOverheads::kernelLaunch,
      [&](ServicePort& port, HostThread& t) {
        t.callArgs = opArgs(count, rawEnum(dataType), stream);
        t.callArgs.push_back(arg("op", hccl::reduceOpName(rawEnum(op))));
        t.callArgs.push_back(arg("root", root));
        t.callArgs.push_back(arg(
            "algorithm", collectives().reduce(port, t, sendBuf, recvBuf, count, rawEnum(dataType),
                                              rawEnum(op), root, comm, stream)));
      });
}

HCCL_API HcclResult HcclSend(void* sendBuf, uint64_t count, HcclDataType dataType,
                             uint32_t destRank, HcclComm comm, aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclSend, sendBuf, count, dataType, destRank, comm, stream);
  return runHccl("HcclSend", &ascendsim::spec::ApiOverheads::kernelLaunch,
                 [&](ServicePort& port, HostThread& t) {
                   t.callArgs = opArgs(count, rawEnum(dataType), stream);
                   t.callArgs.push_back(arg("destRank", destRank));
                   collectives().send(port, t, sendBuf, count, rawEnum(dataType), destRank, comm,
                                      stream);
                 });
}

HCCL_API HcclResult HcclRecv(void* recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                             HcclComm comm, aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclRecv, recvBuf, count, dataType, srcRank, comm, stream);
  return runHccl("HcclRecv", &ascendsim::spec::ApiOverheads::kernelLaunch,
                 [&](ServicePort& port, HostThread& t) {
                   t.callArgs = opArgs(count, rawEnum(dataType), stream);
                   t.callArgs.push_back(arg("srcRank", srcRank));
                   collectives().recv(port, t, recvBuf, count, rawEnum(dataType), srcRank, comm,
                                      stream);
                 });
}

HCCL_API HcclResult HcclAlltoAllV(const void* sendBuf, const void* sendCounts, const void* sdispls,
                                  HcclDataType sendType, const void* recvBuf,
                                  const void* recvCounts, const void* rdispls,
                                  HcclDataType recvType, HcclComm comm, aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclAlltoAllV, sendBuf, sendCounts, sdispls, sendType, recvBuf, recvCounts,
                    rdispls, recvType, comm, stream);
  return runHccl(
      "HcclAlltoAllV", &ascendsim::spec::ApiOverheads::kernelLaunch,
      [&](ServicePort& port, HostThread& t) {
        t.callArgs = {arg("sendType", hccl::dataTypeName(rawEnum(sendType))),
                      arg("recvType", hccl::dataTypeName(rawEnum(recvType))), streamArg(stream)};
        t.callArgs.push_back(
            arg("algorithm",
                collectives().allToAllV(port, t, sendBuf, static_cast<const uint64_t*>(sendCounts),
                                        static_cast<const uint64_t*>(sdispls), rawEnum(sendType),
                                        recvBuf, static_cast<const uint64_t*>(recvCounts),
                                        static_cast<const uint64_t*>(rdispls), rawEnum(recvType),
                                        comm, stream)));
      });
}

HCCL_API HcclResult HcclAlltoAll(const void* sendBuf, uint64_t sendCount, HcclDataType sendType,
                                 const void* recvBuf, uint64_t recvCount, HcclDataType recvType,
                                 HcclComm comm, aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclAlltoAll, sendBuf, sendCount, sendType, recvBuf, recvCount, recvType, comm,
                    stream);
  return runHccl("HcclAlltoAll", &ascendsim::spec::ApiOverheads::kernelLaunch,
                 [&](ServicePort& port, HostThread& t) {
                   t.callArgs = opArgs(sendCount, rawEnum(sendType), stream);
                   t.callArgs.push_back(arg(
                       "algorithm", collectives().allToAll(port, t, sendBuf, sendCount,
                                                           rawEnum(sendType), recvBuf, recvCount,
                                                           rawEnum(recvType), comm, stream)));
                 });
}

HCCL_API HcclResult HcclScatter(void* sendBuf, void* recvBuf, uint64_t recvCount,
                                HcclDataType dataType, uint32_t root, HcclComm comm,
                                aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclScatter, sendBuf, recvBuf, recvCount, dataType, root, comm, stream);
  return runHccl("HcclScatter", &ascendsim::spec::ApiOverheads::kernelLaunch,
                 [&](ServicePort& port, HostThread& t) {
                   t.callArgs = opArgs(recvCount, rawEnum(dataType), stream);
                   t.callArgs.push_back(arg("root", root));
                   t.callArgs.push_back(arg(
                       "algorithm", collectives().scatter(port, t, sendBuf, recvBuf, recvCount,
                                                          rawEnum(dataType), root, comm, stream)));
                 });
}

HCCL_API HcclResult HcclAlltoAllVC(const void* sendBuf, const void* sendCountMatrix,
                                   HcclDataType sendType, const void* recvBuf,
                                   HcclDataType recvType, HcclComm comm, aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclAlltoAllVC, sendBuf, sendCountMatrix, sendType, recvBuf, recvType, comm,
                    stream);
  return runHccl(
      "HcclAlltoAllVC", &ascendsim::spec::ApiOverheads::kernelLaunch,
      [&](ServicePort& port, HostThread& t) {
        t.callArgs = {arg("sendType", hccl::dataTypeName(rawEnum(sendType))),
                      arg("recvType", hccl::dataTypeName(rawEnum(recvType))), streamArg(stream)};
        t.callArgs.push_back(
            arg("algorithm", collectives().allToAllVC(
                                 port, t, sendBuf, static_cast<const uint64_t*>(sendCountMatrix),
                                 rawEnum(sendType), recvBuf, rawEnum(recvType), comm, stream)));
      });
}

HCCL_API HcclResult HcclBatchSendRecv(HcclSendRecvItem* sendRecvInfo, uint32_t itemNum,
                                      HcclComm comm, aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclBatchSendRecv, sendRecvInfo, itemNum, comm, stream);
  return runHccl("HcclBatchSendRecv", &ascendsim::spec::ApiOverheads::kernelLaunch,
                 [&](ServicePort& port, HostThread& t) {
                   t.callArgs = {arg("itemNum", itemNum), streamArg(stream)};
                   collectives().batchSendRecv(port, t, sendRecvInfo, itemNum, comm, stream);
                 });
}
