#include "tools/collectives/collective.h"

namespace ascendsim::tools {
namespace {

struct Named {
  const char* name;
  const char* call;
  Collective::Kind kind;
};

const Named kCollectives[] = {
    {"all_reduce", "HcclAllReduce", Collective::Kind::AllReduce},
    {"all_gather", "HcclAllGather", Collective::Kind::AllGather},
    {"reduce_scatter", "HcclReduceScatter", Collective::Kind::ReduceScatter},
    {"broadcast", "HcclBroadcast", Collective::Kind::Broadcast},
    {"reduce", "HcclReduce", Collective::Kind::Reduce},
    {"alltoall", "HcclAlltoAll", Collective::Kind::AlltoAll},
    {"scatter", "HcclScatter", Collective::Kind::Scatter},
};

// hccl_test's alltoall rounds its count up to a multiple of ranks x this many elements (its
// `granularity`, 128 by default) once the count reaches that, else to a multiple of the ranks.
constexpr uint64_t kAlltoAllGranularity = 128;

uint64_t ceilDiv(uint64_t a, uint64_t b) {
  return (a + b - 1) / b;
}

}  // namespace

std::optional<Collective> Collective::named(const std::string& name) {
  for (const Named& c : kCollectives) {
    if (name == c.name) return Collective(c.kind);
  }
  return std::nullopt;
}

std::vector<std::string> Collective::names() {
  std::vector<std::string> out;
  for (const Named& c : kCollectives) out.push_back(c.name);
  return out;
}

std::string Collective::name() const {
  for (const Named& c : kCollectives) {
    if (c.kind == kind_) return c.name;
  }
  return "";
}

std::string Collective::hcclCall() const {
  for (const Named& c : kCollectives) {
    if (c.kind == kind_) return c.call;
  }
  return "";
}

bool Collective::reduces() const {
  return kind_ == Kind::AllReduce || kind_ == Kind::ReduceScatter || kind_ == Kind::Reduce;
}

bool Collective::hasRoot() const {
  return kind_ == Kind::Broadcast || kind_ == Kind::Reduce || kind_ == Kind::Scatter;
}

bool Collective::alignsToRanks() const {
  return kind_ == Kind::AllGather || kind_ == Kind::ReduceScatter || kind_ == Kind::AlltoAll ||
         kind_ == Kind::Scatter;
}

CollectiveLayout Collective::layout(uint64_t dataSize, uint32_t elementSize, uint32_t ranks) const {
  const uint64_t elements = ceilDiv(dataSize, elementSize);  // hccl_test rounds the count up
  CollectiveLayout l;
  switch (kind_) {
    case Kind::AllReduce:
    case Kind::Reduce:
    case Kind::Broadcast:
      l.count = elements;
      l.blockBytes = l.count * elementSize;
      l.sendBytes = l.blockBytes;
      l.recvBytes = kind_ == Kind::Broadcast ? 0 : l.blockBytes;
      l.algBytes = l.blockBytes;
      break;
    case Kind::AllGather:
    case Kind::ReduceScatter:
    case Kind::Scatter: {
      // The data size is the whole (gathered or scattered) buffer; each rank's block is its share.
      l.count = ceilDiv(elements, ranks);
      l.blockBytes = l.count * elementSize;
      const uint64_t whole = l.blockBytes * ranks;
      l.sendBytes = kind_ == Kind::AllGather ? l.blockBytes : whole;
      l.recvBytes = kind_ == Kind::AllGather ? whole : l.blockBytes;
      l.algBytes = whole;
      break;
    }
    case Kind::AlltoAll: {
      const uint64_t align =
          elements >= ranks * kAlltoAllGranularity ? ranks * kAlltoAllGranularity : ranks;
      const uint64_t total = ceilDiv(elements, align) * align;
      l.count = total / ranks;
      l.blockBytes = l.count * elementSize;
      l.sendBytes = total * elementSize;
      l.recvBytes = l.sendBytes;
      l.algBytes = l.sendBytes;
      break;
    }
  }
  return l;
}

double Collective::busFactor(uint32_t ranks) const {
  const double n = ranks;
  switch (kind_) {
    case Kind::AllReduce: return 2 * (n - 1) / n;
    case Kind::AllGather:
    case Kind::ReduceScatter:
    case Kind::AlltoAll:
    case Kind::Scatter: return (n - 1) / n;
    case Kind::Broadcast:
    case Kind::Reduce: return 1;
  }
  return 1;
}

HcclResult Collective::issue(const CollectiveCall& c) const {
  switch (kind_) {
    case Kind::AllReduce:
      return HcclAllReduce(c.send, c.recv, c.count, c.dataType, c.op, c.comm, c.stream);
    case Kind::AllGather:
      return HcclAllGather(c.send, c.recv, c.count, c.dataType, c.comm, c.stream);
    case Kind::ReduceScatter:
      return HcclReduceScatter(c.send, c.recv, c.count, c.dataType, c.op, c.comm, c.stream);
    case Kind::Broadcast:
      return HcclBroadcast(c.send, c.count, c.dataType, c.root, c.comm, c.stream);
    case Kind::Reduce:
      return HcclReduce(c.send, c.recv, c.count, c.dataType, c.op, c.root, c.comm, c.stream);
    case Kind::AlltoAll:
      return HcclAlltoAll(c.send, c.count, c.dataType, c.recv, c.count, c.dataType, c.comm,
                          c.stream);
    case Kind::Scatter:
      return HcclScatter(c.send, c.recv, c.count, c.dataType, c.root, c.comm, c.stream);
  }
  return HCCL_E_NOT_SUPPORT;
}

}  // namespace ascendsim::tools
