#pragma once
// A rank table (HcclCommInitClusterInfo's clusterInfo file): the JSON that names the servers of a
// job and, for each, its devices with the rank each holds (hicann/hccl docs/zh/user_guide/
// cluster_info_config: "status", "version", "server_count", "server_list" of {"server_id",
// "device": [{"device_id", "device_ip", "rank_id"}]}, every number a string). One server is
// simulated; a table of several is refused until scale-out is.

#include <cstdint>
#include <string>
#include <vector>

namespace ascendsim::runtime::hccl {

struct RankTable {
  std::vector<int32_t> devices;  // by rank: the device id the table gives it
  std::string identity;          // the same for every rank that reads the same table
};

// Reads and checks the table at `path`; fails (HcclFailure) with HCCL_E_OPEN_FILE_FAILURE when it
// cannot be read, HCCL_E_PARA when it is not a valid table, HCCL_E_NOT_SUPPORT for several
// servers.
RankTable readRankTable(const char* path);

}  // namespace ascendsim::runtime::hccl
