#pragma once
// How long a copy or memset occupies a DMA channel. Implementations are chosen by name.

#include <memory>
#include <string>

#include "models/sched/task.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

class TransferTiming {
 public:
  virtual ~TransferTiming() = default;
  // Time from the start of the transfer on `device`'s DMA channel to its last byte written.
  virtual Picoseconds duration(int device, const Task& task) const = 0;
  virtual const char* name() const = 0;
};

// Registered implementations: "fixed-rate".
std::unique_ptr<TransferTiming> makeTransferTiming(const std::string& name, const spec::SystemSpec& sys);

}  // namespace ascendsim::models
