// The cost model of an Ascend C kernel's blocks (models/compute/ascendc_cost.h): each expected
// cycle count is worked out here from the core's rates (AiCoreSpec's defaults: 64 B per cycle in
// through MTE2 and out through MTE3, 256 B per cycle through the vector unit, one scalar
// instruction per cycle) and the instructions' order, never by asking the model. Every figure is
// an integer count of cycles, so the checks are exact.
#include <gtest/gtest.h>

#include <vector>

#include "models/compute/ascendc_cost.h"

namespace ascendsim::models {
namespace {

constexpr uint64_t kTile = 4096;  // bytes of each operand per tile

// Cycles for the scalar unit to issue one instruction to a pipe.
uint64_t issueCycles(const spec::AiCoreSpec& c) {
  return kScalarOpsPerInstruction / c.scalarOpsPerCycle;
}

// z = x + y over `tiles` tiles, the way a TQue-based kernel issues it: per tile x and y copied in,
// one Add, z copied out. The input queue has `inBuffers` buffers taken in turn (two per tile), the
// output queue `outBuffers`: 4 and 2 are CANN's double buffering, 2 and 1 a single buffer.
uint64_t addPipeline(const spec::AiCoreSpec& c, uint64_t tiles, uintptr_t inBuffers,
                     uintptr_t outBuffers) {
  BlockTimeline t(c);
  uintptr_t nextIn = 0, nextOut = 0;
  for (uint64_t i = 0; i < tiles; ++i) {
    const uintptr_t x = 1 + nextIn++ % inBuffers, y = 1 + nextIn++ % inBuffers;
    const uintptr_t z = 100 + nextOut++ % outBuffers;
    t.copyIn(kTile, x);
    t.copyIn(kTile, y);
    t.vector(kTile, z, x, y);
    t.copyOut(kTile, z);
  }
  return t.cycles();
}

TEST(AscendCBlock, DoubleBufferedPipelineRunsAtTheBusiestPipe) {
  // Per tile MTE2 carries 2 x 4096 B at 64 B/cycle (128 cycles), the vector unit 4096 B at 256
  // (16), MTE3 4096 B at 64 (64); the scalar unit issues 4 instructions (16 cycles). With two
  // buffers per operand MTE2 never waits: it starts once the first copy is issued (4 cycles) and
  // runs 16 x 128 cycles; then the last tile's Add (16) and copy-out (64) drain: 2132 cycles.
  const spec::AiCoreSpec c;
  const uint64_t tiles = 16;
  const uint64_t mte2 = 2 * kTile / c.readBytesPerCycle;
  const uint64_t vector = kTile / c.vectorBytesPerCycle;
  const uint64_t mte3 = kTile / c.writeBytesPerCycle;
  ASSERT_EQ(mte2, 128u);
  ASSERT_GT(mte2, 4 * issueCycles(c));  // the scalar unit keeps ahead
  EXPECT_EQ(addPipeline(c, tiles, 4, 2), issueCycles(c) + tiles * mte2 + vector + mte3);
  EXPECT_EQ(addPipeline(c, tiles, 4, 2), 2132u);
}

TEST(AscendCBlock, SingleBufferedPipelineSerialisesCopyInAndCompute) {
  // One buffer per operand: the next tile's copy-in must wait until the Add has read x and y, so
  // MTE2 and the vector unit take turns: 128 + 16 cycles per tile (the copy-out, 64 cycles,
  // overlaps the next copy-in, which is longer), then the last copy-out: 4 + 16 x 144 + 64 = 2372
  // cycles, 240 more than double buffering.
  const spec::AiCoreSpec c;
  const uint64_t tiles = 16;
  const uint64_t mte2 = 2 * kTile / c.readBytesPerCycle;
  const uint64_t vector = kTile / c.vectorBytesPerCycle;
  const uint64_t mte3 = kTile / c.writeBytesPerCycle;
  ASSERT_LE(mte3, mte2);
  EXPECT_EQ(addPipeline(c, tiles, 2, 1), issueCycles(c) + tiles * (mte2 + vector) + mte3);
  EXPECT_EQ(addPipeline(c, tiles, 2, 1), 2372u);
}

TEST(AscendCBlock, TheVectorUnitSetsThePaceWhenItIsTheBusiestPipe) {
  // A vector unit of 16 B per cycle takes 256 cycles per tile, more than MTE2's 128: after the
  // first tile's copy-in (4 + 128 cycles) the Adds run back to back, 16 x 256, then the last
  // copy-out (64): 4292 cycles.
  spec::AiCoreSpec c;
  c.vectorBytesPerCycle = 16;
  const uint64_t tiles = 16;
  const uint64_t mte2 = 2 * kTile / c.readBytesPerCycle;
  const uint64_t vector = kTile / c.vectorBytesPerCycle;
  const uint64_t mte3 = kTile / c.writeBytesPerCycle;
  ASSERT_GT(vector, mte2);
  EXPECT_EQ(addPipeline(c, tiles, 4, 2), issueCycles(c) + mte2 + tiles * vector + mte3);
  EXPECT_EQ(addPipeline(c, tiles, 4, 2), 4292u);
}

TEST(AscendCBlock, PipeBarrierMakesTheScalarUnitWaitForEveryPipe) {
  // A 4 KiB copy-in (issued at cycle 4, done at 68), 100 scalar instructions, then a vector
  // instruction on another buffer (issued 4 cycles later, 16 cycles long). Without a barrier the
  // scalar code runs while the copy is in flight: 4 + 100 + 4 + 16 = 124 cycles. With
  // PipeBarrier<PIPE_ALL> after the copy it starts at 68: 68 + 100 + 4 + 16 = 188.
  const spec::AiCoreSpec c;
  for (const bool barrier : {false, true}) {
    BlockTimeline t(c);
    t.copyIn(kTile, 1);
    if (barrier) t.barrier();
    t.scalar(100);
    t.vector(kTile, 3, 2, 0);
    const uint64_t copyEnd = issueCycles(c) + kTile / c.readBytesPerCycle;
    const uint64_t scalarFrom = barrier ? copyEnd : issueCycles(c);
    EXPECT_EQ(t.cycles(), scalarFrom + 100 + issueCycles(c) + kTile / c.vectorBytesPerCycle)
        << "barrier " << barrier;
    EXPECT_EQ(t.cycles(), barrier ? 188u : 124u);
  }
}

TEST(AscendCBlock, TheScalarUnitReadingAResultWaitsForIt) {
  // GetValue of a vector result: copy-in 4..68, the vector instruction 68..84 (it reads the
  // copy's buffer), the scalar read waits until 84, then 10 scalar instructions: 94. A scalar read
  // of a buffer no pipe wrote does not wait: 4 + 4 (two issues) + 10 = 18 for the scalar unit,
  // 84 for the block.
  const spec::AiCoreSpec c;
  BlockTimeline waits(c);
  waits.copyIn(kTile, 1);
  waits.vector(kTile, 2, 1, 0);
  waits.scalarAccess(2, false);
  waits.scalar(10);
  EXPECT_EQ(waits.cycles(), 4 + 64 + 16 + 10u);
  BlockTimeline free(c);
  free.copyIn(kTile, 1);
  free.vector(kTile, 2, 1, 0);
  free.scalarAccess(7, false);
  free.scalar(10);
  free.barrier();
  EXPECT_EQ(free.cycles(), 4 + 64 + 16u);
  // A scalar write of a buffer a copy-out still reads waits for the copy-out (write after read).
  BlockTimeline war(c);
  war.copyOut(kTile, 5);  // 4..68
  war.scalarAccess(5, true);
  war.scalar(1);
  EXPECT_EQ(war.cycles(), 4 + 64 + 1u);
}

TEST(AscendCBlock, ScalarCodeAndItsGlobalMemoryLoadsAddUp) {
  // 1000 loop tests of scalar code at 4 instructions each, one instruction per cycle, and a
  // 4 KiB page of global memory loaded through the core's 64 B/cycle load path: 4000 + 64 cycles.
  const spec::AiCoreSpec c;
  BlockTimeline t(c);
  for (int i = 0; i < 1000; ++i) t.scalar(kScalarOpsPerLoopTest);
  t.scalarLoad(4096);
  EXPECT_EQ(t.cycles(), 1000 * kScalarOpsPerLoopTest / c.scalarOpsPerCycle + 4096 / 64);
  EXPECT_EQ(t.cycles(), 4064u);
  // Three instructions per cycle: the 4000 instructions take 1333 1/3 cycles, 1334 begun; the
  // partial cycles of the 4-instruction runs are not rounded up one by one.
  spec::AiCoreSpec three;
  three.scalarOpsPerCycle = 3;
  BlockTimeline wide(three);
  for (int i = 0; i < 1000; ++i) wide.scalar(kScalarOpsPerLoopTest);
  EXPECT_EQ(wide.cycles(), 1334u);
}

TEST(AscendCKernelBlocks, SpreadOverTheCoresEachToTheFirstFree) {
  // Blocks of 10, 20, 30, 40, 50 cycles on 2 cores: 10 and 20 start at once; 30 follows 10 (core
  // 0, ends 40); 40 follows 20 (core 1, ends 60); 50 follows 30 on core 0 (free at 40): 90.
  const std::vector<uint64_t> blocks{10, 20, 30, 40, 50};
  EXPECT_EQ(spreadOverCores(blocks, 2), 90u);
  EXPECT_EQ(spreadOverCores(blocks, 1), 150u);  // one after the other
  EXPECT_EQ(spreadOverCores(blocks, 5), 50u);   // all at once: the longest
  EXPECT_EQ(spreadOverCores(blocks, 40), 50u);  // idle cores do not help
  EXPECT_EQ(spreadOverCores(blocks, 0), 150u);  // (at least one core)
  EXPECT_EQ(spreadOverCores({}, 8), 0u);
  // 48 equal blocks on 40 cores: two rounds.
  EXPECT_EQ(spreadOverCores(std::vector<uint64_t>(48, 1000), 40), 2000u);
}

}  // namespace
}  // namespace ascendsim::models
