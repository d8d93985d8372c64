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

HCCL_API const char* HcclGetErrorString(HcclResult code) {
  return hccl::errorString(rawEnum(code));
}

// Features 0..2 of HcclCommConfigCapability: the staging buffer size, determinism (the simulation
// is deterministic whatever is asked) and the communicator's name.
HCCL_API uint32_t HcclGetCommConfigCapability(void) {
  return HCCL_COMM_CONFIG_COMM_NAME + 1;
}
