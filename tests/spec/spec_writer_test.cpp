// `config show` prints YAML that loads back into the same machine, for every preset.
#include <gtest/gtest.h>

#include "spec/spec_writer.h"
#include "spec/system_loader.h"

namespace ascendsim::spec {
namespace {

TEST(SpecWriter, EveryPresetRoundTripsExactly) {
  for (const std::string& name : builtinMachinePresets()) {
    const SystemSpec original = loadSystemSpec(name);
    const std::string first = writeSystemSpecYaml(original);
    SystemSpec reloaded;
    ASSERT_NO_THROW(reloaded = loadSystemSpecFromText(first, name + "-resolved.yaml")) << first;
    EXPECT_EQ(writeSystemSpecYaml(reloaded), first) << name;
    EXPECT_EQ(reloaded.devices.size(), original.devices.size());
    EXPECT_DOUBLE_EQ(reloaded.devices[0].memory.peakBandwidth(), original.devices[0].memory.peakBandwidth());
  }
}

// aicore.unified_buffer: the SoC's when not given (192 KiB = 196608 B on Ascend910B*/910_93*
// vector cores, 256 KiB = 262144 B elsewhere), the given size otherwise, and `config show` keeps
// it.
TEST(SpecWriter, UnifiedBufferDefaultsPerSocAndRoundTrips) {
  const std::string head =
      "host:\n  memory: { preset: ddr4-3200 }\npcie:\n  root_complex: { ports: 2 }\n"
      "devices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n";
  EXPECT_EQ(loadSystemSpecFromText(head + "    soc: Ascend910B4\n", "a.yaml")
                .devices[0]
                .aicore.unifiedBuffer,
            192u * 1024);
  EXPECT_EQ(loadSystemSpecFromText(head + "    soc: Ascend910_9391\n", "b.yaml")
                .devices[0]
                .aicore.unifiedBuffer,
            192u * 1024);
  EXPECT_EQ(loadSystemSpecFromText(head + "    soc: Ascend310P3\n", "c.yaml")
                .devices[0]
                .aicore.unifiedBuffer,
            256u * 1024);
  EXPECT_EQ(loadSystemSpecFromText(head, "d.yaml").devices[0].aicore.unifiedBuffer, 256u * 1024);
  const SystemSpec given = loadSystemSpecFromText(
      head + "    soc: Ascend910B4\n    aicore: { unified_buffer: 96KiB }\n", "e.yaml");
  EXPECT_EQ(given.devices[0].aicore.unifiedBuffer, 96u * 1024);
  const SystemSpec reloaded = loadSystemSpecFromText(writeSystemSpecYaml(given), "e-resolved.yaml");
  EXPECT_EQ(reloaded.devices[0].aicore.unifiedBuffer, 96u * 1024);
}

}  // namespace
}  // namespace ascendsim::spec
