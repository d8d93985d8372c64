// DDR4 (JESD79-4): one command bus per channel, every command one cycle.
#include "models/dram/dram_standard.h"

namespace ascendsim::models {
namespace {
const DramStandardRegistration kDdr4{
    {"dram-standard",
     "DDR4",
     "JEDEC DDR4 (JESD79-4): one command bus per channel, one-cycle commands",
     {},
     {}},
    {DramStandardRules::Family::Ddr, 1, 1, 1, 1, false, false, false}};
}
}  // namespace ascendsim::models
