#pragma once
// HCCL_ALGO (or HcclCommConfig.hcclAlgo, which wins over it): the algorithms HCCL runs between
// servers, in its documented syntax (hicann/hccl docs/zh/user_guide/hccl_env/HCCL_ALGO.md):
// "level0:NA;level1:<algo>;level2:<algo>" for every operation, or per operation
// "<op>=level0:NA;level1:<algo>/<op>=...", op one of allgather, reducescatter, allreduce,
// broadcast, reduce, scatter, alltoall. level0 (inside a server) takes only NA; level1 (between
// servers) ring, H-D_R, NHR, NHR_V1, NB, AHC, pipeline or pairwise (alltoall only); level2 (between
// super pods) ring, H-D_R, NHR, NB or pipeline.

#include <map>
#include <string>

namespace ascendsim::runtime::hccl {

// What the setting asks of each operation it names ("" for every operation), level by level.
struct AlgoSetting {
  std::map<std::string, std::map<std::string, std::string>> levels;  // op -> level -> algo
};

// Parses `text`; fails (HcclFailure) with HCCL_E_PARA when it is not in HCCL_ALGO's syntax or
// names no algorithm HCCL has, and with HCCL_E_NOT_SUPPORT when it asks for an algorithm the
// simulation does not run: between servers it runs ring (and H-D_R on two servers, where
// halving-doubling is the ring's one exchange of halves), no level2 (no super pods). `origin`
// names where the text came from, for the message.
AlgoSetting parseAlgoSetting(const std::string& text, const std::string& origin);

}  // namespace ascendsim::runtime::hccl
