// HBM2 (JESD235): a row command bus (ACT two cycles, PRE, REF) and a column command bus (RD, WR)
// per channel, shared by its two pseudo-channels in pseudo-channel mode.
#include "models/dram/dram_standard.h"

namespace ascendsim::models {
namespace {
const DramStandardRegistration kHbm2{
    {"dram-standard",
     "HBM2",
     "JEDEC HBM2 (JESD235): separate row and column command buses per channel",
     {},
     {}},
    {DramStandardRules::Family::Hbm, 2, 1, 1, 1, true, true, false}};
}
}  // namespace ascendsim::models
