// DDR5 (JESD79-5): each 32-bit sub-channel (a pseudo-channel here) has its own command bus; ACT,
// RD and WR are two-cycle commands, PRE and REF one.
#include "models/dram/dram_standard.h"

namespace ascendsim::models {
namespace {
const DramStandardRegistration kDdr5{
    {"dram-standard",
     "DDR5",
     "JEDEC DDR5 (JESD79-5): a command bus per sub-channel, two-cycle ACT/RD/WR",
     {},
     {}},
    {DramStandardRules::Family::Ddr, 2, 1, 1, 2, false, false, false}};
}
}  // namespace ascendsim::models
