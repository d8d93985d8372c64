// HCCL communicator management (hccl/hccl_comm.h) over the runtime's collectives service.

#include "hccl/hccl_comm.h"

#include <cstring>

#include "runtime/api/hccl_call.h"

using namespace ascendsim::runtime;
using namespace ascendsim::runtime::api;

HCCL_API HcclResult HcclGetRootInfo(HcclRootInfo* rootInfo) {
  ASCENDSIM_FORWARD(HcclGetRootInfo, rootInfo);
  return runHccl(
      "HcclGetRootInfo", &ascendsim::spec::ApiOverheads::defaultCall,
      [&](ServicePort& port, HostThread& t) { collectives().getRootInfo(port, t, rootInfo); });
}

HCCL_API HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo* rootInfo,
                                               uint32_t rank, const HcclCommConfig* config,
                                               HcclComm* comm) {
  if (ascendsim::remote::clientActive()) {
    const HcclResult result = ascendsim::remote::forward<&HcclCommInitRootInfoConfig>(
        nRanks, rootInfo, rank, config, comm);
    if (result == HCCL_SUCCESS) ascendsim::remote::rememberRanks(*comm, nRanks);
    return result;
  }
  return runHccl("HcclCommInitRootInfo", &ascendsim::spec::ApiOverheads::defaultCall,
                 [&](ServicePort& port, HostThread& t) {
                   if (!comm) hccl::refuse(HCCL_E_PTR, "comm is NULL");
                   t.callArgs = {arg("nRanks", nRanks), arg("rank", rank)};
                   *comm = collectives().initRootInfo(port, t, nRanks, rootInfo, rank, config);
                 });
}

HCCL_API HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo* rootInfo,
                                         uint32_t rank, HcclComm* comm) {
  return HcclCommInitRootInfoConfig(nRanks, rootInfo, rank, nullptr, comm);
}

HCCL_API HcclResult HcclCommInitClusterInfoConfig(const char* clusterInfo, uint32_t rank,
                                                  HcclCommConfig* config, HcclComm* comm) {
  if (ascendsim::remote::clientActive()) {
    HcclResult result =
        ascendsim::remote::forward<&HcclCommInitClusterInfoConfig>(clusterInfo, rank, config, comm);
    // The program learns the communicator's size (the table gave it) for the calls that pass
    // counts per rank.
    uint32_t ranks = 0;
    if (result == HCCL_SUCCESS) result = HcclGetRankSize(*comm, &ranks);
    if (result == HCCL_SUCCESS) ascendsim::remote::rememberRanks(*comm, ranks);
    return result;
  }
  return runHccl(
      "HcclCommInitClusterInfo", &ascendsim::spec::ApiOverheads::defaultCall,
      [&](ServicePort& port, HostThread& t) {
        if (!comm) hccl::refuse(HCCL_E_PTR, "comm is NULL");
        t.callArgs = {arg("clusterInfo", clusterInfo ? clusterInfo : ""), arg("rank", rank)};
        *comm = collectives().initClusterInfo(port, t, clusterInfo, rank, config);
      });
}

HCCL_API HcclResult HcclCommInitClusterInfo(const char* clusterInfo, uint32_t rank,
                                            HcclComm* comm) {
  return HcclCommInitClusterInfoConfig(clusterInfo, rank, nullptr, comm);
}

HCCL_API HcclResult HcclCreateSubCommConfig(HcclComm* comm, uint32_t rankNum, uint32_t* rankIds,
                                            uint64_t subCommId, uint32_t subCommRankId,
                                            HcclCommConfig* config, HcclComm* subComm) {
  if (ascendsim::remote::clientActive()) {
    const HcclResult result = ascendsim::remote::forward<&HcclCreateSubCommConfig>(
        comm, rankNum, rankIds, subCommId, subCommRankId, config, subComm);
    if (result == HCCL_SUCCESS) ascendsim::remote::rememberRanks(*subComm, rankNum);
    return result;
  }
  return runHccl("HcclCreateSubCommConfig", &ascendsim::spec::ApiOverheads::defaultCall,
                 [&](ServicePort& port, HostThread& t) {
                   if (!comm) hccl::refuse(HCCL_E_PTR, "comm is NULL");
                   if (!subComm) hccl::refuse(HCCL_E_PTR, "subComm is NULL");
                   t.callArgs = {arg("rankNum", rankNum), arg("subCommId", subCommId),
                                 arg("subCommRankId", subCommRankId)};
                   *subComm = collectives().createSubComm(port, t, *comm, rankNum, rankIds,
                                                          subCommId, subCommRankId, config);
                 });
}

HCCL_API HcclResult HcclCommInitAll(uint32_t ndev, int32_t* devices, HcclComm* comms) {
  if (ascendsim::remote::clientActive()) {
    const HcclResult result = ascendsim::remote::forward<&HcclCommInitAll>(ndev, devices, comms);
    for (uint32_t i = 0; result == HCCL_SUCCESS && i < ndev; ++i)
      ascendsim::remote::rememberRanks(comms[i], ndev);
    return result;
  }
  return runHccl("HcclCommInitAll", &ascendsim::spec::ApiOverheads::defaultCall,
                 [&](ServicePort& port, HostThread& t) {
                   t.callArgs = {arg("ndev", ndev)};
                   collectives().initAll(port, t, ndev, devices, comms);
                 });
}

HCCL_API HcclResult HcclGetRankSize(HcclComm comm, uint32_t* rankSize) {
  ASCENDSIM_FORWARD(HcclGetRankSize, comm, rankSize);
  return runHccl("HcclGetRankSize", &ascendsim::spec::ApiOverheads::defaultCall,
                 [&](ServicePort&, HostThread&) {
                   hccl::Comm& c = collectives().comm(comm);
                   if (!rankSize) hccl::refuse(HCCL_E_PTR, "rankSize is NULL");
                   *rankSize = c.group->size();
                 });
}

HCCL_API HcclResult HcclGetRankId(HcclComm comm, uint32_t* rank) {
  ASCENDSIM_FORWARD(HcclGetRankId, comm, rank);
  return runHccl("HcclGetRankId", &ascendsim::spec::ApiOverheads::defaultCall,
                 [&](ServicePort&, HostThread&) {
                   hccl::Comm& c = collectives().comm(comm);
                   if (!rank) hccl::refuse(HCCL_E_PTR, "rank is NULL");
                   *rank = c.rank;
                 });
}

HCCL_API HcclResult HcclGetCommName(HcclComm comm, char* commName) {
  ASCENDSIM_FORWARD(HcclGetCommName, comm, commName);
  return runHccl("HcclGetCommName", &ascendsim::spec::ApiOverheads::defaultCall,
                 [&](ServicePort&, HostThread&) {
                   hccl::Comm& c = collectives().comm(comm);
                   if (!commName) hccl::refuse(HCCL_E_PTR, "commName is NULL");
                   // The caller's buffer holds COMM_NAME_MAX_LENGTH bytes.
                   const std::string& name = c.group->name();
                   const size_t n = std::min<size_t>(name.size(), COMM_NAME_MAX_LENGTH - 1);
                   std::memcpy(commName, name.data(), n);
                   commName[n] = '\0';
                 });
}

HCCL_API HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) {
  ASCENDSIM_FORWARD(HcclBarrier, comm, stream);
  return runHccl(
      "HcclBarrier", &ascendsim::spec::ApiOverheads::kernelLaunch,
      [&](ServicePort& port, HostThread& t) {
        t.callArgs = {streamArg(stream)};
        t.callArgs.push_back(arg("algorithm", collectives().barrier(port, t, comm, stream)));
      });
}

HCCL_API HcclResult HcclCommDestroy(HcclComm comm) {
  if (ascendsim::remote::clientActive()) {
    const HcclResult result = ascendsim::remote::forward<&HcclCommDestroy>(comm);
    if (result == HCCL_SUCCESS) ascendsim::remote::forgetRanks(comm);
    return result;
  }
  return runHccl("HcclCommDestroy", &ascendsim::spec::ApiOverheads::defaultCall,
                 [&](ServicePort& port, HostThread& t) { collectives().destroy(port, t, comm); });
}

HCCL_API HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult* asyncError) {
  ASCENDSIM_FORWARD(HcclGetCommAsyncError, comm, asyncError);
  return runHccl("HcclGetCommAsyncError", &ascendsim::spec::ApiOverheads::defaultCall,
                 [&](ServicePort&, HostThread&) {
                   const int32_t error = collectives().asyncError(comm);
                   if (!asyncError) hccl::refuse(HCCL_E_PTR, "asyncError is NULL");
                   *asyncError = static_cast<HcclResult>(error);
                 });
}

// HCCL_DETERMINISTIC is kept per process and read back; the simulation's reductions are
// deterministic whatever it says (the same bytes in the same order on every run).
HCCL_API HcclResult HcclSetConfig(HcclConfig config, HcclConfigValue configValue) {
  ASCENDSIM_FORWARD(HcclSetConfig, config, configValue);
  return runHccl("HcclSetConfig", &ascendsim::spec::ApiOverheads::defaultCall,
                 [&](ServicePort&, HostThread& t) {
                   if (rawEnum(config) != HCCL_DETERMINISTIC)
                     hccl::refuse(HCCL_E_NOT_SUPPORT, "only HCCL_DETERMINISTIC can be set");
                   collectives().setDeterministic(rt().callerPid(t), configValue.value);
                 });
}

HCCL_API HcclResult HcclGetConfig(HcclConfig config, HcclConfigValue* configValue) {
  ASCENDSIM_FORWARD(HcclGetConfig, config, configValue);
  return runHccl("HcclGetConfig", &ascendsim::spec::ApiOverheads::defaultCall,
                 [&](ServicePort&, HostThread& t) {
                   if (rawEnum(config) != HCCL_DETERMINISTIC)
                     hccl::refuse(HCCL_E_NOT_SUPPORT, "only HCCL_DETERMINISTIC can be read");
                   if (!configValue) hccl::refuse(HCCL_E_PTR, "configValue is NULL");
                   configValue->value = collectives().deterministic(rt().callerPid(t));
                 });
}

HCCL_API const char* HcclGetErrorString(HcclResult code) {
  return hccl::errorString(rawEnum(code));
}

// Features 0..2 of HcclCommConfigCapability: the staging buffer size, determinism (the simulation
// is deterministic whatever is asked) and the communicator's name.
HCCL_API uint32_t HcclGetCommConfigCapability(void) {
  return HCCL_COMM_CONFIG_COMM_NAME + 1;
}

// Zero-copy memory ranges and symmetric windows: the communicator is checked, then the feature is
// refused (docs/collectives.md, "Not done yet").
namespace {
HcclResult zeroCopyRefused(const char* name, HcclComm comm) {
  return runHccl(name, &ascendsim::spec::ApiOverheads::defaultCall, [&](ServicePort&, HostThread&) {
    collectives().comm(comm);
    hccl::refuse(HCCL_E_NOT_SUPPORT,
                 "zero-copy memory ranges and symmetric windows are not simulated yet; HCCL "
                 "stages user buffers through its CCL buffers (HCCL_BUFFSIZE)");
  });
}
}  // namespace

HCCL_API HcclResult HcclCommSetMemoryRange(HcclComm comm, void* baseVirPtr, size_t size,
                                           size_t alignment, uint64_t flags) {
  ASCENDSIM_FORWARD(HcclCommSetMemoryRange, comm, baseVirPtr, size, alignment, flags);
  return zeroCopyRefused("HcclCommSetMemoryRange", comm);
}

HCCL_API HcclResult HcclCommUnsetMemoryRange(HcclComm comm, void* baseVirPtr) {
  ASCENDSIM_FORWARD(HcclCommUnsetMemoryRange, comm, baseVirPtr);
  return zeroCopyRefused("HcclCommUnsetMemoryRange", comm);
}

HCCL_API HcclResult HcclCommActivateCommMemory(HcclComm comm, void* virPtr, size_t size,
                                               size_t offset, aclrtDrvMemHandle handle,
                                               uint64_t flags) {
  ASCENDSIM_FORWARD(HcclCommActivateCommMemory, comm, virPtr, size, offset, handle, flags);
  return zeroCopyRefused("HcclCommActivateCommMemory", comm);
}

HCCL_API HcclResult HcclCommDeactivateCommMemory(HcclComm comm, void* virPtr) {
  ASCENDSIM_FORWARD(HcclCommDeactivateCommMemory, comm, virPtr);
  return zeroCopyRefused("HcclCommDeactivateCommMemory", comm);
}

HCCL_API HcclResult HcclCommSymWinRegister(HcclComm comm, void* addr, uint64_t size,
                                           HcclCommSymWindow* winHandle, uint32_t flag) {
  ASCENDSIM_FORWARD(HcclCommSymWinRegister, comm, addr, size, winHandle, flag);
  return zeroCopyRefused("HcclCommSymWinRegister", comm);
}

HCCL_API HcclResult HcclCommSymWinDeregister(HcclCommSymWindow winHandle) {
  ASCENDSIM_FORWARD(HcclCommSymWinDeregister, winHandle);
  return runHccl("HcclCommSymWinDeregister", &ascendsim::spec::ApiOverheads::defaultCall,
                 [&](ServicePort&, HostThread&) {
                   if (!winHandle) hccl::refuse(HCCL_E_PTR, "winHandle is NULL");
                   hccl::refuse(HCCL_E_PARA, "winHandle is no registered window (none can be)");
                 });
}

HCCL_API HcclResult HcclCommSymWinGet(HcclComm comm, void* ptr, size_t size,
                                      HcclCommSymWindow* winHandle, size_t* offset) {
  ASCENDSIM_FORWARD(HcclCommSymWinGet, comm, ptr, size, winHandle, offset);
  return zeroCopyRefused("HcclCommSymWinGet", comm);
}
