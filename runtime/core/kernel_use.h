#pragma once
// What an Ascend C kernel's blocks did, as the timing model needs it, and what a program must
// know to run them: the same whether the blocks run in the simulator's process or in the program
// that launched them (a machine served to several processes: runtime/remote/kernel_service.h).

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spec/system_spec.h"

namespace ascendsim::runtime {

struct KernelRange {
  uint64_t address = 0, bytes = 0;
  uint64_t target = 0;  // an allocation that maps physical memory: where its bytes live
};

struct KernelUse {
  uint64_t copiedIn = 0, copiedOut = 0;               // DataCopy's bytes
  std::vector<KernelRange> copyInRuns, copyOutRuns;   // where DataCopy read and wrote, in order
  std::vector<KernelRange> touchedRuns, changedRuns;  // what scalar code touched and changed
  std::vector<uint64_t> blockCycles;                  // each block's cycles on its core
  std::vector<uint64_t> hostTouched, hostChanged;     // host pages reached in place
  // Device pages whose contents the blocks wrote, when they ran in another process.
  std::vector<uint64_t> devicePagesWritten;
};

// A kernel's blocks to run elsewhere: on device `device` whose memory spans [base, base + span),
// its live allocations (for out-of-bounds checks), its cores and their Unified Buffer.
struct KernelRun {
  int32_t device = 0;
  uint64_t base = 0, span = 0;
  std::vector<KernelRange> allocations;
  // Devices it has peer access to, whose allocations its blocks may reach too.
  struct Peer {
    uint64_t base = 0, span = 0;
    std::vector<KernelRange> allocations;
  };
  std::vector<Peer> peers;
  spec::AiCoreSpec cores;
  uint32_t unifiedBuffer = 0;
  uint32_t blocks = 1;
  // Host memory the blocks reach in place (registered and managed ranges): the program watches
  // the ones that are its own, and says which pages the blocks touched and changed.
  std::vector<KernelRange> hostRanges;
};

// How a fault stopped a block (KernelFault's kinds, as numbers that travel).
struct KernelStop {
  int32_t kind = 0;  // KernelFault::Kind
  std::string reason;
  uint64_t address = 0;
  uint32_t block = 0;
};

// Runs a launch's blocks where its code lives and says what they did and how they stopped.
using KernelRunner = std::function<KernelUse(const KernelRun&, KernelStop&)>;

}  // namespace ascendsim::runtime
