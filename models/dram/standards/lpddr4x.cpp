// LPDDR4X (JESD209-4): ACT-1 + ACT-2 and RD/WR + CAS-2 are two 2-cycle commands each (4 cycles);
// PRE and REF are one 2-cycle command.
#include "models/dram/dram_standard.h"

namespace ascendsim::models {
namespace {
const DramStandardRegistration kLpddr4x{
    {"dram-standard",
     "LPDDR4X",
     "JEDEC LPDDR4X (JESD209-4): multi-cycle two-part commands on one bus",
     {},
     {}},
    {DramStandardRules::Family::Lpddr, 4, 2, 2, 4, false, false, false}};
}
}  // namespace ascendsim::models
