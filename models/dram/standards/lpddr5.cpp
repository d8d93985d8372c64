// LPDDR5 (JESD209-5B): one command/address bus per channel at CK, double data rate, so every
// command takes one CK; an activate is two commands (ACT-1, ACT-2) and a read or write is a CAS
// command followed by RD/WR (tCAS 0: the next cycle), so both hold the bus for two cycles; PRE
// and REF one. Data moves on WCK at four times CK: 8 transfers per command clock. (As Ramulator
// 2's LPDDR5 description has it.)
#include "models/dram/dram_standard.h"

namespace ascendsim::models {
namespace {
const DramStandardRegistration kLpddr5{
    {"dram-standard",
     "LPDDR5",
     "JEDEC LPDDR5 (JESD209-5B): two-command ACT and CAS+RD/WR on a DDR command bus; data on WCK "
     "at 4 x CK",
     {},
     {{"transfers_per_clock", 8}}},
    {DramStandardRules::Family::Lpddr, 2, 1, 1, 2, false, false, false}};
}
}  // namespace ascendsim::models
