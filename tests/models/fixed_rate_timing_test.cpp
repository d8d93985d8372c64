// The fixed-rate copy model on its own: the rate a copy gets is the narrowest on its way, and the
// narrowest is written out here from the presets' settings (links' raw rates, the CPU's staging
// copy, a device link's transfer rate), in cases where the memories are known to be faster.
#include <gtest/gtest.h>

#include "models/dma/fixed_rate_timing.h"
#include "models/machine/machine_graph.h"
#include "models/machine/router.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

Task copy(MemoryPlace::Kind from, int fromDevice, MemoryPlace::Kind to, int toDevice) {
  Task t;
  t.kind = TaskKind::Copy;
  t.src = {from, fromDevice, 0};
  t.dst = {to, toDevice, 0};
  t.bytes = 64ull << 20;
  return t;
}

TEST(FixedRateTiming, AHostCopyGetsTheLinksRawRate) {
  // default: one 910B4 on a Gen4 x16 root port; 16 GT/s x 16 lanes x 128/130 / 8 = 31.508 GB/s,
  // below host DDR4's and HBM2e's rates (hundreds of GB/s).
  const spec::SystemSpec sys = spec::loadSystemSpec("default");
  MachineGraph graph(sys);
  Router router(graph);
  FixedRateTiming timing(sys, router);
  const double gen4x16 = 16e9 * 16 * 128 / 130 / 8;
  const auto pinned = MemoryPlace::Kind::HostPinned, device = MemoryPlace::Kind::Device;
  EXPECT_DOUBLE_EQ(timing.rate(0, copy(pinned, -1, device, 0)), gen4x16);
  EXPECT_DOUBLE_EQ(timing.rate(0, copy(device, 0, pinned, -1)), gen4x16);
  // Pageable memory is staged by one CPU core at host.cpu_copy_bandwidth, 10 GB/s.
  EXPECT_DOUBLE_EQ(timing.rate(0, copy(MemoryPlace::Kind::HostPageable, -1, device, 0)), 10e9);
  EXPECT_STREQ(timing.name(), "fixed-rate");
}

TEST(FixedRateTiming, APeerCopyOverHccsGetsOneTransfersRate) {
  // atlas-800t-a2: npu0 -> npu1 over HCCS, raw 56 GB/s, one transfer at most 19.3 GB/s.
  const spec::SystemSpec sys = spec::loadSystemSpec("atlas-800t-a2");
  MachineGraph graph(sys);
  Router router(graph);
  FixedRateTiming timing(sys, router);
  const auto device = MemoryPlace::Kind::Device;
  EXPECT_DOUBLE_EQ(timing.rate(0, copy(device, 0, device, 1)), 19.3e9);
}

}  // namespace
}  // namespace ascendsim::models
