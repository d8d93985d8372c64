#include "models/task/sim_time.h"

namespace ascendsim::models {

spec::Picoseconds simNow() {
  return static_cast<spec::Picoseconds>(sc_core::sc_time_stamp().value());
}

sc_core::sc_time toScTime(spec::Picoseconds ps) {
  return sc_core::sc_time(static_cast<double>(ps), sc_core::SC_PS);
}

}  // namespace ascendsim::models
