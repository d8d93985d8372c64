// HBM2E (JESD235C/D): HBM2's command interface at higher pin rates.
#include "models/dram/dram_standard.h"

namespace ascendsim::models {
namespace {
const DramStandardRegistration kHbm2e{
    {"dram-standard",
     "HBM2E",
     "JEDEC HBM2E (JESD235D): HBM2's command interface at up to 3.6 Gb/s",
     {},
     {}},
    {DramStandardRules::Family::Hbm, 2, 1, 1, 1, true, true, false}};
}
}  // namespace ascendsim::models
