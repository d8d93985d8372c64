#pragma once
// The command rules of one DRAM standard: what sets it apart from the others beyond the figures
// of its preset (organisation and timings live in configs/memory/*.yaml). Each standard is one
// file in models/dram/standards/ that registers its rules by the name `standard:` takes; the
// controller and the command bus read the rules and never ask which standard they serve.

#include <string>

#include "spec/kind_registry.h"

namespace ascendsim::models {

struct DramStandardRules {
  // The memory's family, as the runtime reports it (aclrtGetMemInfo's HBM or DDR attributes).
  enum class Family { Hbm, Ddr, Lpddr } family = Family::Ddr;
  // Cycles one command holds its bus.
  int act = 1, pre = 1, ref = 1, column = 1;
  // RD/WR travel on a column bus of their own, apart from ACT/PRE/REF (HBM).
  bool separateColumnBus = false;
  // The (pseudo-)channels of one channel share its command bus (HBM pseudo-channels); otherwise
  // each has its own (DDR5 sub-channels).
  bool pseudoChannelsShareCommandBus = false;
  // Ranks are the stack ids of one pseudo-channel and share its activate window (HBM3).
  bool ranksAreStackIds = false;
  // Time slots per clock of the row command bus, the unit of act, pre and ref: 2 where row
  // commands take half clocks (HBM3: ACT 1.5 CK, PRE and REF 0.5 CK, JESD238).
  int rowSlotsPerClock = 1;
};

using DramStandardRegistration = kinds::Registration<DramStandardRules>;

// The rules of the standard named `name` (as validated by the configuration).
const DramStandardRules& dramStandard(const std::string& name);

}  // namespace ascendsim::models
