#pragma once
// The cost model of an Ascend C kernel's blocks (docs/ascendc.md, "Timing"). Each block runs on
// one core, whose scalar unit issues instructions in program order to three pipes that run in
// parallel: MTE2 (global memory to the Unified Buffer), the vector unit, MTE3 (Unified Buffer to
// global memory). An instruction starts when its pipe is free, the scalar unit has issued it and
// the local buffers it reads were written (and those it writes were read) by the instructions
// before it: what a TQue's EnQue / DeQue and a double-buffered pipeline give. A block's time is
// its critical path; the kernel's is its blocks spread over the cores it runs on.

#include <cstdint>
#include <map>
#include <vector>

#include "spec/system_spec.h"

namespace ascendsim::models {

// Scalar instructions charged for each test of a loop's condition in the kernel's own source
// (kernels built with ascendc_library count them: the condition, the increment and the body's
// address arithmetic) and for issuing one vector or copy instruction (its address, repeat and
// stride set-up): assumed, stated in docs/ascendc.md.
constexpr uint64_t kScalarOpsPerLoopTest = 4;
constexpr uint64_t kScalarOpsPerInstruction = 4;

class BlockTimeline {
 public:
  enum class Pipe { Mte2, Vector, Mte3 };
  explicit BlockTimeline(const spec::AiCoreSpec& cores);

  // `ops` scalar instructions, in order on the scalar unit.
  void scalar(uint64_t ops);
  // `bytes` from global memory into local buffer `dst` (MTE2), at read_bytes_per_cycle.
  void copyIn(uint64_t bytes, uintptr_t dst);
  // `bytes` from local buffer `src` to global memory (MTE3), at write_bytes_per_cycle.
  void copyOut(uint64_t bytes, uintptr_t src);
  // A vector instruction over `bytes` of its widest operand: one repeat of vector_bytes_per_cycle
  // per cycle. `src1` may be 0 (a unary instruction).
  void vector(uint64_t bytes, uintptr_t dst, uintptr_t src0, uintptr_t src1);
  // The scalar unit reads (or writes) a local buffer: it waits for the pipes' work on it.
  void scalarAccess(uintptr_t buffer, bool write);
  // The scalar unit loads `bytes` of global memory (a page its code touched first), through the
  // core's load path at read_bytes_per_cycle, and waits for them.
  void scalarLoad(uint64_t bytes);
  // PipeBarrier<PIPE_ALL>: the scalar unit waits until every pipe is idle.
  void barrier();
  // Cycles from the block's start to its last instruction's end.
  uint64_t cycles() const;

  static uint64_t copyInCycles(const spec::AiCoreSpec& c, uint64_t bytes);
  static uint64_t copyOutCycles(const spec::AiCoreSpec& c, uint64_t bytes);
  static uint64_t vectorCycles(const spec::AiCoreSpec& c, uint64_t bytes);

 private:
  struct Buffer {
    uint64_t written = 0;  // when the last instruction writing it ends
    uint64_t read = 0;     // when the last instruction reading it ends
  };
  void issue(Pipe pipe, uint64_t cycles, uintptr_t dst, uintptr_t src0, uintptr_t src1);
  // When the scalar unit's instructions so far have ended (a cycle begun counts whole).
  uint64_t scalarNow() const { return scalar_ + (scalarCarry_ > 0 ? 1 : 0); }
  // The scalar unit waits until `cycle`.
  void scalarWait(uint64_t cycle);

  const spec::AiCoreSpec& cores_;
  uint64_t scalar_ = 0;       // the scalar unit's clock, in whole cycles
  uint64_t scalarCarry_ = 0;  // instructions run in the cycle after it (< scalar_ops_per_cycle)
  uint64_t pipes_[3] = {};    // when each pipe's last instruction ends
  std::map<uintptr_t, Buffer> buffers_;
};

// Cycles the kernel takes with blocks of `blockCycles` (in block order) on `cores` cores: each
// block goes to the core that is free first (the lowest-numbered of equals).
uint64_t spreadOverCores(const std::vector<uint64_t>& blockCycles, uint32_t cores);

}  // namespace ascendsim::models
