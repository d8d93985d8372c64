// HBM3 (JESD238): row and column command interfaces per channel as HBM2, the row commands
// clocked on both edges (ACT takes 1.5 CK, PRE and REF 0.5 CK); the two stack ids of a
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
    // Row commands in half clocks (JESD238: ACT 1.5 CK, PRE and REF 0.5 CK on the row bus).
    {DramStandardRules::Family::Hbm, 3, 1, 1, 1, true, true, true, 2}};
}
}  // namespace ascendsim::models
