#include "spec/kind_registry.h"

#include <cstdio>
#include <cstdlib>

namespace ascendsim::kinds {
namespace {

std::map<std::pair<std::string, std::string>, KindInfo>& catalogue() {
  static std::map<std::pair<std::string, std::string>, KindInfo> kinds;
  return kinds;
}

}  // namespace

void addToCatalogue(const KindInfo& info) {
  if (!catalogue().emplace(std::make_pair(info.family, info.name), info).second) {
    std::fprintf(stderr, "ascendsim: the %s '%s' is registered twice\n", info.family.c_str(),
                 info.name.c_str());
    std::abort();
  }
}

const KindInfo* findKind(const std::string& family, const std::string& name) {
  auto it = catalogue().find({family, name});
  return it == catalogue().end() ? nullptr : &it->second;
}

std::vector<std::string> kindNames(const std::string& family) {
  std::vector<std::string> names;
  for (const auto& [key, info] : catalogue()) {
    if (key.first == family) names.push_back(key.second);
  }
  return names;
}

std::vector<KindInfo> allKinds() {
  std::vector<KindInfo> all;
  for (const auto& [key, info] : catalogue()) all.push_back(info);
  return all;
}

const std::map<std::string, std::string>& familyDescriptions() {
  static const std::map<std::string, std::string> families{
      {"dram-standard",
       "memory `standard:`: command rules of a JEDEC standard (its figures live in a preset)"},
      {"dram-model", "memory `model:`: how requests are scheduled through banks and buses"},
      {"memory-timing", "memory `timing:`: how copies and kernels are charged for memory"},
      {"dma-model", "`dma.model`: how a device's DMA engines time a copy"},
      {"device-link", "`device_links[].model`: a point-to-point link between devices"},
      {"nic", "`cluster.nic.model`: the network card beside each NPU of a cluster"},
      {"network-switch", "`cluster.switch.model`: the switch joining a cluster's NICs"},
      {"trace-format",
       "`trace.format`, `--trace-format` or ASCENDSIM_TRACE_FORMAT: how a run's timeline is "
       "written"},
      {"report-format",
       "`trace.report_format`, `--report-format` or ASCENDSIM_REPORT_FORMAT (else the report "
       "file's extension): how a run's report is written"},
      {"subcommand", "`ascendsim COMMAND`: a command of the ascendsim tool"},
  };
  return families;
}

}  // namespace ascendsim::kinds
