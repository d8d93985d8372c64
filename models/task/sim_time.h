#pragma once
// Simulated time as the models count it (picoseconds) and as SystemC does.

#include <systemc>

#include "spec/units.h"

namespace ascendsim::models {

spec::Picoseconds simNow();
sc_core::sc_time toScTime(spec::Picoseconds ps);

}  // namespace ascendsim::models
