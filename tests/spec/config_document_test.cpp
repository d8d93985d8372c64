// `extends`: a file that restates a list of the machine it extends merges the restated entries
// with the inherited ones (devices by position or name, switches by name, device links by their
// ends), or is refused at its line with a hint; `!replace` replaces. The expectations are the
// preset's own figures (configs/atlas-800t-a2.yaml) with only the restated field changed.
#include <gtest/gtest.h>

#include "spec/spec_writer.h"
#include "spec/system_loader.h"

namespace ascendsim::spec {
namespace {

std::string refusal(const std::string& yaml) {
  try {
    loadSystemSpecFromText(yaml, "study.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

// The Must-show case of #32: restating `devices:` to change one field keeps every other field
// of the preset: the whole machine, written out, is the preset's with 32 GiB instead of 64 GiB on
// each of the eight devices.
TEST(Extends, RestatedDevicesKeepEveryInheritedField) {
  const SystemSpec study = loadSystemSpecFromText(
      "extends: atlas-800t-a2\ndevices:\n  - memory: { capacity: 32GiB }\n", "study.yaml");
  SystemSpec expected = loadSystemSpec("atlas-800t-a2");
  ASSERT_EQ(expected.devices.size(), 8u);
  for (DeviceSpec& d : expected.devices) d.memory.capacity = 32ull << 30;
  EXPECT_EQ(writeSystemSpecYaml(study), writeSystemSpecYaml(expected));
  // The fields the issue saw reset, one by one, against the preset file's text.
  const DeviceSpec& d = study.devices[5];
  EXPECT_EQ(d.name, "npu5");
  EXPECT_EQ(d.model, "Ascend 910B");
  EXPECT_EQ(d.soc, "Ascend910B3");
  EXPECT_EQ(d.port, "sw1.1");
  EXPECT_EQ(d.link.tags, 256u);
  EXPECT_EQ(d.link.latency, 20000);  // 20 ns in ps
  EXPECT_EQ(d.memory.preset, "hbm2e");
  EXPECT_EQ(d.memory.capacity, 32ull << 30);
  EXPECT_EQ(d.aicore.cores, 48u);
  EXPECT_DOUBLE_EQ(d.aicore.clock, 1.8e9);
  EXPECT_EQ(d.dma.engines, 1u);
  EXPECT_EQ(d.dma.channelsPerEngine, 13u);
  EXPECT_EQ(d.scheduler.taskLaunch, 1000000);  // 1 us in ps
  EXPECT_EQ(study.deviceLinks.size(), 28u);    // the full mesh of 8: 8 * 7 / 2
}

// Naming one device of the preset's group of eight changes that device alone; the group is
// picked apart on its ports, so names and ports stay as they were.
TEST(Extends, NamingOneDeviceOfAGroupChangesItAlone) {
  const SystemSpec study = loadSystemSpecFromText(
      "extends: atlas-800t-a2\ndevices:\n  - { name: npu3, dma: { channels_per_engine: 4 } }\n",
      "study.yaml");
  const SystemSpec preset = loadSystemSpec("atlas-800t-a2");
  ASSERT_EQ(study.devices.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(study.devices[i].name, "npu" + std::to_string(i));
    EXPECT_EQ(study.devices[i].port, preset.devices[i].port);
    EXPECT_EQ(study.devices[i].dma.channelsPerEngine, i == 3 ? 4u : 13u) << i;
    EXPECT_EQ(study.devices[i].memory.capacity, 64ull << 30);
  }
}

TEST(Extends, SwitchesMergeByName) {
  const SystemSpec study = loadSystemSpecFromText(
      "extends: atlas-800t-a2\npcie:\n  switches:\n    - { name: sw1, latency: 200ns }\n",
      "study.yaml");
  ASSERT_EQ(study.switches.size(), 2u);
  EXPECT_EQ(study.switches[0].latency, 105000);  // the preset's 105 ns
  EXPECT_EQ(study.switches[1].latency, 200000);
  EXPECT_EQ(study.switches[1].upstream, "rc.1");
  EXPECT_EQ(study.switches[1].ports, 4u);
  EXPECT_EQ(study.switches[1].link.generation, 4u);
}

// A link restated with the same ends merges: the mesh keeps its 28 links, at 4 lanes.
TEST(Extends, DeviceLinksMergeByTheirEnds) {
  const SystemSpec study = loadSystemSpecFromText(
      "extends: atlas-800t-a2\ndevice_links:\n  - { pattern: full-mesh, lanes: 4 }\n",
      "study.yaml");
  ASSERT_EQ(study.deviceLinks.size(), 28u);
  for (const DeviceLinkSpec& l : study.deviceLinks) {
    EXPECT_EQ(l.lanes, 4u);
    EXPECT_DOUBLE_EQ(l.transferRate, 19.3e9);  // kept from the preset
  }
}

// Links with other ends are added, and clash with the inherited mesh: refused at the file's
// line and column, naming where the inherited one is and how to replace the list.
TEST(Extends, ClashingLinkIsRefusedWithAHint) {
  const std::string e =
      refusal("extends: atlas-800t-a2\ndevice_links:\n  - { model: hccs, groups-of: 4 }\n");
  EXPECT_NE(e.find("study.yaml:3:5: error: device_links[1]: devices npu0 and npu1 are already "
                   "linked by device_links[0] (that one is inherited from "
                   "<builtin>/atlas-800t-a2.yaml:"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("device_links: !replace"), std::string::npos) << e;
}

// `!replace` replaces: two meshes of four have 2 * 4 * 3 / 2 = 12 links.
TEST(Extends, ReplaceTagReplacesTheInheritedList) {
  const SystemSpec study = loadSystemSpecFromText(
      "extends: atlas-800t-a2\ndevice_links: !replace\n  - { model: hccs, groups-of: 4 }\n",
      "study.yaml");
  EXPECT_EQ(study.deviceLinks.size(), 12u);
  EXPECT_EQ(study.deviceLinks[0].lanes, 8u);  // DeviceLinkSpec's own default, not the preset's
  const SystemSpec one = loadSystemSpecFromText(
      "extends: atlas-800t-a2\ndevice_links: !replace []\n"
      "devices: !replace\n  - { port: sw0.0, memory: { preset: hbm2e } }\n",
      "study.yaml");
  ASSERT_EQ(one.devices.size(), 1u);
  EXPECT_TRUE(one.devices[0].soc.empty());  // not the preset's Ascend910B3
}

// A map merges key by key: the default machine's host memory (4 channels, 128 GiB) keeps its
// channels and capacity under another preset; tagged !replace, the section is the preset's alone.
TEST(Extends, ReplaceTagReplacesAnInheritedMap) {
  const SystemSpec merged = loadSystemSpecFromText(
      "extends: default\nhost:\n  memory: { preset: ddr5-4800 }\n", "study.yaml");
  EXPECT_EQ(merged.host.memory.channels, 4u);
  EXPECT_EQ(merged.host.memory.capacity, 128ull << 30);
  const SystemSpec replaced = loadSystemSpecFromText(
      "extends: default\nhost:\n  memory: !replace { preset: ddr5-4800 }\n", "study.yaml");
  const DramSpec preset = loadMemorySpec("ddr5-4800");
  EXPECT_EQ(replaced.host.memory.channels, preset.channels);
  EXPECT_EQ(replaced.host.memory.capacity, preset.capacity);
  EXPECT_NE(preset.capacity, 128ull << 30);  // so that the two cases differ
}

TEST(Extends, AnotherDeviceIsAddedPastTheEnd) {
  // The default machine has one device on rc.0 and two root ports.
  const SystemSpec study = loadSystemSpecFromText(
      "extends: default\ndevices:\n  - {}\n  - { port: rc.1, memory: { preset: hbm2e } }\n",
      "study.yaml");
  ASSERT_EQ(study.devices.size(), 2u);
  EXPECT_EQ(study.devices[0].soc, "Ascend910B4");  // inherited
  EXPECT_EQ(study.devices[1].port, "rc.1");
  EXPECT_TRUE(study.devices[1].soc.empty());  // a new device inherits nothing
}

TEST(Extends, PortOfAGroupRestatedAsOneIsRefusedWithTheInheritedCount) {
  const std::string e = refusal("extends: atlas-800t-a2\ndevices:\n  - { port: sw0.0 }\n");
  EXPECT_NE(e.find("study.yaml:3:13: error: devices[0].port: 1 port(s) given for 8 device(s) "
                   "(count: 8 is inherited from <builtin>/atlas-800t-a2.yaml:"),
            std::string::npos)
      << e;
}

TEST(Extends, EmptyListAndUnknownTagAreRefused) {
  std::string e = refusal("extends: atlas-800t-a2\ndevices: []\n");
  EXPECT_NE(e.find("study.yaml:2:10: error: devices: an empty list under `extends` leaves the 1 "
                   "inherited entries"),
            std::string::npos)
      << e;
  e = refusal("extends: atlas-800t-a2\ndevices: !replce []\n");
  EXPECT_NE(e.find("study.yaml:2:10: error: devices: unknown tag '!replce'"), std::string::npos)
      << e;
}

}  // namespace
}  // namespace ascendsim::spec
