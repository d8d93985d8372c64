// HBM3 (JESD238): row and column command interfaces per channel as HBM2; the two stack ids of a
// pseudo-channel (modelled as its ranks) share its activate window (tRRD_S, tFAW, tWTR_S).
#include "models/dram/dram_standard.h"

namespace ascendsim::models {
namespace {
const DramStandardRegistration kHbm3{
    {"dram-standard",
     "HBM3",
     "JEDEC HBM3 (JESD238): stack ids (ranks) share a pseudo-channel's activate window",
     {},
     {}},
    {DramStandardRules::Family::Hbm, 2, 1, 1, 1, true, true, true}};
}
}  // namespace ascendsim::models
