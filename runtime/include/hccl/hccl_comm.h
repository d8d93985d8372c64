/*
 * AscendSim: HCCL communicator management with CANN's names and signatures (hicann/hcomm
 * include/hccl/hccl_comm.h is the reference), usable from C and C++. Communicators are made by
 * the threads of one process, or one process per rank under `ascendsim exec --shared`, one rank
 * per device (HcclGetRootInfo + HcclCommInitRootInfo, or HcclCommInitAll); docs/collectives.md
 * says what is simulated and what is not yet.
 */
#ifndef HCCL_COMM_H_
#define HCCL_COMM_H_

#include <stddef.h>

#include <acl/acl.h>
#include <hccl/hccl_types.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fills `rootInfo` on the root rank (the calling thread's current device) for every rank's
 * HcclCommInitRootInfo. */
extern HcclResult HcclGetRootInfo(HcclRootInfo* rootInfo);
/* Joins rank `rank` of `nRanks` (the calling thread's current device) to the communicator
 * `rootInfo` names; returns once every rank has joined, or HCCL_E_TIMEOUT when some never can. */
extern HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo* rootInfo, uint32_t rank,
                                       HcclComm* comm);
extern HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo* rootInfo,
                                             uint32_t rank, const HcclCommConfig* config,
                                             HcclComm* comm);
/* Joins rank `rank` of the communicator a rank table file describes (its JSON: one server, each
 * device's device_id and rank_id); the calling thread's device is the one the table gives the
 * rank. Returns once every rank has joined. */
extern HcclResult HcclCommInitClusterInfo(const char* clusterInfo, uint32_t rank, HcclComm* comm);
extern HcclResult HcclCommInitClusterInfoConfig(const char* clusterInfo, uint32_t rank,
                                                HcclCommConfig* config, HcclComm* comm);
/* The ranks rankIds[0..rankNum) of *comm that call with the same subCommId make a communicator
 * of their own; the caller is its rank subCommRankId (rankIds[subCommRankId] is its rank in *comm).
 */
extern HcclResult HcclCreateSubCommConfig(HcclComm* comm, uint32_t rankNum, uint32_t* rankIds,
                                          uint64_t subCommId, uint32_t subCommRankId,
                                          HcclCommConfig* config, HcclComm* subComm);
/* One communicator of `ndev` ranks, rank i on devices[i], made by one thread: comms[i]. */
extern HcclResult HcclCommInitAll(uint32_t ndev, int32_t* devices, HcclComm* comms);
extern HcclResult HcclGetRankSize(HcclComm comm, uint32_t* rankSize);
extern HcclResult HcclGetRankId(HcclComm comm, uint32_t* rank);
extern HcclResult HcclGetCommName(HcclComm comm, char* commName);
/* Every rank's `stream` waits until all ranks' streams have reached the barrier. */
extern HcclResult HcclBarrier(HcclComm comm, aclrtStream stream);
extern HcclResult HcclCommDestroy(HcclComm comm);
extern const char* HcclGetErrorString(HcclResult code);
/* HCCL_SUCCESS, or how a task of the communicator failed: HCCL_E_RUNTIME (this rank's),
 * HCCL_E_REMOTE (another rank's). */
extern HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult* asyncError);
/* HCCL_DETERMINISTIC only: 0, 1 or 2, per process (the simulation is deterministic either way). */
extern HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue);
extern HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue* configValue);
extern uint32_t HcclGetCommConfigCapability(void);

/* Zero-copy memory ranges and symmetric windows (user buffers HCCL reaches without staging them):
 * declared as HCCL declares them; not simulated yet, each returns HCCL_E_NOT_SUPPORT after
 * checking its communicator, and says so in aclGetRecentErrMsg(). */
extern HcclResult HcclCommSetMemoryRange(HcclComm comm, void* baseVirPtr, size_t size,
                                         size_t alignment, uint64_t flags);
extern HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void* baseVirPtr);
extern HcclResult HcclCommActivateCommMemory(HcclComm comm, void* virPtr, size_t size,
                                             size_t offset, aclrtDrvMemHandle handle,
                                             uint64_t flags);
extern HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void* virPtr);
extern HcclResult HcclCommSymWinRegister(HcclComm comm, void* addr, uint64_t size,
                                         HcclCommSymWindow* winHandle, uint32_t flag);
extern HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle);
extern HcclResult HcclCommSymWinGet(HcclComm comm, void* ptr, size_t size,
                                    HcclCommSymWindow* winHandle, size_t* offset);

/* Sets every field of `config` to "not set" and writes the header that versions the struct:
 * {size_t size = sizeof(HcclCommConfig); uint32_t magic word; uint32_t version; uint64_t 0}. */
static inline void HcclCommConfigInit(HcclCommConfig* config) {
  typedef struct {
    size_t size;
    uint32_t magicWord;
    uint32_t version;
    uint64_t reserved;
  } HcclCommConfigHeader;
  HcclCommConfigHeader* header;
  if (config == NULL) return;
  header = (HcclCommConfigHeader*)(void*)config;
  header->size = sizeof(HcclCommConfig);
  header->magicWord = HCCL_COMM_CONFIG_MAGIC_WORD;
  header->version = HCCL_COMM_CONFIG_VERSION;
  header->reserved = 0;
  config->hcclBufferSize = HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET;
  config->hcclDeterministic = HCCL_COMM_DETERMINISTIC_CONFIG_NOT_SET;
  config->hcclCommName[0] = '\0';
  config->hcclUdi[0] = '\0';
  config->hcclOpExpansionMode = HCCL_COMM_DEFAULT_OP_EXPANSION_MODE;
  config->hcclRdmaTrafficClass = HCCL_COMM_TRAFFIC_CLASS_CONFIG_NOT_SET;
  config->hcclRdmaServiceLevel = HCCL_COMM_SERVICE_LEVEL_CONFIG_NOT_SET;
  config->hcclWorldRankID = 0;
  config->hcclJobID = 0;
  config->aclGraphZeroCopyEnable = 0;
  config->hcclExecTimeOut = HCCL_COMM_EXECTIMEOUT_CONFIG_NOT_SET;
  config->hcclAlgo[0] = '\0';
  config->hcclRetryEnable[0] = '\0';
  config->hcclRetryParams[0] = '\0';
  config->hcclBufferName[0] = '\0';
  config->hcclQos = HCCL_COMM_QOS_CONFIG_NOT_SET;
  config->hcclSymWinMaxMemSizePerRank = HCCL_DEFAULT_SYMMETRIC_MEMORY_STRIDE;
  config->hcclChannelSqDepth = HCCL_COMM_SQ_DEPTH_CONFIG_NOT_SET;
}

typedef enum {
  HCCL_OP_EXPANSION_MODE_INVALID = -1,
  HCCL_OP_EXPANSION_MODE_AI_CPU = 0,
  HCCL_OP_EXPANSION_MODE_AIV = 1,
  HCCL_OP_EXPANSION_MODE_HOST = 2,
  HCCL_OP_EXPANSION_MODE_HOST_TS = 3,
  HCCL_OP_EXPANSION_MODE_CCU_MS = 4,
  HCCL_OP_EXPANSION_MODE_CCU_SCHED = 5,
  HCCL_OP_EXPANSION_AIV_ONLY = 6
} HcclOpExpansionMode;

typedef enum {
  HCCL_CONFIG_TYPE_INVALID = -1,
  HCCL_CONFIG_TYPE_OP_EXPANSION_MODE = 0,
  HCCL_CONFIG_TYPE_HCCL_ALGO = 1
} HcclConfigType;
typedef HcclOpExpansionMode HcclConfigTypeOpExpansionMode;

#ifdef __cplusplus
}
#endif

#endif /* HCCL_COMM_H_ */
