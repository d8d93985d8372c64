#include "models/dram/dram_standard.h"

namespace ascendsim::models {

const DramStandardRules& dramStandard(const std::string& name) {
  return kinds::Registry<DramStandardRules>::instance().at("DRAM standard", name);
}

}  // namespace ascendsim::models
