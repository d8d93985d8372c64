#pragma once
// A rank table (HcclCommInitClusterInfo's clusterInfo file): the JSON that names the servers of a
// job and, for each, its devices with the rank each holds (hicann/hccl docs/zh/user_guide/
// cluster_info_config: "status", "version", "server_count", "server_list" of {"server_id",
// "device": [{"device_id", "device_ip", "rank_id"}]}, every number a string). Server k of the
// table is server k of the simulated cluster (or the one machine, for a table of one server).

#include <cstdint>
#include <string>
#include <vector>

namespace ascendsim::runtime::hccl {

struct RankTable {
  struct Place {
    uint32_t server = 0;  // the index of its server in the table's server_list
    int32_t device = 0;   // its device_id in that server
  };
  std::vector<Place> ranks;  // by rank: where the table puts it
  std::string identity;      // the same for every rank that reads the same table
};

// Reads and checks the table at `path`; fails (HcclFailure) with HCCL_E_OPEN_FILE_FAILURE when it
// cannot be read, HCCL_E_PARA when it is not a valid table (several servers: every device with a
// device_ip, each server's rank ids after the previous server's).
RankTable readRankTable(const char* path);

}  // namespace ascendsim::runtime::hccl
