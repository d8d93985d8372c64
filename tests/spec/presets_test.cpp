// Every built-in preset loads, and its derived figures are the published ones.
#include <gtest/gtest.h>

#include "spec/system_loader.h"

namespace ascendsim::spec {
namespace {

TEST(Presets, EveryMachinePresetLoads) {
  const std::vector<std::string> names = builtinMachinePresets();
  EXPECT_GE(names.size(), 5u);
  for (const std::string& n : names) EXPECT_NO_THROW(loadSystemSpec(n)) << n;
}

TEST(Presets, Atlas800TA2MatchesThePublishedMachine) {
  const SystemSpec sys = loadSystemSpec("atlas-800t-a2");
  ASSERT_EQ(sys.devices.size(), 8u);
  ASSERT_EQ(sys.switches.size(), 2u);
  const DeviceSpec& npu = sys.devices[5];
  EXPECT_EQ(npu.name, "npu5");
  EXPECT_EQ(npu.port, "sw1.1");
  // 910B: 64 GiB HBM2e, 4096 bits x 3.2 Gb/s = 1638.4 GB/s (driver QoS ceiling).
  EXPECT_EQ(npu.memory.capacity, 64ull << 30);
  EXPECT_DOUBLE_EQ(npu.memory.peakBandwidth(), 1638.4e9);
  EXPECT_EQ(npu.memory.rows(), 65536u);
  // Gen4 x16: 16 GT/s x 16 lanes x 128/130 / 8 = 31.508 GB/s of line rate per direction.
  EXPECT_NEAR(npu.link.lineBandwidth(), 31.5077e9, 1e6);
  // Kunpeng 920: 8 channels of DDR4-3200 per socket, 4 sockets: 32 x 25.6 GB/s.
  EXPECT_DOUBLE_EQ(sys.host.memory.peakBandwidth(), 32 * 25.6e9);
}

TEST(Presets, MemoryPresetPeakBandwidths) {
  const SystemSpec a = loadSystemSpec("atlas-300i-duo");
  // 310P3: 32 x 16-bit LPDDR4X channels at 3200 MT/s = 204.8 GB/s per chip.
  EXPECT_DOUBLE_EQ(a.devices[0].memory.peakBandwidth(), 204.8e9);
  EXPECT_EQ(a.devices[0].memory.capacity, 48ull << 30);
  const SystemSpec rc = loadSystemSpec("atlas-200i-dk-a2");
  EXPECT_EQ(rc.runMode, RunMode::Device);
  EXPECT_DOUBLE_EQ(rc.devices[0].memory.peakBandwidth(), 25.6e9);  // 64-bit x 3200 MT/s
  const SystemSpec a9000 = loadSystemSpec("atlas-800-9000");
  EXPECT_DOUBLE_EQ(a9000.devices[0].memory.peakBandwidth(), 1228.8e9);  // about 1.2 TB/s
}

TEST(Presets, NanosecondTimingsRoundUpToCycles) {
  // HBM2E at 1.6 GHz (tCK 625 ps): tRRD_S 4 ns -> 6.4 -> 7 cycles; tREFI 3900 ns -> 6240 cycles.
  const SystemSpec sys = loadSystemSpec("default");
  const DramTimings& t = sys.devices[0].memory.timings;
  EXPECT_EQ(sys.devices[0].memory.tCK(), 625);
  EXPECT_EQ(t.tRRD_S, 7u);
  EXPECT_EQ(t.tREFI, 6240u);
  EXPECT_EQ(t.tRFC, 560u);
  // tRTW derived: CL 23 + BL4/2 + 2 - CWL 8 = 19 cycles.
  EXPECT_EQ(t.tRTW, 19u);
}

TEST(Presets, OverridingTheClockRescalesNanosecondTimings) {
  // DDR5-4800 tWR is 30 ns: 72 cycles at 2.4 GHz (417 ps), 60 at 2 GHz.
  const char* base =
      "host: { memory: { preset: ddr5-4800 CLOCK } }\ndevices: [ { port: rc.0, memory: { preset: "
      "hbm2e } } ]\n";
  std::string at24 = base, at20 = base;
  at24.replace(at24.find("CLOCK"), 5, "");
  at20.replace(at20.find("CLOCK"), 5, ", clock: 2000MHz, data_rate: 4000MT/s");
  EXPECT_EQ(loadSystemSpecFromText(at24, "a.yaml").host.memory.timings.tWR, 72u);
  EXPECT_EQ(loadSystemSpecFromText(at20, "b.yaml").host.memory.timings.tWR, 60u);
}

TEST(Presets, UnknownPresetNameListsTheKnownOnes) {
  try {
    loadSystemSpec("atlas-9999");
    FAIL();
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("atlas-800t-a2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ascendsim::spec
