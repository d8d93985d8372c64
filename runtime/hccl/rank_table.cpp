#include "runtime/hccl/rank_table.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "hccl/hccl_types.h"
#include "runtime/hccl/group.h"

namespace ascendsim::runtime::hccl {
namespace {

using Json = nlohmann::json;

[[noreturn]] void bad(const std::string& path, const std::string& why) {
  refuse(HCCL_E_PARA, "rank table " + path + ": " + why);
}

// A field the table writes as a string of digits.
uint32_t numberField(const Json& object, const char* key, const std::string& where,
                     const std::string& path) {
  if (!object.is_object() || !object.contains(key)) bad(path, where + " has no \"" + key + "\"");
  const Json& v = object.at(key);
  if (!v.is_string()) bad(path, where + " \"" + key + "\" is not a string of digits");
  const std::string text = v.get<std::string>();
  if (text.empty() || text.size() > 9 || text.find_first_not_of("0123456789") != std::string::npos)
    bad(path, where + " \"" + key + "\" is \"" + text + "\", not a number");
  return static_cast<uint32_t>(std::stoul(text));
}

}  // namespace

RankTable readRankTable(const char* path) {
  if (!path) refuse(HCCL_E_PTR, "clusterInfo is NULL");
  std::error_code ec;
  std::ifstream in(path);
  if (!in || !std::filesystem::is_regular_file(path, ec)) {
    refuse(HCCL_E_OPEN_FILE_FAILURE,
           std::string("cannot read the rank table ") + path + " (not a readable file)");
  }
  // (A rank table of a whole cluster is kilobytes; a device or a huge file is not one.)
  if (std::filesystem::file_size(path, ec) > (16u << 20) || ec) bad(path, "larger than 16 MiB");
  std::stringstream text;
  text << in.rdbuf();
  Json table;
  try {
    table = Json::parse(text.str());
  } catch (const Json::exception& e) {
    bad(path, std::string("not JSON: ") + e.what());
  }
  if (!table.is_object()) bad(path, "not a JSON object");
  if (!table.contains("status") || table["status"] != "completed")
    bad(path, "\"status\" is not \"completed\"");
  if (!table.contains("version") || !table["version"].is_string())
    bad(path, "no \"version\" string");
  const std::string version = table["version"].get<std::string>();
  if (version != "1.0") {
    refuse(HCCL_E_NOT_SUPPORT, "rank table " + std::string(path) + ": version " + version +
                                   " (only the layout of version 1.0 is simulated)");
  }
  const Json& servers = table.contains("server_list") ? table["server_list"] : Json();
  if (!servers.is_array() || servers.empty()) bad(path, "no \"server_list\" array of servers");
  if (table.contains("server_count") &&
      numberField(table, "server_count", "the table", path) != servers.size())
    bad(path, "\"server_count\" differs from the servers listed");
  std::map<uint32_t, RankTable::Place> byRank;
  std::set<std::string> serverIds;
  uint32_t lastRank = 0;
  for (size_t k = 0; k < servers.size(); ++k) {
    const std::string server = "server " + std::to_string(k);
    if (!servers[k].is_object()) bad(path, server + " is not a JSON object");
    if (servers.size() > 1) {
      if (!servers[k].contains("server_id") || !servers[k]["server_id"].is_string())
        bad(path, server + " has no \"server_id\" string");
      if (!serverIds.insert(servers[k]["server_id"].get<std::string>()).second)
        bad(path, server + "'s server_id is another server's too");
    }
    const Json& devices = servers[k].contains("device") ? servers[k]["device"] : Json();
    if (!devices.is_array() || devices.empty()) bad(path, server + " has no \"device\" array");
    std::set<uint32_t> seenDevices;
    std::set<uint32_t> ranksHere;
    for (size_t i = 0; i < devices.size(); ++i) {
      const std::string where = server + " device " + std::to_string(i);
      const uint32_t device = numberField(devices[i], "device_id", where, path);
      const uint32_t rank = numberField(devices[i], "rank_id", where, path);
      if (servers.size() > 1 &&
          (!devices[i].contains("device_ip") || !devices[i]["device_ip"].is_string() ||
           devices[i]["device_ip"].get<std::string>().empty()))
        bad(path, where + " has no \"device_ip\" (its NIC's address, needed between servers)");
      if (!byRank
               .emplace(rank,
                        RankTable::Place{static_cast<uint32_t>(k), static_cast<int32_t>(device)})
               .second)
        bad(path, "rank_id " + std::to_string(rank) + " is given twice");
      if (!seenDevices.insert(device).second)
        bad(path, server + ": device_id " + std::to_string(device) + " is given twice");
      ranksHere.insert(rank);
    }
    // Rank ids must not interleave between servers (HCCL's rank table rules).
    if (k > 0 && *ranksHere.begin() <= lastRank)
      bad(path, server + "'s rank ids do not all come after the previous server's");
    lastRank = *ranksHere.rbegin();
  }
  RankTable t;
  for (const auto& [rank, place] : byRank) {
    if (rank != t.ranks.size())
      bad(path, "rank_id values are not 0.." + std::to_string(byRank.size() - 1));
    t.ranks.push_back(place);
  }
  // Ranks that read the same table (whatever path they name it by) make one communicator.
  t.identity = table.dump();
  return t;
}

}  // namespace ascendsim::runtime::hccl
