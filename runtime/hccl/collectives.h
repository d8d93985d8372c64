#pragma once
// The HCCL service: communicators made by the threads of one process (one per device, as
// hicann/hccl's examples do), the argument checks with HCCL's codes, and each operation handed to
// its algorithm (algorithms.h). Every function runs inside one runtime call (the C layer's
// Runtime::call), so calls reach it one at a time, in the order of simulated time; it fails by
// throwing HcclFailure.

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "hccl/hccl_types.h"
#include "runtime/core/service_port.h"
#include "runtime/hccl/group.h"

namespace ascendsim::runtime::hccl {

class Collectives {
 public:
  static Collectives& instance();

  void getRootInfo(ServicePort& port, HostThread& t, HcclRootInfo* rootInfo);
  // Blocks until all `nRanks` ranks have joined, or fails with HCCL_E_TIMEOUT when some never can.
  HcclComm initRootInfo(ServicePort& port, HostThread& t, uint32_t nRanks,
                        const HcclRootInfo* rootInfo, uint32_t rank, const HcclCommConfig* config);
  // Joins rank `rank` of the communicator the rank table file `clusterInfo` describes (the
  // calling thread's device must be the one the table gives the rank); blocks as initRootInfo.
  HcclComm initClusterInfo(ServicePort& port, HostThread& t, const char* clusterInfo, uint32_t rank,
                           const HcclCommConfig* config);
  void initAll(ServicePort& port, HostThread& t, uint32_t ndev, const int32_t* devices,
               HcclComm* comms);
  // HcclCreateSubCommConfig: the ranks `rankIds` (of `parent`) that give the same `subCommId`
  // make a communicator of their own, the caller its rank `subRank`; blocks as initRootInfo.
  HcclComm createSubComm(ServicePort& port, HostThread& t, HcclComm parent, uint32_t rankNum,
                         const uint32_t* rankIds, uint64_t subCommId, uint32_t subRank,
                         const HcclCommConfig* config);
  void destroy(ServicePort& port, HostThread& t, HcclComm comm);
  // HcclGetCommAsyncError: HCCL_SUCCESS, or how a task of the communicator failed (one of this
  // rank's HCCL_E_RUNTIME, another rank's HCCL_E_REMOTE).
  int32_t asyncError(HcclComm comm);
  // HcclSetConfig / HcclGetConfig(HCCL_DETERMINISTIC), per calling process.
  void setDeterministic(int32_t process, int32_t value);
  int32_t deterministic(int32_t process) const;
  Comm& comm(HcclComm handle);  // HCCL_E_PTR for NULL, HCCL_E_PARA for what is no communicator

  // Operations, queued on `stream`; each returns the algorithm it used.
  std::string allReduce(ServicePort& port, HostThread& t, void* sendBuf, void* recvBuf,
                        uint64_t count, int32_t dataType, int32_t op, HcclComm comm,
                        aclrtStream stream);
  std::string reduceScatter(ServicePort& port, HostThread& t, void* sendBuf, void* recvBuf,
                            uint64_t recvCount, int32_t dataType, int32_t op, HcclComm comm,
                            aclrtStream stream);
  std::string allGather(ServicePort& port, HostThread& t, void* sendBuf, void* recvBuf,
                        uint64_t sendCount, int32_t dataType, HcclComm comm, aclrtStream stream);
  // Counts and displacements in elements, one per rank (HcclReduceScatterV, HcclAllGatherV).
  std::string reduceScatterV(ServicePort& port, HostThread& t, void* sendBuf,
                             const uint64_t* sendCounts, const uint64_t* sendDispls, void* recvBuf,
                             uint64_t recvCount, int32_t dataType, int32_t op, HcclComm comm,
                             aclrtStream stream);
  std::string allGatherV(ServicePort& port, HostThread& t, void* sendBuf, uint64_t sendCount,
                         void* recvBuf, const uint64_t* recvCounts, const uint64_t* recvDispls,
                         int32_t dataType, HcclComm comm, aclrtStream stream);
  std::string broadcast(ServicePort& port, HostThread& t, void* buf, uint64_t count,
                        int32_t dataType, uint32_t root, HcclComm comm, aclrtStream stream);
  std::string reduce(ServicePort& port, HostThread& t, void* sendBuf, void* recvBuf, uint64_t count,
                     int32_t dataType, int32_t op, uint32_t root, HcclComm comm,
                     aclrtStream stream);
  // counts and displacements in elements, one per rank.
  std::string allToAllV(ServicePort& port, HostThread& t, const void* sendBuf,
                        const uint64_t* sendCounts, const uint64_t* sdispls, int32_t sendType,
                        const void* recvBuf, const uint64_t* recvCounts, const uint64_t* rdispls,
                        int32_t recvType, HcclComm comm, aclrtStream stream);
  std::string allToAll(ServicePort& port, HostThread& t, const void* sendBuf, uint64_t sendCount,
                       int32_t sendType, const void* recvBuf, uint64_t recvCount, int32_t recvType,
                       HcclComm comm, aclrtStream stream);
  // The N x N matrix's row i: what rank i sends to each rank (contiguous, in rank order).
  std::string allToAllVC(ServicePort& port, HostThread& t, const void* sendBuf,
                         const uint64_t* sendCountMatrix, int32_t sendType, const void* recvBuf,
                         int32_t recvType, HcclComm comm, aclrtStream stream);
  std::string scatter(ServicePort& port, HostThread& t, void* sendBuf, void* recvBuf,
                      uint64_t recvCount, int32_t dataType, uint32_t root, HcclComm comm,
                      aclrtStream stream);
  std::string barrier(ServicePort& port, HostThread& t, HcclComm comm, aclrtStream stream);
  // Sends and receives that run at once (each send on the helper stream of its peer); each is
  // matched, in order, with the peer's receive or send as HcclSend / HcclRecv are.
  void batchSendRecv(ServicePort& port, HostThread& t, const HcclSendRecvItem* items,
                     uint32_t itemNum, HcclComm comm, aclrtStream stream);
  void send(ServicePort& port, HostThread& t, void* buf, uint64_t count, int32_t dataType,
            uint32_t peer, HcclComm comm, aclrtStream stream);
  void recv(ServicePort& port, HostThread& t, void* buf, uint64_t count, int32_t dataType,
            uint32_t peer, HcclComm comm, aclrtStream stream);

 private:
  Collectives() = default;

  // A communicator being made from a root info: the ranks that have joined so far.
  struct Arrival {
    int32_t device;
    spec::Picoseconds at;
  };
  struct Pending {
    uint32_t nRanks = 0;
    uint64_t cclBytes = 0;
    std::string name;
    std::string algo;  // HCCL_ALGO or the config's hcclAlgo
    std::map<uint32_t, Arrival> arrived;
    std::set<uint32_t> gaveUp;  // ranks that came but stopped waiting (timed out)
    std::vector<Comm*> comms;   // once made, one per rank
    uint32_t taken = 0;
    spec::Picoseconds readyAt = 0;
    int32_t failure = 0;  // an HcclResult, when making it failed
    std::string failureMessage;
    std::string cluster;  // the rank table's identity, for one made from a table
    std::pair<const Group*, uint64_t> sub{nullptr, 0};  // for a sub-communicator
  };

  // Rank `rank` of `nRanks`, on `device`, joins communicator `id` (made once all have joined).
  HcclComm join(ServicePort& port, HostThread& t, uint64_t id, uint32_t nRanks, uint32_t rank,
                int32_t device, uint64_t cclBytes, const std::string& name,
                const std::string& algo);
  void forget(uint64_t id);  // a communicator no longer being made

  // Makes the communicator of ranks on `devices` (rank i on devices[i]): staging buffers, helper
  // streams, topology; `algo` is the HCCL_ALGO text the ranks gave. Returns one Comm per rank.
  std::vector<Comm*> make(ServicePort& port, const std::vector<int32_t>& devices, uint64_t cclBytes,
                          const std::string& name, const std::string& algo);
  // Checks the stream an operation of `c` is queued on.
  Stream& opStream(ServicePort& port, HostThread& t, Comm& c, aclrtStream stream);
  // A user buffer of `bytes` on the rank's device.
  models::MemoryPlace buffer(ServicePort& port, Comm& c, const void* p, uint64_t bytes,
                             const char* role);
  // Takes the next collective number of `c`, after checking every rank describes it the same.
  uint64_t nextCollective(Comm& c, const std::string& description);
  // A point-to-point transfer, checked: its buffer (none for 0 bytes) and peer.
  struct Transfer {
    models::MemoryPlace place;
    uint64_t bytes = 0;
    uint32_t peer = 0;
    bool sending = false;
  };
  Transfer transfer(ServicePort& port, Comm& c, void* buf, uint64_t count, int32_t dataType,
                    uint32_t peer, bool sending);
  // The pair's signal space and the transfer's number in the pair's order, once both sides agree
  // on its size.
  std::pair<uint64_t, uint64_t> pairSlot(Comm& c, const Transfer& x);

  std::map<Comm*, std::unique_ptr<Comm>> comms_;
  std::map<uint64_t, Pending> pending_;       // by root info id
  std::map<std::string, uint64_t> clusters_;  // rank tables being joined: their pending id
  // Sub-communicators being made: (parent's group, subCommId) -> pending id.
  std::map<std::pair<const Group*, uint64_t>, uint64_t> subComms_;
  std::map<int32_t, int32_t> deterministic_;  // HCCL_DETERMINISTIC by process id
  uint64_t nextRootId_ = 1;
  uint64_t nextGroup_ = 0;
};

// While one is alive on a thread, the counts arrays of that thread's operations hold only
// `entries` (they were sent by a program sharing the machine: runtime/api/hccl_served.cpp); an
// operation whose communicator needs more is refused with HCCL_E_PARA instead of read past them.
class ReceivedCounts {
 public:
  explicit ReceivedCounts(uint64_t entries);
  ~ReceivedCounts();
  ReceivedCounts(const ReceivedCounts&) = delete;
  ReceivedCounts& operator=(const ReceivedCounts&) = delete;
  static uint64_t entries();  // UINT64_MAX when none is alive

 private:
  uint64_t previous_;
};

// The HCCL_BUFFSIZE the environment sets (MB), or HCCL's default of 200.
uint64_t bufferSizeFromEnvironment();
const char* errorString(int32_t code);  // HcclGetErrorString

}  // namespace ascendsim::runtime::hccl
