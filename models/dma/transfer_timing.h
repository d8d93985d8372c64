#pragma once
// How a DMA channel moves a copy's or memset's bytes: chunk by chunk, each chunk reserving the
// links and memories it crosses. Implementations are chosen by name (`dma.model`).

#include <memory>
#include <string>

#include "models/sched/task.h"
#include "spec/system_spec.h"

namespace ascendsim::models {

struct ChunkTiming {
  uint64_t bytes = 0;           // payload this chunk moved
  Picoseconds nextIssue = 0;    // when the channel may start its next chunk
  Picoseconds done = 0;         // when this chunk's last byte landed
};

class TransferTiming {
 public:
  virtual ~TransferTiming() = default;
  // Moves the next chunk of `task` (its bytes from `offset` on) on one of `device`'s DMA
  // channels, starting no earlier than `ready`.
  virtual ChunkTiming moveChunk(int device, const Task& task, uint64_t offset, Picoseconds ready) = 0;
  virtual const char* name() const = 0;
};

// Registered implementations: "pcie" and "fixed-rate".
std::unique_ptr<TransferTiming> makeTransferTiming(const std::string& name, const spec::SystemSpec& sys);

}  // namespace ascendsim::models
