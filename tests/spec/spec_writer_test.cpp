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

}  // namespace
}  // namespace ascendsim::spec
