#include "runtime/hccl/collectives.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <set>

#include "runtime/core/copy_planner.h"
#include "runtime/core/errors.h"
#include "runtime/hccl/algo_setting.h"
#include "runtime/hccl/algorithms.h"
#include "runtime/hccl/data_types.h"
#include "runtime/hccl/rank_table.h"
#include "runtime/hccl/steps.h"

namespace ascendsim::runtime::hccl {

using models::MemoryPlace;

namespace {

constexpr uint64_t kMaxCount = 0x7FFFFFFFFull;  // SYS_MAX_COUNT
constexpr uint64_t kMiB = 1024 * 1024;
constexpr uint64_t kHccsBit = 0x01;  // ACL_RT_DEVS_TOPOLOGY_HCCS

// What HcclGetRootInfo writes at the start of the 4108 bytes: enough to find the communicator
// being made, and to tell a root info of another process (not simulated yet) from garbage.
struct RootInfoContents {
  char magic[24];
  uint32_t version;
  int32_t pid;
  uint64_t id;
  int32_t rootDevice;
};
constexpr char kRootMagic[24] = "AscendSim HCCL root";
static_assert(sizeof(RootInfoContents) <= sizeof(HcclRootInfo), "root info fits");

uint64_t secondsFromEnvironment(const char* name, uint64_t fallback, uint64_t low, uint64_t high) {
  const char* text = std::getenv(name);
  if (!text || !*text) return fallback;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(text, &end, 10);
  if (!end || *end || v < low || v > high) return fallback;
  return v;
}

std::string rankList(const std::vector<uint32_t>& ranks) {
  std::string text;
  for (uint32_t r : ranks) text += (text.empty() ? "" : ", ") + std::to_string(r);
  return text;
}

void checkCount(uint64_t count, const char* what) {
  if (count > kMaxCount) {
    refuse(HCCL_E_PARA, std::string(what) + " " + std::to_string(count) +
                            " exceeds the largest count HCCL takes (0x7FFFFFFFF)");
  }
}

// The element size of a type an operation that does not reduce may move.
uint32_t movableType(int32_t dataType) {
  const uint32_t size = elementSize(dataType);
  if (size == 0 || dataType == HCCL_DATA_TYPE_INT128) {
    refuse(HCCL_E_NOT_SUPPORT, "data type " + dataTypeName(dataType) + " is not supported");
  }
  return size;
}

uint32_t reducibleType(int32_t dataType, int32_t op) {
  std::string why;
  if (elementSize(dataType) == 0) {
    refuse(HCCL_E_NOT_SUPPORT, "data type " + dataTypeName(dataType) + " is not supported");
  }
  if (!reducible(dataType, op, &why)) refuse(HCCL_E_NOT_SUPPORT, why);
  return elementSize(dataType);
}

uint64_t times(uint64_t count, uint64_t size) {
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(count, size, &bytes))
    refuse(HCCL_E_PARA, "count x element size overflows");
  return bytes;
}

void needPointer(const void* p, const char* what) {
  if (!p) refuse(HCCL_E_PTR, std::string(what) + " is NULL");
}

thread_local uint64_t receivedCountEntries = UINT64_MAX;

void needCountEntries(uint64_t needed, const char* what) {
  if (needed > receivedCountEntries) {
    refuse(HCCL_E_PARA, std::string(what) + " hold(s) " + std::to_string(receivedCountEntries) +
                            " entries, fewer than the communicator needs (" +
                            std::to_string(needed) + ")");
  }
}

void checkAligned(const void* p, uint32_t element, const char* what) {
  if (reinterpret_cast<uint64_t>(p) % element != 0) {
    refuse(HCCL_E_PARA, std::string(what) + " is not aligned to its " + std::to_string(element) +
                            "-byte elements");
  }
}

// A reduction's send and receive buffers: both given and aligned to the element size of
// `dataType`, which `op` must be able to reduce. Returns that element size.
uint32_t reductionBuffers(const void* sendBuf, const void* recvBuf, int32_t dataType, int32_t op) {
  needPointer(sendBuf, "sendBuf");
  needPointer(recvBuf, "recvBuf");
  const uint32_t element = reducibleType(dataType, op);
  checkAligned(sendBuf, element, "sendBuf");
  checkAligned(recvBuf, element, "recvBuf");
  return element;
}

void checkRank(const Comm& c, uint32_t r, const char* what) {
  if (r >= c.group->size()) {
    refuse(HCCL_E_PARA, std::string(what) + " " + std::to_string(r) +
                            " is out of range: the communicator has " +
                            std::to_string(c.group->size()) + " rank(s)");
  }
}

// The blocks of a V operation: counts and displacements (elements, one per rank) in bytes.
Blocks vBlocks(const Comm& c, const uint64_t* counts, const uint64_t* displs, uint32_t element,
               const char* countsName, const char* displsName) {
  const uint32_t p = c.group->size();
  needCountEntries(p, countsName);
  Blocks b;
  for (uint32_t r = 0; r < p; ++r) {
    checkCount(counts[r], countsName);
    checkCount(displs[r], displsName);
    b.bytes.push_back(times(counts[r], element));
    b.offsets.push_back(times(displs[r], element));
  }
  return b;
}

// A V operation's count of the rank's own block, which must be its entry in the counts.
void needOwnCount(const Comm& c, uint64_t count, const char* what, const uint64_t* counts,
                  const char* countsName) {
  checkCount(count, what);
  if (count != counts[c.rank]) {
    refuse(HCCL_E_PARA, std::string(what) + " " + std::to_string(count) + " is not " + countsName +
                            "[" + std::to_string(c.rank) + "] (" + std::to_string(counts[c.rank]) +
                            ")");
  }
}

// The bytes a buffer of these blocks spans.
uint64_t blocksExtent(const Blocks& b) {
  uint64_t extent = 0;
  for (size_t r = 0; r < b.bytes.size(); ++r) {
    if (b.bytes[r]) extent = std::max(extent, b.offsets[r] + b.bytes[r]);
  }
  return extent;
}

// One value per rank, as ranks compare the operation they take part in.
std::string countsText(const uint64_t* values, const Comm& c) {
  std::string text;
  for (uint32_t r = 0; r < c.group->size(); ++r) text += (r ? "," : "") + std::to_string(values[r]);
  return text;
}

// The algorithm's name as the trace shows it, and how it reduced.
std::string withReduce(const Steps& s, const char* algorithm) {
  return std::string(algorithm) + (s.inlineReduce() ? ", inline reduce" : ", reduce kernels");
}

}  // namespace

uint64_t bufferSizeFromEnvironment() {
  return secondsFromEnvironment("HCCL_BUFFSIZE", HCCL_COMM_DEFAULT_BUFFSIZE, 1, 1u << 20);
}

Collectives& Collectives::instance() {
  static Collectives* c = new Collectives();  // lives as long as the process (threads use it)
  return *c;
}

// ---------------------------------------------------------------- communicators

namespace {
// Whether the ranks on `devices` sit in two or more servers of a cluster as HCCL's two-level
// algorithms need them: each server's ranks consecutive, as many in every server, joined pairwise
// by HCCS. `algo` (HCCL_ALGO) chooses the level-1 algorithm of AllReduce.
Hierarchy findHierarchy(ServicePort& port, const std::vector<int32_t>& devices,
                        const std::string& algo) {
  Hierarchy h;
  const uint32_t p = static_cast<uint32_t>(devices.size());
  std::vector<uint32_t> server(p);
  for (uint32_t r = 0; r < p; ++r) server[r] = port.deviceSpec(devices[r]).server;
  uint32_t servers = 1;
  for (uint32_t r = 1; r < p; ++r) {
    if (server[r] != server[r - 1]) ++servers;
  }
  if (servers == 1 || p % servers != 0) return h;
  const uint32_t n = p / servers;
  for (uint32_t r = 0; r < p; ++r) {
    if (server[r] != server[r / n * n]) return h;  // not n consecutive ranks per server
    for (uint32_t q = r / n * n; q < r; ++q) {
      if (port.topology(devices[q], devices[r]) != kHccsBit) return h;
    }
  }
  const AlgoSetting setting = parseAlgoSetting(algo, "HCCL_ALGO");
  for (const char* op : {"allreduce", ""}) {
    auto levels = setting.levels.find(op);
    if (levels == setting.levels.end() || !levels->second.count("level1")) continue;
    h.level1 = levels->second.at("level1");
    break;
  }
  for (const auto& [op, levels] : setting.levels) {
    auto l1 = levels.find("level1");
    if (l1 != levels.end() && l1->second == "H-D_R" && servers > 2) {
      refuse(HCCL_E_NOT_SUPPORT, "HCCL_ALGO level1 H-D_R" + (op.empty() ? "" : " for " + op) +
                                     " on " + std::to_string(servers) +
                                     " servers: the simulation runs halving-doubling on two "
                                     "servers only (use level1:ring)");
    }
  }
  h.servers = servers;
  h.perServer = n;
  return h;
}

// Whether the ranks are the 910's (first generation) eight NPUs as two HCCS groups of four, ranks
// 0-3 and 4-7 (Atlas 800-9000), every hop of HCCL's four logical rings able to move data.
bool fourRingsOf910(ServicePort& port, const std::vector<int32_t>& devices, bool mesh) {
  if (mesh || devices.size() != 8) return false;
  const std::string& soc = port.deviceSpec(devices[0]).soc;
  if (soc.rfind("Ascend910", 0) != 0 || soc.rfind("Ascend910B", 0) == 0 ||
      soc.rfind("Ascend910_93", 0) == 0)
    return false;
  for (uint32_t a = 0; a < 8; ++a) {
    if (port.deviceSpec(devices[a]).soc != soc) return false;
    for (uint32_t b = a + 1; b < 8; ++b) {
      const bool hccs = port.topology(devices[a], devices[b]) == kHccsBit;
      if (hccs != (a / 4 == b / 4)) return false;
    }
  }
  for (const auto& ring : {std::vector<uint32_t>{0, 1, 2, 6, 5, 4, 7, 3},
                           std::vector<uint32_t>{0, 2, 3, 1, 5, 7, 6, 4}}) {
    for (size_t i = 0; i < ring.size(); ++i) {
      if (!port.directPath(devices[ring[i]], devices[ring[(i + 1) % ring.size()]], nullptr))
        return false;
    }
  }
  return true;
}
}  // namespace

void Collectives::getRootInfo(ServicePort& port, HostThread& t, HcclRootInfo* rootInfo) {
  needPointer(rootInfo, "rootInfo");
  const int32_t device = port.currentDevice(t);  // the root's
  RootInfoContents contents{};
  std::memcpy(contents.magic, kRootMagic, sizeof kRootMagic);
  contents.version = 1;
  contents.pid = static_cast<int32_t>(getpid());
  contents.id = nextRootId_++;
  contents.rootDevice = device;
  std::memset(rootInfo, 0, sizeof *rootInfo);
  std::memcpy(rootInfo->internal, &contents, sizeof contents);
}

std::vector<Comm*> Collectives::make(ServicePort& port, const std::vector<int32_t>& devices,
                                     uint64_t cclBytes, const std::string& name,
                                     const std::string& algo) {
  const uint32_t p = static_cast<uint32_t>(devices.size());
  bool mesh = p > 1;
  for (uint32_t a = 0; a < p; ++a) {
    for (uint32_t b = a + 1; b < p; ++b) {
      if (port.topology(devices[a], devices[b]) != kHccsBit) mesh = false;
    }
  }
  const Hierarchy hierarchy = findHierarchy(port, devices, algo);
  if (!mesh && p > 1) {
    // The ring: each rank moves data to its right neighbour's memory (over the network between
    // servers of a cluster).
    const uint32_t links = p == 2 ? 1 : p;
    for (uint32_t r = 0; r < links; ++r) {
      const int32_t a = devices[r], b = devices[(r + 1) % p];
      std::string why;
      if (!port.directPath(a, b, &why) && !port.networkPath(a, b)) {
        refuse(HCCL_E_NOT_SUPPORT, "ranks " + std::to_string(r) + " and " +
                                       std::to_string((r + 1) % p) +
                                       " cannot move data between their devices: " + why);
      }
    }
  }
  std::vector<RankPlace> places(p);
  auto releaseAll = [&] {
    for (RankPlace& rp : places) {
      if (rp.cclIn) port.release(rp.cclIn);
      if (rp.cclOut) port.release(rp.cclOut);
    }
  };
  for (uint32_t r = 0; r < p; ++r) {
    RankPlace& rp = places[r];
    rp.device = devices[r];
    rp.cclIn = port.allocate(rp.device, cclBytes);
    rp.cclOut = rp.cclIn ? port.allocate(rp.device, cclBytes) : nullptr;
    if (!rp.cclOut) {
      releaseAll();
      refuse(HCCL_E_MEMORY, "device " + std::to_string(rp.device) + " has no room for the " +
                                "two staging buffers of " + std::to_string(cclBytes / kMiB) +
                                " MB each (HCCL_BUFFSIZE)");
    }
    rp.inPlace = port.place(rp.cclIn, cclBytes, "CCL in");
    rp.outPlace = port.place(rp.cclOut, cclBytes, "CCL out");
  }
  auto group = std::make_shared<Group>(name, std::move(places), cclBytes, mesh,
                                       port.deviceSpec(devices[0]).soc, hierarchy);
  group->setFourRings(fourRingsOf910(port, devices, mesh));
  group->liveRanks = p;
  std::vector<Comm*> made;
  for (uint32_t r = 0; r < p; ++r) {
    auto c = std::make_unique<Comm>();
    c->group = group;
    c->rank = r;
    c->device = devices[r];
    c->helpers.assign(p, nullptr);
    for (uint32_t peer = 0; peer < p; ++peer) {
      if (peer != r) c->helpers[peer] = &port.createStream(c->device);
    }
    c->sends.assign(p, 0);
    c->recvs.assign(p, 0);
    made.push_back(c.get());
    comms_[c.get()] = std::move(c);
  }
  return made;
}

namespace {
// A communicator's staging buffer size, name and algorithm setting: HCCL_BUFFSIZE, `name` and
// HCCL_ALGO unless `config` sets them. An algorithm setting the simulation cannot honour fails.
void applyConfig(const HcclCommConfig* config, uint64_t& cclBytes, std::string& name,
                 std::string& algo) {
  const char* env = std::getenv("HCCL_ALGO");
  algo = env ? env : "";
  std::string origin = "HCCL_ALGO=" + algo;
  if (config && config->hcclAlgo[0]) {
    algo.assign(config->hcclAlgo, strnlen(config->hcclAlgo, sizeof config->hcclAlgo));
    origin = "hcclAlgo \"" + algo + "\"";
  }
  parseAlgoSetting(algo, origin);
  if (!config) return;
  uint32_t magic = 0, version = 0;
  std::memcpy(&magic, config->reserved + sizeof(size_t), sizeof magic);
  std::memcpy(&version, config->reserved + sizeof(size_t) + sizeof magic, sizeof version);
  if (magic != HCCL_COMM_CONFIG_MAGIC_WORD || version == 0) {
    refuse(HCCL_E_PARA, "config was not set up by HcclCommConfigInit (wrong magic word)");
  }
  if (config->hcclBufferSize != HCCL_COMM_BUFFSIZE_CONFIG_NOT_SET) {
    if (config->hcclBufferSize == 0) refuse(HCCL_E_PARA, "hcclBufferSize is 0 MB");
    cclBytes = uint64_t{config->hcclBufferSize} * kMiB;
  }
  if (config->hcclCommName[0]) {
    name.assign(config->hcclCommName, strnlen(config->hcclCommName, sizeof config->hcclCommName));
  }
}
}  // namespace

HcclComm Collectives::initRootInfo(ServicePort& port, HostThread& t, uint32_t nRanks,
                                   const HcclRootInfo* rootInfo, uint32_t rank,
                                   const HcclCommConfig* config) {
  needPointer(rootInfo, "rootInfo");
  if (nRanks == 0) refuse(HCCL_E_PARA, "nRanks is 0");
  if (rank >= nRanks) {
    refuse(HCCL_E_PARA, "rank " + std::to_string(rank) + " is out of range for " +
                            std::to_string(nRanks) + " rank(s)");
  }
  RootInfoContents contents;
  std::memcpy(&contents, rootInfo->internal, sizeof contents);
  if (std::memcmp(contents.magic, kRootMagic, sizeof kRootMagic) != 0 || contents.version != 1) {
    refuse(HCCL_E_PARA, "rootInfo was not made by HcclGetRootInfo");
  }
  if (contents.pid != static_cast<int32_t>(getpid())) {
    refuse(HCCL_E_NOT_SUPPORT,
           "rootInfo comes from another process (" + std::to_string(contents.pid) +
               ") that does not share this machine: run the job's processes under `ascendsim "
               "exec --shared` (docs/multiprocess.md)");
  }
  uint64_t cclBytes = bufferSizeFromEnvironment() * kMiB;
  std::string name = "hccl_comm_" + std::to_string(contents.id);
  std::string algo;
  applyConfig(config, cclBytes, name, algo);
  return join(port, t, contents.id, nRanks, rank, port.currentDevice(t), cclBytes, name, algo);
}

HcclComm Collectives::initClusterInfo(ServicePort& port, HostThread& t, const char* clusterInfo,
                                      uint32_t rank, const HcclCommConfig* config) {
  const RankTable table = readRankTable(clusterInfo);
  const auto nRanks = static_cast<uint32_t>(table.ranks.size());
  if (rank >= nRanks) {
    refuse(HCCL_E_PARA, "rank " + std::to_string(rank) + " is not in the rank table (" +
                            std::to_string(nRanks) + " rank(s))");
  }
  // Server k of the table is server k of the simulated cluster (server 0: a single machine).
  const uint32_t count = port.deviceCount();
  std::vector<int32_t> devices(nRanks, -1);
  uint32_t machineServers = 0;
  for (uint32_t d = 0; d < count; ++d)
    machineServers = std::max(machineServers, port.deviceSpec(static_cast<int32_t>(d)).server + 1);
  for (uint32_t r = 0; r < nRanks; ++r) {
    const RankTable::Place& at = table.ranks[r];
    if (at.server >= machineServers) {
      refuse(HCCL_E_PARA,
             "the rank table puts rank " + std::to_string(r) + " on server " +
                 std::to_string(at.server) + " of its server_list, but the machine has " +
                 std::to_string(machineServers) + " server(s) (a cluster config gives several)");
    }
    for (uint32_t d = 0; d < count; ++d) {
      const spec::DeviceSpec& spec = port.deviceSpec(static_cast<int32_t>(d));
      if (spec.server == at.server && static_cast<int32_t>(spec.localId) == at.device)
        devices[r] = static_cast<int32_t>(d);
    }
    if (devices[r] < 0) {
      refuse(HCCL_E_PARA, "the rank table puts rank " + std::to_string(r) + " on device " +
                              std::to_string(at.device) + " of server " +
                              std::to_string(at.server) + ", which this machine does not have");
    }
  }
  const int32_t device = port.currentDevice(t);
  if (devices[rank] != device) {
    refuse(HCCL_E_PARA, "the rank table puts rank " + std::to_string(rank) + " on device " +
                            std::to_string(devices[rank]) +
                            ", but the calling thread's device is " + std::to_string(device));
  }
  // The ranks reading one table join one communicator; once it is made, the next ones to read
  // the same table make another.
  auto found = clusters_.find(table.identity);
  uint64_t id = 0;
  if (found != clusters_.end() && pending_.count(found->second)) {
    id = found->second;
  } else {
    id = nextRootId_++;
    clusters_[table.identity] = id;
    pending_[id].cluster = table.identity;
  }
  uint64_t cclBytes = bufferSizeFromEnvironment() * kMiB;
  std::string name = "hccl_world_group";
  std::string algo;
  applyConfig(config, cclBytes, name, algo);
  return join(port, t, id, nRanks, rank, device, cclBytes, name, algo);
}

HcclComm Collectives::join(ServicePort& port, HostThread& t, uint64_t id, uint32_t nRanks,
                           uint32_t rank, int32_t device, uint64_t cclBytes,
                           const std::string& name, const std::string& algo) {
  Pending& pd = pending_[id];
  if (pd.arrived.empty() && pd.comms.empty()) {
    pd.nRanks = nRanks;
    pd.cclBytes = cclBytes;
    pd.name = name;
    pd.algo = algo;
  }
  if (pd.nRanks != nRanks) {
    refuse(HCCL_E_PARA, "nRanks " + std::to_string(nRanks) + " differs from the " +
                            std::to_string(pd.nRanks) + " other ranks gave for this rootInfo");
  }
  if (!pd.comms.empty() || pd.arrived.count(rank)) {
    refuse(HCCL_E_PARA, "rank " + std::to_string(rank) + " has joined this communicator already");
  }
  if (pd.cclBytes != cclBytes) {
    refuse(HCCL_E_PARA, "the staging buffer size (" + std::to_string(cclBytes / kMiB) +
                            " MB) differs from the other ranks' (" +
                            std::to_string(pd.cclBytes / kMiB) + " MB)");
  }
  for (const auto& [other, arrival] : pd.arrived) {
    if (arrival.device == device) {
      refuse(HCCL_E_PARA, "rank " + std::to_string(rank) + " is on device " +
                              std::to_string(device) + ", as rank " + std::to_string(other) +
                              " is already: one rank per device");
    }
  }
  pd.arrived[rank] = {device, t.now};
  if (pd.arrived.size() == nRanks) {
    std::vector<int32_t> devices;
    for (const auto& [r, arrival] : pd.arrived) {
      devices.push_back(arrival.device);
      pd.readyAt = std::max(pd.readyAt, arrival.at);
    }
    try {
      pd.comms = make(port, devices, cclBytes, pd.name, pd.algo);
    } catch (const HcclFailure& f) {
      pd.failure = f.code;
      pd.failureMessage = f.message;
    }
    port.changed();
  } else {
    const bool joined = port.waitUntil(t, [&pd] { return !pd.comms.empty() || pd.failure != 0; });
    if (!joined) {
      std::vector<uint32_t> missing;
      for (uint32_t r = 0; r < nRanks; ++r) {
        if (!pd.arrived.count(r) && !pd.gaveUp.count(r)) missing.push_back(r);
      }
      pd.arrived.erase(rank);
      pd.gaveUp.insert(rank);
      if (pd.arrived.empty()) forget(id);
      // It would have waited HCCL_CONNECT_TIMEOUT (120 s by default) before giving up.
      t.now += static_cast<spec::Picoseconds>(
                   secondsFromEnvironment("HCCL_CONNECT_TIMEOUT", 120, 120, 7200)) *
               1000000000000;
      refuse(HCCL_E_TIMEOUT, "rank(s) " + rankList(missing) + " of " + std::to_string(nRanks) +
                                 " never joined the communicator, and no thread that could "
                                 "still join it is left (every other thread is blocked or gone)");
    }
  }
  t.now = std::max(t.now, pd.readyAt);
  const int32_t failure = pd.failure;
  const std::string failureMessage = pd.failureMessage;
  Comm* made = failure ? nullptr : pd.comms.at(rank);
  if (++pd.taken == nRanks) forget(id);
  if (failure) refuse(failure, failureMessage);
  return made;
}

HcclComm Collectives::createSubComm(ServicePort& port, HostThread& t, HcclComm parent,
                                    uint32_t rankNum, const uint32_t* rankIds, uint64_t subCommId,
                                    uint32_t subRank, const HcclCommConfig* config) {
  Comm& c = comm(parent);
  needPointer(rankIds, "rankIds");
  if (rankNum == 0 || rankNum > c.group->size()) {
    refuse(HCCL_E_PARA, "rankNum " + std::to_string(rankNum) + " is not 1.." +
                            std::to_string(c.group->size()) + " (the parent's ranks)");
  }
  if (subRank >= rankNum) {
    refuse(HCCL_E_PARA, "subCommRankId " + std::to_string(subRank) + " is out of range for " +
                            std::to_string(rankNum) + " rank(s)");
  }
  std::set<uint32_t> seen;
  for (uint32_t i = 0; i < rankNum; ++i) {
    checkRank(c, rankIds[i], "rankIds[i]");
    if (!seen.insert(rankIds[i]).second)
      refuse(HCCL_E_PARA, "rank " + std::to_string(rankIds[i]) + " is listed twice in rankIds");
  }
  if (rankIds[subRank] != c.rank) {
    refuse(HCCL_E_PARA, "rankIds[" + std::to_string(subRank) + "] is " +
                            std::to_string(rankIds[subRank]) + ", not the caller's rank " +
                            std::to_string(c.rank) + " in the parent communicator");
  }
  const std::pair<const Group*, uint64_t> key{c.group.get(), subCommId};
  auto found = subComms_.find(key);
  uint64_t id = 0;
  if (found != subComms_.end() && pending_.count(found->second)) {
    id = found->second;
  } else {
    id = nextRootId_++;
    subComms_[key] = id;
    pending_[id].sub = key;
  }
  uint64_t cclBytes = bufferSizeFromEnvironment() * kMiB;
  std::string name = c.group->name() + "_sub_" + std::to_string(subCommId);
  std::string algo;
  applyConfig(config, cclBytes, name, algo);
  return join(port, t, id, rankNum, subRank, c.device, cclBytes, name, algo);
}

void Collectives::forget(uint64_t id) {
  auto it = pending_.find(id);
  if (it == pending_.end()) return;
  if (!it->second.cluster.empty()) clusters_.erase(it->second.cluster);
  if (it->second.sub.first) subComms_.erase(it->second.sub);
  pending_.erase(it);
}

void Collectives::initAll(ServicePort& port, HostThread& t, uint32_t ndev, const int32_t* devices,
                          HcclComm* comms) {
  needPointer(devices, "devices");
  needPointer(comms, "comms");
  if (ndev == 0) refuse(HCCL_E_PARA, "ndev is 0");
  const uint32_t count = port.deviceCount();
  std::set<int32_t> seen;
  for (uint32_t i = 0; i < ndev; ++i) {
    if (devices[i] < 0 || static_cast<uint32_t>(devices[i]) >= count) {
      refuse(HCCL_E_PARA, "devices[" + std::to_string(i) + "] = " + std::to_string(devices[i]) +
                              " is no device of this machine (" + std::to_string(count) +
                              " device(s))");
    }
    if (!seen.insert(devices[i]).second) {
      refuse(HCCL_E_PARA, "device " + std::to_string(devices[i]) + " is listed twice");
    }
  }
  (void)t;
  uint64_t cclBytes = bufferSizeFromEnvironment() * kMiB;
  std::string name = "hccl_comm_all_" + std::to_string(nextGroup_), algo;
  applyConfig(nullptr, cclBytes, name, algo);
  ++nextGroup_;
  const std::vector<Comm*> made =
      make(port, std::vector<int32_t>(devices, devices + ndev), cclBytes, name, algo);
  for (uint32_t i = 0; i < ndev; ++i) comms[i] = made[i];
}

Comm& Collectives::comm(HcclComm handle) {
  needPointer(handle, "comm");
  auto it = comms_.find(static_cast<Comm*>(handle));
  if (it == comms_.end()) refuse(HCCL_E_PARA, "comm is no communicator (destroyed already?)");
  return *it->second;
}

void Collectives::destroy(ServicePort& port, HostThread& t, HcclComm handle) {
  Comm& c = comm(handle);
  for (Stream* helper : c.helpers) port.releaseStream(t, helper);
  std::shared_ptr<Group> group = c.group;
  comms_.erase(&c);
  if (--group->liveRanks > 0) return;
  // The last rank: the staging buffers go (once the tasks still queued on them have ended).
  for (uint32_t r = 0; r < group->size(); ++r) {
    port.release(group->rank(r).cclIn);
    port.release(group->rank(r).cclOut);
  }
}

int32_t Collectives::asyncError(HcclComm handle) {
  Comm& c = comm(handle);
  int32_t found = HCCL_SUCCESS;
  for (const auto& [raw, other] : comms_) {
    if (other->group != c.group) continue;
    for (const Stream* helper : other->helpers) {
      if (!helper || helper->failure == 0) continue;
      if (other.get() == &c) return HCCL_E_RUNTIME;
      found = HCCL_E_REMOTE;
    }
  }
  return found;
}

void Collectives::setDeterministic(int32_t process, int32_t value) {
  if (value < 0 || value > 2) {
    refuse(HCCL_E_PARA, "HCCL_DETERMINISTIC takes 0, 1 or 2, not " + std::to_string(value));
  }
  deterministic_[process] = value;
}

int32_t Collectives::deterministic(int32_t process) const {
  auto it = deterministic_.find(process);
  return it == deterministic_.end() ? 0 : it->second;
}

// ---------------------------------------------------------------- operations

Stream& Collectives::opStream(ServicePort& port, HostThread& t, Comm& c, aclrtStream stream) {
  needPointer(stream, "stream");
  Stream* s = nullptr;
  try {
    s = &port.stream(t, stream);
  } catch (const AclFailure& f) {
    refuse(HCCL_E_PARA, f.message);
  }
  if (s->device->id != c.device) {
    refuse(HCCL_E_PARA, "the stream is on device " + std::to_string(s->device->id) + " but rank " +
                            std::to_string(c.rank) + " of the communicator is on device " +
                            std::to_string(c.device));
  }
  return *s;
}

MemoryPlace Collectives::buffer(ServicePort& port, Comm& c, const void* p, uint64_t bytes,
                                const char* role) {
  needPointer(p, role);
  MemoryPlace place;
  try {
    place = port.place(p, std::max<uint64_t>(bytes, 1), role);
  } catch (const AclFailure& f) {
    refuse(HCCL_E_PARA, f.message);
  }
  if (!isDevice(place) || place.device != c.device) {
    refuse(HCCL_E_PARA, std::string(role) + " must be device memory of device " +
                            std::to_string(c.device) + " (rank " + std::to_string(c.rank) + ")");
  }
  return place;
}

uint64_t Collectives::nextCollective(Comm& c, const std::string& description) {
  const uint64_t seq = c.nextOp;
  const std::string& first = c.group->describe(seq, description);
  if (first != description) {
    refuse(HCCL_E_PARA, "rank " + std::to_string(c.rank) + " issued " + description +
                            " as collective #" + std::to_string(seq) +
                            " of its communicator, where another rank issued " + first +
                            ": every rank must issue the same operations in the same order");
  }
  c.nextOp++;
  return seq;
}

std::string Collectives::allReduce(ServicePort& port, HostThread& t, void* sendBuf, void* recvBuf,
                                   uint64_t count, int32_t dataType, int32_t op, HcclComm handle,
                                   aclrtStream stream) {
  Comm& c = comm(handle);
  checkCount(count, "count");
  if (count == 0) return "none";
  Stream& main = opStream(port, t, c, stream);
  const uint32_t element = reductionBuffers(sendBuf, recvBuf, dataType, op);
  const uint64_t bytes = times(count, element);
  const MemoryPlace send = buffer(port, c, sendBuf, bytes, "sendBuf");
  const MemoryPlace recv = buffer(port, c, recvBuf, bytes, "recvBuf");
  const uint64_t seq =
      nextCollective(c, "AllReduce(count " + std::to_string(count) + ", " + dataTypeName(dataType) +
                            ", " + reduceOpName(op) + ")");
  Steps steps(port, t, c, main, 0, seq, c.group->size());
  steps.setInlineReduce(inlineReducible(c.group->soc(), dataType, op));
  return withReduce(steps, hccl::allReduce(steps, send, recv, bytes, dataType, op));
}

std::string Collectives::reduceScatter(ServicePort& port, HostThread& t, void* sendBuf,
                                       void* recvBuf, uint64_t recvCount, int32_t dataType,
                                       int32_t op, HcclComm handle, aclrtStream stream) {
  Comm& c = comm(handle);
  checkCount(recvCount, "recvCount");
  if (recvCount == 0) return "none";
  Stream& main = opStream(port, t, c, stream);
  const uint32_t element = reductionBuffers(sendBuf, recvBuf, dataType, op);
  const uint64_t block = times(recvCount, element);
  const MemoryPlace send = buffer(port, c, sendBuf, times(block, c.group->size()), "sendBuf");
  const MemoryPlace recv = buffer(port, c, recvBuf, block, "recvBuf");
  const uint64_t seq =
      nextCollective(c, "ReduceScatter(recvCount " + std::to_string(recvCount) + ", " +
                            dataTypeName(dataType) + ", " + reduceOpName(op) + ")");
  Steps steps(port, t, c, main, 0, seq, c.group->size());
  steps.setInlineReduce(inlineReducible(c.group->soc(), dataType, op));
  return withReduce(steps,
                    hccl::reduceScatter(steps, send, recv, Blocks::uniform(c.group->size(), block),
                                        dataType, op));
}

std::string Collectives::reduceScatterV(ServicePort& port, HostThread& t, void* sendBuf,
                                        const uint64_t* sendCounts, const uint64_t* sendDispls,
                                        void* recvBuf, uint64_t recvCount, int32_t dataType,
                                        int32_t op, HcclComm handle, aclrtStream stream) {
  Comm& c = comm(handle);
  needPointer(sendCounts, "sendCounts");
  needPointer(sendDispls, "sendDispls");
  const uint32_t element = reducibleType(dataType, op);
  if (op == HCCL_REDUCE_PROD)
    refuse(HCCL_E_NOT_SUPPORT, "ReduceScatterV reduces by sum, max or min");
  const Blocks blocks = vBlocks(c, sendCounts, sendDispls, element, "sendCounts", "sendDispls");
  needOwnCount(c, recvCount, "recvCount", sendCounts, "sendCounts");
  if (blocks.largest() == 0) return "none";
  Stream& main = opStream(port, t, c, stream);
  reductionBuffers(sendBuf, recvBuf, dataType, op);
  const MemoryPlace send = buffer(port, c, sendBuf, blocksExtent(blocks), "sendBuf");
  const MemoryPlace recv = buffer(port, c, recvBuf, blocks.bytes[c.rank], "recvBuf");
  const uint64_t seq =
      nextCollective(c, "ReduceScatterV(sendCounts " + countsText(sendCounts, c) + ", sendDispls " +
                            countsText(sendDispls, c) + ", " + dataTypeName(dataType) + ", " +
                            reduceOpName(op) + ")");
  Steps steps(port, t, c, main, 0, seq, c.group->size());
  steps.setInlineReduce(inlineReducible(c.group->soc(), dataType, op));
  return withReduce(steps, hccl::reduceScatter(steps, send, recv, blocks, dataType, op));
}

std::string Collectives::allGather(ServicePort& port, HostThread& t, void* sendBuf, void* recvBuf,
                                   uint64_t sendCount, int32_t dataType, HcclComm handle,
                                   aclrtStream stream) {
  Comm& c = comm(handle);
  checkCount(sendCount, "sendCount");
  if (sendCount == 0) return "none";
  Stream& main = opStream(port, t, c, stream);
  needPointer(sendBuf, "sendBuf");
  needPointer(recvBuf, "recvBuf");
  const uint64_t block = times(sendCount, movableType(dataType));
  const MemoryPlace send = buffer(port, c, sendBuf, block, "sendBuf");
  const MemoryPlace recv = buffer(port, c, recvBuf, times(block, c.group->size()), "recvBuf");
  const uint64_t seq = nextCollective(
      c, "AllGather(sendCount " + std::to_string(sendCount) + ", " + dataTypeName(dataType) + ")");
  Steps steps(port, t, c, main, 0, seq, c.group->size());
  return hccl::allGather(steps, send, recv, Blocks::uniform(c.group->size(), block));
}

std::string Collectives::allGatherV(ServicePort& port, HostThread& t, void* sendBuf,
                                    uint64_t sendCount, void* recvBuf, const uint64_t* recvCounts,
                                    const uint64_t* recvDispls, int32_t dataType, HcclComm handle,
                                    aclrtStream stream) {
  Comm& c = comm(handle);
  needPointer(recvCounts, "recvCounts");
  needPointer(recvDispls, "recvDispls");
  const Blocks blocks =
      vBlocks(c, recvCounts, recvDispls, movableType(dataType), "recvCounts", "recvDispls");
  needOwnCount(c, sendCount, "sendCount", recvCounts, "recvCounts");
  if (blocks.largest() == 0) return "none";
  Stream& main = opStream(port, t, c, stream);
  needPointer(sendBuf, "sendBuf");
  needPointer(recvBuf, "recvBuf");
  const MemoryPlace send = buffer(port, c, sendBuf, blocks.bytes[c.rank], "sendBuf");
  const MemoryPlace recv = buffer(port, c, recvBuf, blocksExtent(blocks), "recvBuf");
  const uint64_t seq =
      nextCollective(c, "AllGatherV(recvCounts " + countsText(recvCounts, c) + ", recvDispls " +
                            countsText(recvDispls, c) + ", " + dataTypeName(dataType) + ")");
  Steps steps(port, t, c, main, 0, seq, c.group->size());
  return hccl::allGather(steps, send, recv, blocks);
}

std::string Collectives::broadcast(ServicePort& port, HostThread& t, void* buf, uint64_t count,
                                   int32_t dataType, uint32_t root, HcclComm handle,
                                   aclrtStream stream) {
  Comm& c = comm(handle);
  checkCount(count, "count");
  if (count == 0) return "none";
  Stream& main = opStream(port, t, c, stream);
  needPointer(buf, "buf");
  const uint64_t bytes = times(count, movableType(dataType));
  checkRank(c, root, "root");
  const MemoryPlace place = buffer(port, c, buf, bytes, "buf");
  const uint64_t seq =
      nextCollective(c, "Broadcast(count " + std::to_string(count) + ", " + dataTypeName(dataType) +
                            ", root " + std::to_string(root) + ")");
  Steps steps(port, t, c, main, 0, seq, c.group->size());
  return hccl::broadcast(steps, place, bytes, root);
}

std::string Collectives::reduce(ServicePort& port, HostThread& t, void* sendBuf, void* recvBuf,
                                uint64_t count, int32_t dataType, int32_t op, uint32_t root,
                                HcclComm handle, aclrtStream stream) {
  Comm& c = comm(handle);
  checkCount(count, "count");
  if (count == 0) return "none";
  Stream& main = opStream(port, t, c, stream);
  needPointer(sendBuf, "sendBuf");
  const uint32_t element = reducibleType(dataType, op);
  checkRank(c, root, "root");
  checkAligned(sendBuf, element, "sendBuf");
  const uint64_t bytes = times(count, element);
  const MemoryPlace send = buffer(port, c, sendBuf, bytes, "sendBuf");
  MemoryPlace recv = send;
  if (c.rank == root) {
    needPointer(recvBuf, "recvBuf");
    checkAligned(recvBuf, element, "recvBuf");
    recv = buffer(port, c, recvBuf, bytes, "recvBuf");
  }
  const uint64_t seq =
      nextCollective(c, "Reduce(count " + std::to_string(count) + ", " + dataTypeName(dataType) +
                            ", " + reduceOpName(op) + ", root " + std::to_string(root) + ")");
  Steps steps(port, t, c, main, 0, seq, c.group->size());
  steps.setInlineReduce(inlineReducible(c.group->soc(), dataType, op));
  return withReduce(steps, hccl::reduce(steps, send, recv, bytes, dataType, op, root));
}

std::string Collectives::allToAllV(ServicePort& port, HostThread& t, const void* sendBuf,
                                   const uint64_t* sendCounts, const uint64_t* sdispls,
                                   int32_t sendType, const void* recvBuf,
                                   const uint64_t* recvCounts, const uint64_t* rdispls,
                                   int32_t recvType, HcclComm handle, aclrtStream stream) {
  Comm& c = comm(handle);
  Stream& main = opStream(port, t, c, stream);
  needPointer(sendCounts, "sendCounts");
  needPointer(sdispls, "sdispls");
  needPointer(recvCounts, "recvCounts");
  needPointer(rdispls, "rdispls");
  const uint32_t sendSize = movableType(sendType), recvSize = movableType(recvType);
  const uint32_t p = c.group->size();
  needCountEntries(p, "sendCounts, sdispls, recvCounts and rdispls");
  std::vector<uint64_t> sendBytes(p), sendOffsets(p), recvBytes(p), recvOffsets(p);
  uint64_t sendExtent = 0, recvExtent = 0;
  for (uint32_t r = 0; r < p; ++r) {
    checkCount(sendCounts[r], "sendCounts[r]");
    checkCount(recvCounts[r], "recvCounts[r]");
    checkCount(sdispls[r], "sdispls[r]");
    checkCount(rdispls[r], "rdispls[r]");
    sendBytes[r] = sendCounts[r] * sendSize;
    sendOffsets[r] = sdispls[r] * sendSize;
    recvBytes[r] = recvCounts[r] * recvSize;
    recvOffsets[r] = rdispls[r] * recvSize;
    if (sendBytes[r]) sendExtent = std::max(sendExtent, sendOffsets[r] + sendBytes[r]);
    if (recvBytes[r]) recvExtent = std::max(recvExtent, recvOffsets[r] + recvBytes[r]);
    if (r != c.rank && (sendBytes[r] || recvBytes[r]) && !c.group->mesh()) {
      std::string why;
      const int32_t other = c.group->rank(r).device;
      if (!port.directPath(c.device, other, &why) && !port.networkPath(c.device, other)) {
        refuse(HCCL_E_NOT_SUPPORT, "ranks " + std::to_string(c.rank) + " and " + std::to_string(r) +
                                       " cannot exchange data: " + why);
      }
    }
  }
  if (sendBytes[c.rank] != recvBytes[c.rank]) {
    refuse(HCCL_E_PARA, "rank " + std::to_string(c.rank) + " sends itself " +
                            std::to_string(sendBytes[c.rank]) + " bytes but receives " +
                            std::to_string(recvBytes[c.rank]));
  }
  MemoryPlace send{}, recv{};
  if (sendExtent > 0) send = buffer(port, c, sendBuf, sendExtent, "sendBuf");
  if (recvExtent > 0) recv = buffer(port, c, recvBuf, recvExtent, "recvBuf");
  const uint64_t seq = nextCollective(c, "AlltoAll");
  // What each pair of ranks says it exchanges must agree.
  for (uint32_t r = 0; r < p; ++r) {
    if (r == c.rank) continue;
    const int64_t theirs = c.group->pairBytes(0, seq, c.rank, r, sendBytes[r], true);
    const int64_t sent = c.group->pairBytes(0, seq, r, c.rank, recvBytes[r], false);
    if ((theirs >= 0 && static_cast<uint64_t>(theirs) != sendBytes[r]) ||
        (sent >= 0 && static_cast<uint64_t>(sent) != recvBytes[r])) {
      refuse(HCCL_E_PARA, "ranks " + std::to_string(c.rank) + " and " + std::to_string(r) +
                              " disagree on the bytes they exchange (the rank that issued it "
                              "first waits for ever)");
    }
  }
  Steps steps(port, t, c, main, 0, seq, p);
  return hccl::allToAllV(steps, send, sendBytes, sendOffsets, recv, recvBytes, recvOffsets);
}

std::string Collectives::allToAll(ServicePort& port, HostThread& t, const void* sendBuf,
                                  uint64_t sendCount, int32_t sendType, const void* recvBuf,
                                  uint64_t recvCount, int32_t recvType, HcclComm handle,
                                  aclrtStream stream) {
  Comm& c = comm(handle);
  checkCount(sendCount, "sendCount");
  checkCount(recvCount, "recvCount");
  const uint32_t p = c.group->size();
  std::vector<uint64_t> sendCounts(p, sendCount), recvCounts(p, recvCount), sdispls(p), rdispls(p);
  for (uint32_t r = 0; r < p; ++r) {
    sdispls[r] = r * sendCount;
    rdispls[r] = r * recvCount;
  }
  return allToAllV(port, t, sendBuf, sendCounts.data(), sdispls.data(), sendType, recvBuf,
                   recvCounts.data(), rdispls.data(), recvType, handle, stream);
}

std::string Collectives::barrier(ServicePort& port, HostThread& t, HcclComm handle,
                                 aclrtStream stream) {
  Comm& c = comm(handle);
  Stream& main = opStream(port, t, c, stream);
  const uint64_t seq = nextCollective(c, "Barrier");
  Steps steps(port, t, c, main, 0, seq, c.group->size());
  return hccl::barrier(steps);
}

Collectives::Transfer Collectives::transfer(ServicePort& port, Comm& c, void* buf, uint64_t count,
                                            int32_t dataType, uint32_t peer, bool sending) {
  checkCount(count, "count");
  needPointer(buf, sending ? "sendBuf" : "recvBuf");
  Transfer x;
  x.bytes = times(count, movableType(dataType));
  x.peer = peer;
  x.sending = sending;
  checkRank(c, peer, sending ? "destRank" : "srcRank");
  if (peer == c.rank) {
    refuse(HCCL_E_PARA,
           std::string(sending ? "destRank is the sender" : "srcRank is the receiver") + " itself");
  }
  std::string why;
  const int32_t other = c.group->rank(peer).device;
  if (!port.directPath(c.device, other, &why) && !port.networkPath(c.device, other))
    refuse(HCCL_E_NOT_SUPPORT, "ranks cannot exchange data: " + why);
  if (x.bytes > 0) x.place = buffer(port, c, buf, x.bytes, sending ? "sendBuf" : "recvBuf");
  return x;
}

std::pair<uint64_t, uint64_t> Collectives::pairSlot(Comm& c, const Transfer& x) {
  const uint32_t p = c.group->size();
  const uint32_t from = x.sending ? c.rank : x.peer, to = x.sending ? x.peer : c.rank;
  const uint64_t space = 1 + uint64_t{from} * p + to;
  uint64_t& counter = x.sending ? c.sends[x.peer] : c.recvs[x.peer];
  const int64_t theirs = c.group->pairBytes(space, counter, from, to, x.bytes, x.sending);
  if (theirs >= 0 && static_cast<uint64_t>(theirs) != x.bytes) {
    const uint64_t sent = x.sending ? x.bytes : static_cast<uint64_t>(theirs);
    const uint64_t taken = x.sending ? static_cast<uint64_t>(theirs) : x.bytes;
    refuse(HCCL_E_PARA, "rank " + std::to_string(from) + " sends " + std::to_string(sent) +
                            " bytes to rank " + std::to_string(to) + ", which receives " +
                            std::to_string(taken) + " in the matching call");
  }
  return {space, counter++};
}

void Collectives::send(ServicePort& port, HostThread& t, void* buf, uint64_t count,
                       int32_t dataType, uint32_t peer, HcclComm handle, aclrtStream stream) {
  Comm& c = comm(handle);
  Stream& main = opStream(port, t, c, stream);
  const Transfer x = transfer(port, c, buf, count, dataType, peer, true);
  if (x.bytes == 0) return;
  const auto [space, seq] = pairSlot(c, x);
  Steps steps(port, t, c, main, space, seq, 2);
  hccl::send(steps, main, x.place, x.bytes, peer);
}

void Collectives::recv(ServicePort& port, HostThread& t, void* buf, uint64_t count,
                       int32_t dataType, uint32_t peer, HcclComm handle, aclrtStream stream) {
  Comm& c = comm(handle);
  Stream& main = opStream(port, t, c, stream);
  const Transfer x = transfer(port, c, buf, count, dataType, peer, false);
  if (x.bytes == 0) return;
  const auto [space, seq] = pairSlot(c, x);
  Steps steps(port, t, c, main, space, seq, 2);
  hccl::recv(steps, main, x.place, x.bytes, peer);
}

void Collectives::batchSendRecv(ServicePort& port, HostThread& t, const HcclSendRecvItem* items,
                                uint32_t itemNum, HcclComm handle, aclrtStream stream) {
  Comm& c = comm(handle);
  needPointer(items, "sendRecvInfo");
  Stream& main = opStream(port, t, c, stream);
  std::vector<Transfer> transfers;
  for (uint32_t i = 0; i < itemNum; ++i) {
    int32_t type = 0, dataType = 0;
    std::memcpy(&type, &items[i].sendRecvType, sizeof type);
    std::memcpy(&dataType, &items[i].dataType, sizeof dataType);
    if (type != HCCL_SEND && type != HCCL_RECV) {
      refuse(HCCL_E_PARA, "item " + std::to_string(i) + " is neither HCCL_SEND nor HCCL_RECV (" +
                              std::to_string(type) + ")");
    }
    const Transfer x = transfer(port, c, items[i].buf, items[i].count, dataType,
                                items[i].remoteRank, type == HCCL_SEND);
    if (x.bytes > 0) transfers.push_back(x);
  }
  if (transfers.empty()) return;
  // The rank's own signals (its helper streams starting and ending), in a space of its own.
  Steps local(port, t, c, main, UINT64_MAX - c.rank, c.batches++, 1);
  local.fork();
  // Sends on the helper streams, receives on the rank's stream: a send never waits behind a
  // receive of its own rank, so any pattern the peers' calls match completes.
  for (bool sending : {true, false}) {
    for (const Transfer& x : transfers) {
      if (x.sending != sending) continue;
      const auto [space, seq] = pairSlot(c, x);
      Steps steps(port, t, c, main, space, seq, 2);
      if (sending) {
        hccl::send(steps, *c.helpers[x.peer], x.place, x.bytes, x.peer);
      } else {
        hccl::recv(steps, main, x.place, x.bytes, x.peer);
      }
    }
  }
  local.join();
}

std::string Collectives::allToAllVC(ServicePort& port, HostThread& t, const void* sendBuf,
                                    const uint64_t* matrix, int32_t sendType, const void* recvBuf,
                                    int32_t recvType, HcclComm handle, aclrtStream stream) {
  Comm& c = comm(handle);
  needPointer(matrix, "sendCountMatrix");
  const uint32_t p = c.group->size(), me = c.rank;
  needCountEntries(uint64_t{p} * p, "sendCountMatrix");
  std::vector<uint64_t> sendCounts(p), sdispls(p), recvCounts(p), rdispls(p);
  uint64_t sent = 0, received = 0;
  for (uint32_t r = 0; r < p; ++r) {
    sendCounts[r] = matrix[uint64_t{me} * p + r];
    recvCounts[r] = matrix[uint64_t{r} * p + me];
    checkCount(sendCounts[r], "sendCountMatrix[rank][r]");
    checkCount(recvCounts[r], "sendCountMatrix[r][rank]");
    sdispls[r] = sent;
    rdispls[r] = received;
    sent += sendCounts[r];
    received += recvCounts[r];
  }
  return allToAllV(port, t, sendBuf, sendCounts.data(), sdispls.data(), sendType, recvBuf,
                   recvCounts.data(), rdispls.data(), recvType, handle, stream);
}

std::string Collectives::scatter(ServicePort& port, HostThread& t, void* sendBuf, void* recvBuf,
                                 uint64_t recvCount, int32_t dataType, uint32_t root,
                                 HcclComm handle, aclrtStream stream) {
  Comm& c = comm(handle);
  checkCount(recvCount, "recvCount");
  if (recvCount == 0) return "none";
  Stream& main = opStream(port, t, c, stream);
  needPointer(recvBuf, "recvBuf");
  const uint64_t block = times(recvCount, movableType(dataType));
  checkRank(c, root, "root");
  const MemoryPlace recv = buffer(port, c, recvBuf, block, "recvBuf");
  MemoryPlace send = recv;
  if (c.rank == root) {
    needPointer(sendBuf, "sendBuf");
    send = buffer(port, c, sendBuf, times(block, c.group->size()), "sendBuf");
  } else if (!c.group->mesh()) {
    std::string why;
    const int32_t rootDevice = c.group->rank(root).device;
    if (!port.directPath(c.device, rootDevice, &why) && !port.networkPath(c.device, rootDevice))
      refuse(HCCL_E_NOT_SUPPORT, "the rank cannot read from the root's device: " + why);
  }
  const uint64_t seq =
      nextCollective(c, "Scatter(recvCount " + std::to_string(recvCount) + ", " +
                            dataTypeName(dataType) + ", root " + std::to_string(root) + ")");
  Steps steps(port, t, c, main, 0, seq, c.group->size());
  return hccl::scatter(steps, send, recv, block, root);
}

const char* errorString(int32_t code) {
  switch (code) {
    case HCCL_SUCCESS: return "success";
    case HCCL_E_PARA: return "invalid parameter";
    case HCCL_E_PTR: return "NULL pointer";
    case HCCL_E_MEMORY: return "memory error";
    case HCCL_E_INTERNAL: return "internal error";
    case HCCL_E_NOT_SUPPORT: return "feature not supported";
    case HCCL_E_NOT_FOUND: return "resource not found";
    case HCCL_E_UNAVAIL: return "resource unavailable";
    case HCCL_E_SYSCALL: return "system call failed";
    case HCCL_E_TIMEOUT: return "timeout";
    case HCCL_E_OPEN_FILE_FAILURE: return "cannot open file";
    case HCCL_E_TCP_CONNECT: return "TCP connection failed";
    case HCCL_E_ROCE_CONNECT: return "RoCE connection failed";
    case HCCL_E_TCP_TRANSFER: return "TCP transfer failed";
    case HCCL_E_ROCE_TRANSFER: return "RoCE transfer failed";
    case HCCL_E_RUNTIME: return "runtime call failed";
    case HCCL_E_DRV: return "driver call failed";
    case HCCL_E_PROFILING: return "profiling call failed";
    case HCCL_E_CCE: return "CCE call failed";
    case HCCL_E_NETWORK: return "network call failed";
    case HCCL_E_AGAIN: return "try again";
    case HCCL_E_REMOTE: return "remote error (error CQE)";
    case HCCL_E_SUSPENDING: return "communicator suspending";
    case HCCL_E_OPRETRY_FAIL: return "operation retry failed";
    case HCCL_E_OOM: return "out of memory";
    case HCCL_E_IN_STATUS: return "error reported in the status";
    default: return "unknown error";
  }
}

ReceivedCounts::ReceivedCounts(uint64_t entries) : previous_(receivedCountEntries) {
  receivedCountEntries = entries;
}

ReceivedCounts::~ReceivedCounts() {
  receivedCountEntries = previous_;
}

uint64_t ReceivedCounts::entries() {
  return receivedCountEntries;
}

}  // namespace ascendsim::runtime::hccl
