#include "runtime/hccl/algo_setting.h"

#include <set>
#include <vector>

#include "hccl/hccl_types.h"
#include "runtime/hccl/group.h"

namespace ascendsim::runtime::hccl {
namespace {

std::vector<std::string> split(const std::string& text, char at) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t end = text.find(at, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

const std::set<std::string> kOperations = {"allgather", "reducescatter", "allreduce", "broadcast",
                                           "reduce",    "scatter",       "alltoall"};
const std::set<std::string> kLevel1 = {"ring", "H-D_R", "NHR",      "NHR_V1",
                                       "NB",   "AHC",   "pipeline", "pairwise"};
const std::set<std::string> kLevel2 = {"ring", "H-D_R", "NHR", "NB", "pipeline"};

// One operation's "level0:NA;level1:ring;level2:H-D_R".
std::map<std::string, std::string> parseLevels(const std::string& text, const std::string& op,
                                               const std::string& origin) {
  const std::string where = origin + (op.empty() ? "" : " (" + op + ")");
  std::map<std::string, std::string> levels;
  for (const std::string& item : split(text, ';')) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos) {
      refuse(HCCL_E_PARA, where + ": '" + item + "' is not LEVEL:ALGORITHM (e.g. level1:ring)");
    }
    const std::string level = item.substr(0, colon), algo = item.substr(colon + 1);
    if (level != "level0" && level != "level1" && level != "level2")
      refuse(HCCL_E_PARA, where + ": '" + level + "' is not level0, level1 or level2");
    if (!levels.emplace(level, algo).second)
      refuse(HCCL_E_PARA, where + ": " + level + " is given twice");
    if (level == "level0" && algo != "NA")
      refuse(HCCL_E_PARA, where + ": level0 (inside a server) takes only NA, not '" + algo + "'");
    const std::set<std::string>& known = level == "level2" ? kLevel2 : kLevel1;
    if (level != "level0" && !known.count(algo)) {
      std::string names;
      for (const std::string& n : known) names += (names.empty() ? "" : ", ") + n;
      refuse(HCCL_E_PARA,
             where + ": " + level + " algorithm '" + algo + "' is not one of " + names);
    }
    if (level == "level1" && algo == "pairwise" && !op.empty() && op != "alltoall")
      refuse(HCCL_E_PARA, where + ": pairwise is for alltoall only");
  }
  return levels;
}

}  // namespace

AlgoSetting parseAlgoSetting(const std::string& text, const std::string& origin) {
  AlgoSetting setting;
  if (text.empty()) return setting;
  for (const std::string& part : split(text, '/')) {
    std::string op, levels = part;
    const size_t eq = part.find('=');
    if (eq != std::string::npos) {
      op = part.substr(0, eq);
      levels = part.substr(eq + 1);
      if (!kOperations.count(op)) {
        refuse(HCCL_E_PARA, origin + ": '" + op +
                                "' is not an operation HCCL_ALGO names (allgather, reducescatter, "
                                "allreduce, broadcast, reduce, scatter, alltoall)");
      }
    } else if (text.find('/') != std::string::npos || text.find('=') != std::string::npos) {
      refuse(HCCL_E_PARA, origin + ": '" + part + "' names no operation (OP=level0:NA;level1:...)");
    }
    if (!setting.levels.emplace(op, parseLevels(levels, op, origin)).second)
      refuse(HCCL_E_PARA, origin + ": " + (op.empty() ? "the setting" : op) + " is given twice");
  }
  for (const auto& [op, levels] : setting.levels) {
    const std::string where = origin + (op.empty() ? "" : " (" + op + ")");
    if (levels.count("level2")) {
      refuse(HCCL_E_NOT_SUPPORT, where +
                                     ": level2 chooses the algorithm between super pods (Atlas "
                                     "A3, 950), and no super pod is simulated");
    }
    auto l1 = levels.find("level1");
    if (l1 != levels.end() && l1->second != "ring" && l1->second != "H-D_R") {
      refuse(HCCL_E_NOT_SUPPORT, where + ": level1 " + l1->second +
                                     " is HCCL's, but the simulation runs only ring between "
                                     "servers (and H-D_R on two servers)");
    }
  }
  return setting;
}

}  // namespace ascendsim::runtime::hccl
