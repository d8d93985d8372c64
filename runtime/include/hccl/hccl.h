/*
 * AscendSim: HCCL's collective and point-to-point operations with CANN's names and signatures
 * (hicann/hccl include/hccl.h is the reference), usable from C and C++. Every operation is
 * queued on `stream` (device memory buffers, the stream of the rank's device); its result bytes
 * are exact and its time is what the simulated links, DMA engines and memories take
 * (docs/collectives.md).
 */
#ifndef HCCL_H_
#define HCCL_H_

#include <acl/acl.h>
#include <hccl/hccl_comm.h>
#include <hccl/hccl_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element-wise reduction of `count` elements over all ranks; the result on every rank. */
extern HcclResult HcclAllReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType,
                                HcclReduceOp op, HcclComm comm, aclrtStream stream);
/* In place: the root's `buf` to every rank's. */
extern HcclResult HcclBroadcast(void* buf, uint64_t count, HcclDataType dataType, uint32_t root,
                                HcclComm comm, aclrtStream stream);
/* Input: rank-size blocks of `recvCount`; rank r receives the reduction of every rank's block r. */
extern HcclResult HcclReduceScatter(void* sendBuf, void* recvBuf, uint64_t recvCount,
                                    HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                    aclrtStream stream);
/* Output: every rank's `sendCount` elements, in rank order. */
extern HcclResult HcclAllGather(void* sendBuf, void* recvBuf, uint64_t sendCount,
                                HcclDataType dataType, HcclComm comm, aclrtStream stream);
/* Rank r's block: sendCounts[r] elements at sendDispls[r] (host arrays of uint64_t, one per
   rank); recvCount is this rank's sendCounts entry. Sum, max or min. */
extern HcclResult HcclReduceScatterV(void* sendBuf, const void* sendCounts, const void* sendDispls,
                                     void* recvBuf, uint64_t recvCount, HcclDataType dataType,
                                     HcclReduceOp op, HcclComm comm, aclrtStream stream);
/* Rank r's sendCount elements land at recvDispls[r] (recvCounts[r] of them; host uint64_t arrays).
 */
extern HcclResult HcclAllGatherV(void* sendBuf, uint64_t sendCount, void* recvBuf,
                                 const void* recvCounts, const void* recvDispls,
                                 HcclDataType dataType, HcclComm comm, aclrtStream stream);
/* Paired in order: the k-th HcclSend from a to b fills the k-th HcclRecv of b from a. */
extern HcclResult HcclSend(void* sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank,
                           HcclComm comm, aclrtStream stream);
extern HcclResult HcclRecv(void* recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank,
                           HcclComm comm, aclrtStream stream);
/* counts and displacements: host arrays of rank-size uint64_t, in elements. */
extern HcclResult HcclAlltoAllV(const void* sendBuf, const void* sendCounts, const void* sdispls,
                                HcclDataType sendType, const void* recvBuf, const void* recvCounts,
                                const void* rdispls, HcclDataType recvType, HcclComm comm,
                                aclrtStream stream);
/* `sendCount` elements to each rank, `recvCount` from each. */
extern HcclResult HcclAlltoAll(const void* sendBuf, uint64_t sendCount, HcclDataType sendType,
                               const void* recvBuf, uint64_t recvCount, HcclDataType recvType,
                               HcclComm comm, aclrtStream stream);
/* The root's `sendBuf` (rank-size blocks of `recvCount`) to every rank's `recvBuf`; sendBuf is
 * read only on the root (NULL elsewhere). */
extern HcclResult HcclScatter(void* sendBuf, void* recvBuf, uint64_t recvCount,
                              HcclDataType dataType, uint32_t root, HcclComm comm,
                              aclrtStream stream);
/* sendCountMatrix: a host array of rank-size x rank-size uint64_t; row i holds what rank i sends
 * to each rank, in elements, laid out one after another in both buffers. */
extern HcclResult HcclAlltoAllVC(const void* sendBuf, const void* sendCountMatrix,
                                 HcclDataType sendType, const void* recvBuf, HcclDataType recvType,
                                 HcclComm comm, aclrtStream stream);
/* Several sends and receives at once; each pairs, in order, with the peer's receive or send. */
extern HcclResult HcclBatchSendRecv(HcclSendRecvItem* sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                    aclrtStream stream);
/* The reduction lands only in the root's `recvBuf`. */
extern HcclResult HcclReduce(void* sendBuf, void* recvBuf, uint64_t count, HcclDataType dataType,
                             HcclReduceOp op, uint32_t root, HcclComm comm, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* HCCL_H_ */
