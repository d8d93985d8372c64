#include "models/compute/ascendc_cost.h"

#include <algorithm>
#include <functional>
#include <queue>

namespace ascendsim::models {
namespace {
uint64_t ceilDiv(uint64_t a, uint64_t b) {
  return b == 0 ? 0 : (a + b - 1) / b;
}
}  // namespace

BlockTimeline::BlockTimeline(const spec::AiCoreSpec& cores) : cores_(cores) {}

uint64_t BlockTimeline::copyInCycles(const spec::AiCoreSpec& c, uint64_t bytes) {
  return ceilDiv(bytes, c.readBytesPerCycle);
}
uint64_t BlockTimeline::copyOutCycles(const spec::AiCoreSpec& c, uint64_t bytes) {
  return ceilDiv(bytes, c.writeBytesPerCycle);
}
uint64_t BlockTimeline::vectorCycles(const spec::AiCoreSpec& c, uint64_t bytes) {
  return ceilDiv(bytes, c.vectorBytesPerCycle);  // repeats, one per cycle
}

void BlockTimeline::scalar(uint64_t ops) {
  // Whole cycles, carrying a part-filled one: many short runs take what they take together.
  const uint64_t perCycle = std::max<uint64_t>(cores_.scalarOpsPerCycle, 1);
  const uint64_t total = scalarCarry_ + ops;
  scalar_ += total / perCycle;
  scalarCarry_ = total % perCycle;
}

void BlockTimeline::scalarWait(uint64_t cycle) {
  if (cycle <= scalarNow()) return;
  scalar_ = cycle;
  scalarCarry_ = 0;
}

void BlockTimeline::issue(Pipe pipe, uint64_t cycles, uintptr_t dst, uintptr_t src0,
                          uintptr_t src1) {
  scalar(kScalarOpsPerInstruction);  // the scalar unit sets it up and issues it, then goes on
  uint64_t start = std::max(scalarNow(), pipes_[static_cast<int>(pipe)]);
  for (uintptr_t src : {src0, src1}) {
    if (src) start = std::max(start, buffers_[src].written);  // read after write
  }
  // Write after write and write after read.
  if (dst) start = std::max({start, buffers_[dst].written, buffers_[dst].read});
  const uint64_t end = start + cycles;
  pipes_[static_cast<int>(pipe)] = end;
  for (uintptr_t src : {src0, src1}) {
    if (src) buffers_[src].read = std::max(buffers_[src].read, end);
  }
  if (dst) buffers_[dst].written = end;
}

void BlockTimeline::copyIn(uint64_t bytes, uintptr_t dst) {
  issue(Pipe::Mte2, copyInCycles(cores_, bytes), dst, 0, 0);
}

void BlockTimeline::copyOut(uint64_t bytes, uintptr_t src) {
  issue(Pipe::Mte3, copyOutCycles(cores_, bytes), 0, src, 0);
}

void BlockTimeline::vector(uint64_t bytes, uintptr_t dst, uintptr_t src0, uintptr_t src1) {
  issue(Pipe::Vector, vectorCycles(cores_, bytes), dst, src0, src1);
}

void BlockTimeline::scalarAccess(uintptr_t buffer, bool write) {
  Buffer& b = buffers_[buffer];
  scalarWait(b.written);
  if (write) {
    scalarWait(b.read);
    b.written = scalarNow();
  }
}

void BlockTimeline::scalarLoad(uint64_t bytes) {
  scalarWait(scalarNow() + copyInCycles(cores_, bytes));
}

void BlockTimeline::barrier() {
  scalarWait(cycles());
}

uint64_t BlockTimeline::cycles() const {
  return std::max({scalarNow(), pipes_[0], pipes_[1], pipes_[2]});
}

uint64_t spreadOverCores(const std::vector<uint64_t>& blockCycles, uint32_t cores) {
  if (blockCycles.empty()) return 0;
  const size_t n = std::min<size_t>(std::max<uint32_t>(cores, 1), blockCycles.size());
  // (free at, core): the earliest free core, the lowest-numbered of equals.
  std::priority_queue<std::pair<uint64_t, size_t>, std::vector<std::pair<uint64_t, size_t>>,
                      std::greater<>>
      free;
  for (size_t i = 0; i < n; ++i) free.push({0, i});
  uint64_t end = 0;
  for (uint64_t c : blockCycles) {
    auto [at, core] = free.top();
    free.pop();
    at += c;
    end = std::max(end, at);
    free.push({at, core});
  }
  return end;
}

}  // namespace ascendsim::models
