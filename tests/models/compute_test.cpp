// Kernels on the AI Cores: a kernel takes as long as the slowest of the vector units, the cores'
// load/store paths and device memory, and it shares device memory with DMA traffic.
#include <gtest/gtest.h>

#include <cmath>

#include "models/compute/ai_core_work.h"
#include "scheduled_machine.h"

namespace ascendsim::models {
namespace {

constexpr uint64_t MiB = 1ull << 20;

double seconds(Picoseconds ps) {
  return static_cast<double>(ps) * 1e-12;
}

// A kernel's time from its start, less the launch and dispatch every kernel pays first.
double busySeconds(const Machine& m, size_t i) {
  const spec::DeviceSpec& d = m.spec().devices[0];
  return seconds(m.end(i) - m.start(i) - d.scheduler.taskLaunch - d.aicore.startLatency);
}

KernelWork work(const char* name, uint64_t read, uint64_t written, uint64_t ops,
                uint32_t opBytes = 4) {
  KernelWork w;
  w.name = name;
  w.bytesRead = read;
  w.bytesWritten = written;
  w.ops = ops;
  w.opBytes = opBytes;
  return w;
}

KernelWork add32(uint64_t elements) {
  // out = self + other in float32: read two inputs, write one output, one vector op per element.
  return work("add", 8 * elements, 4 * elements, elements);
}

TEST(KernelSlices, AddUpToTheWholeKernel) {
  const KernelWork w = work("k", 1000003, 499999, 777777);
  uint64_t r = 0, wr = 0, ops = 0;
  for (uint64_t off = 0; off < w.bytesRead + w.bytesWritten; off += 4096) {
    const KernelSlice s = sliceOf(w, off, 4096);
    r += s.bytesRead;
    wr += s.bytesWritten;
    ops += s.ops;
  }
  EXPECT_EQ(r, w.bytesRead);
  EXPECT_EQ(wr, w.bytesWritten);
  EXPECT_EQ(ops, w.ops);
}

// Device memory's sequential rate, as arithmetic from the default device's HBM2E (JESD235C; the
// preset configs/memory/hbm2e.yaml): 2 stacks x 1024 bits x 3.2 Gb/s / 8 = 819.2 GB/s of peak,
// of which all-bank refresh takes tRFC / tREFI = 350 ns / 3900 ns: 745.67 GB/s for reads and
// writes alike. The DRAM model also pays row switches and read/write turnarounds, which this
// arithmetic leaves out: the checks below allow `slower` above it (and 0.1 % below, for the
// launch's rounding), where a tRFC doubled would be 9.9 % slower.
constexpr double kHbmPeak = 2 * 1024 * 3.2e9 / 8;
constexpr double kHbmSequential = kHbmPeak * (1.0 - 350.0 / 3900.0);

void expectMemoryTime(double seconds, double bytes, double slower) {
  const double expected = bytes / kHbmSequential;
  EXPECT_GE(seconds, 0.999 * expected) << seconds * 1e6 << " us";
  EXPECT_LE(seconds, (1 + slower) * expected) << seconds * 1e6 << " us";
}

// float32 add of 16 Mi elements on the default 910B4-class device: 128 MiB read, 64 MiB written.
// The cores could load at 40 x 64 B x 1.65 GHz = 4.2 TB/s, far above HBM, so memory sets the
// time: 192 MiB / 745.67 GB/s = 270.0 us.
TEST(Kernel, ElementwiseAddIsBoundByDeviceMemory) {
  Machine m("default");
  const uint64_t n = 16 * MiB;
  m.kernel(0, add32(n));
  m.run();
  // 1 %: one read stream and one write stream, turned around once per write batch (1 MiB).
  expectMemoryTime(busySeconds(m, 0), 12.0 * n, 0.01);
  EXPECT_EQ(m.resource("npu0.memory").bytes, 12 * n);
  EXPECT_EQ(m.resource("npu0.aicore").bytes, 12 * n);
}

// Many operations per byte: 256 float32 ops per element over 4 Mi elements need
// 4 Mi x 256 x 4 B / (40 cores x 256 B/cycle) = 104858 cycles, 254 us at 1.65 GHz, while its
// 48 MiB of traffic need about 67 us of HBM time. The vector units set the time.
TEST(Kernel, ArithmeticHeavyKernelIsBoundByTheVectorUnits) {
  Machine m("default");
  const uint64_t n = 4 * MiB;
  m.kernel(0, work("heavy", 8 * n, 4 * n, 256 * n));
  m.run();
  const spec::AiCoreSpec& c = m.spec().devices[0].aicore;
  const double expected = 256.0 * n * 4 / (c.cores * c.vectorBytesPerCycle * c.clock);
  EXPECT_NEAR(busySeconds(m, 0), expected, 0.005 * expected);
}

// Narrow cores: at 2 B/cycle each, 40 cores load 40 x 2 x 1.65 GHz = 132 GB/s, below HBM's read
// rate, so 128 MiB of input take 128 MiB / 132 GB/s = 1.02 ms.
TEST(Kernel, NarrowCoreLoadPathBoundsTheKernel) {
  spec::SystemSpec sys = spec::loadSystemSpec("default");
  sys.devices[0].aicore.readBytesPerCycle = 2;
  Machine m(sys);
  const uint64_t n = 16 * MiB;
  m.kernel(0, add32(n));
  m.run();
  const spec::AiCoreSpec& c = m.spec().devices[0].aicore;
  const double expected = 8.0 * n / (c.cores * 2.0 * c.clock);
  EXPECT_NEAR(busySeconds(m, 0), expected, 0.01 * expected);
}

// A kernel and an on-device copy at once share HBM: together they take as long as their memory
// traffic needs in sum (kernel 128 MiB read + 64 MiB written, copy 64 MiB read + 64 MiB written:
// 320 MiB / 745.67 GB/s = 450.0 us), and each ends later than it would alone (kernel 192 MiB,
// 270.0 us; copy 128 MiB, 180.0 us), by at least 5 %.
TEST(Kernel, SharesDeviceMemoryWithDma) {
  const uint64_t n = 16 * MiB;
  Machine both("default");
  both.kernel(0, add32(n));
  both.copy(0, {MemoryPlace::Kind::Device, 0, 0}, {MemoryPlace::Kind::Device, 0, 1ull << 30},
            4 * n);
  both.run();
  // From the start of the run, so the launches and setups (3 us, 0.7 %) are inside; 2.5 %: two
  // writers and two readers interleave, so write batches and the rows reopened after each
  // turnaround come twice as often as for one kernel (1.5 % measured).
  expectMemoryTime(seconds(std::max(both.end(0), both.end(1))), 20.0 * n, 0.025);
  EXPECT_GT(seconds(both.end(0)), 1.05 * 12.0 * n / kHbmSequential);
  EXPECT_GT(seconds(both.end(1)), 1.05 * 8.0 * n / kHbmSequential);
}

// The AI Cores run one kernel at a time: two vector-bound kernels on two streams end one
// kernel-time apart.
TEST(Kernel, KernelsOnTwoStreamsTakeTheCoresInTurn) {
  Machine m("default");
  const uint64_t n = MiB;
  m.kernel(0, work("a", 8 * n, 4 * n, 256 * n));
  m.kernel(0, work("b", 8 * n, 4 * n, 256 * n));
  m.run();
  const double one = seconds(m.end(0) - m.start(0));
  const double gap = seconds(m.end(1) - m.end(0));
  EXPECT_NEAR(gap, one, 0.01 * one);
  EXPECT_GE(m.start(1), m.end(0));
}

// A kernel with nothing to do still pays its launch and dispatch.
TEST(Kernel, EmptyKernelTakesItsLaunchLatency) {
  Machine m("default");
  m.kernel(0, work("empty", 0, 0, 0));
  m.run();
  const spec::DeviceSpec& d = m.spec().devices[0];
  EXPECT_EQ(m.end(0) - m.start(0), d.scheduler.taskLaunch + d.aicore.startLatency);
}

}  // namespace
}  // namespace ascendsim::models

namespace ascendsim::models {
namespace {

// Arithmetic without memory traffic: 2^26 float32 operations take 2^26 x 4 B / (40 x 256 B per
// cycle) = 26214.4 cycles, 15.89 us at 1.65 GHz, after the launch.
TEST(Kernel, ArithmeticOnlyKernelTakesVectorTime) {
  Machine m("default");
  m.kernel(0, work("ops", 0, 0, uint64_t{1} << 26));
  m.run();
  const spec::AiCoreSpec& c = m.spec().devices[0].aicore;
  const double expected = std::ldexp(1.0, 26) * 4 / (c.cores * c.vectorBytesPerCycle * c.clock);
  EXPECT_NEAR(busySeconds(m, 0), expected, 1e-9);
}

}  // namespace
}  // namespace ascendsim::models
