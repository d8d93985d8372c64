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
    EXPECT_DOUBLE_EQ(reloaded.devices[0].memory.peakBandwidth(),
                     original.devices[0].memory.peakBandwidth());
  }
}

// A device link's transfer_rate is written (and so kept by `config show` and by the sustained-rate
// cache's key): the 800T A2 preset sets 19.3 GB/s on its HCCS mesh.
TEST(SpecWriter, DeviceLinkTransferRateIsWritten) {
  const SystemSpec sys = loadSystemSpec("atlas-800t-a2");
  ASSERT_FALSE(sys.deviceLinks.empty());
  EXPECT_DOUBLE_EQ(sys.deviceLinks[0].transferRate, 19.3e9);
  const std::string yaml = writeSystemSpecYaml(sys);
  EXPECT_NE(yaml.find("transfer_rate: 19.3GB/s"), std::string::npos) << yaml;
  // `unlimited` reads back as no limit of its own, and is written so.
  const SystemSpec open = loadSystemSpecFromText(
      "extends: atlas-800t-a2\ndevice_links:\n  - { model: hccs, pattern: full-mesh, "
      "transfer_rate: unlimited }\n",
      "open.yaml");
  EXPECT_DOUBLE_EQ(open.deviceLinks[0].transferRate, 0.0);
  EXPECT_NE(writeSystemSpecYaml(open).find("transfer_rate: unlimited"), std::string::npos);
}

// aicore.unified_buffer: `auto` (0) when not given, which is the SoC's (192 KiB = 196608 B on
// Ascend910B*/910_93* vector cores, 256 KiB = 262144 B elsewhere, Ascend C documentation), so that
// `config show` then `--set devices[0].soc=...` follows the new SoC; a given size is kept.
TEST(SpecWriter, UnifiedBufferIsTheSocsUnlessGivenAndRoundTrips) {
  EXPECT_EQ(unifiedBufferDefault("Ascend910B4"), 196608u);
  EXPECT_EQ(unifiedBufferDefault("Ascend910_9391"), 196608u);
  EXPECT_EQ(unifiedBufferDefault("Ascend310P3"), 262144u);
  EXPECT_EQ(unifiedBufferDefault("Ascend910A"), 262144u);
  EXPECT_EQ(unifiedBufferDefault(""), 262144u);
  const std::string head =
      "host:\n  memory: { preset: ddr4-3200 }\npcie:\n  root_complex: { ports: 2 }\n"
      "devices:\n  - port: rc.0\n    memory: { preset: hbm2e }\n    soc: Ascend910B4\n";
  const SystemSpec automatic = loadSystemSpecFromText(head, "a.yaml");
  EXPECT_EQ(automatic.devices[0].aicore.unifiedBuffer, 0u);
  const std::string shown = writeSystemSpecYaml(automatic);
  EXPECT_NE(shown.find("unified_buffer: auto"), std::string::npos) << shown;
  EXPECT_EQ(loadSystemSpecFromText(shown, "a-shown.yaml").devices[0].aicore.unifiedBuffer, 0u);
  const SystemSpec given =
      loadSystemSpecFromText(head + "    aicore: { unified_buffer: 96KiB }\n", "b.yaml");
  EXPECT_EQ(given.devices[0].aicore.unifiedBuffer, 96u * 1024);
  const SystemSpec reloaded = loadSystemSpecFromText(writeSystemSpecYaml(given), "b-shown.yaml");
  EXPECT_EQ(reloaded.devices[0].aicore.unifiedBuffer, 96u * 1024);
  EXPECT_EQ(loadSystemSpecFromText(head + "    aicore: { unified_buffer: auto }\n", "c.yaml")
                .devices[0]
                .aicore.unifiedBuffer,
            0u);
}

// `config show` writes reals in their shortest round-trip form (#32): 0.8 reads back as the
// double nearest 0.8, so "0.8" is enough; 0.1 + 0.2 is not the double nearest 0.3 and needs all 17
// digits; a whole number has no point.
TEST(SpecWriter, RealsInTheirShortestRoundTripForm) {
  EXPECT_EQ(formatReal(0.8), "0.8");
  EXPECT_EQ(formatReal(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(formatReal(1.0), "1");
  const std::string yaml = writeSystemSpecYaml(loadSystemSpec("default"));
  EXPECT_NE(yaml.find("write_high_watermark: 0.8\n"), std::string::npos) << yaml;
  EXPECT_NE(yaml.find("write_low_watermark: 0.2\n"), std::string::npos);
  EXPECT_NE(yaml.find("efficiency: 1\n"), std::string::npos);
  // No figure written with 12 or more decimals. (A scan, not std::regex: GCC 12's regex code
  // warns of uninitialised members under the sanitizer build's -O2, and warnings are errors.)
  size_t digitsAfterPoint = 0;
  bool afterPoint = false;
  for (size_t i = 0; i < yaml.size(); ++i) {
    const char c = yaml[i];
    const bool digit = c >= '0' && c <= '9';
    if (c == '.' && i > 0 && yaml[i - 1] >= '0' && yaml[i - 1] <= '9') {
      afterPoint = true;
      digitsAfterPoint = 0;
    } else if (afterPoint && digit) {
      ++digitsAfterPoint;
      EXPECT_LT(digitsAfterPoint, 12u) << yaml.substr(i - std::min<size_t>(i, 20), 40);
    } else {
      afterPoint = false;
    }
  }
}

}  // namespace
}  // namespace ascendsim::spec
