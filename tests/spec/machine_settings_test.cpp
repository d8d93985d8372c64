// Every setting of a machine config is declared once (spec/machine_settings.cpp) and that one
// declaration reads and writes it. These tests prove the two reach the same member: a setting
// changed in a machine's YAML comes back from `config show` changed, whatever its section.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "spec/machine_settings.h"
#include "spec/spec_writer.h"
#include "spec/system_loader.h"

namespace ascendsim::spec {
namespace {

// A node of a YAML tree by path: map keys, or list indices written as numbers.
YAML::Node at(YAML::Node node, const std::vector<std::string>& path) {
  for (const std::string& step : path) {
    if (node.IsSequence()) {
      node.reset(node[static_cast<size_t>(std::stoul(step))]);
    } else {
      node.reset(node[step]);
    }
  }
  return node;
}

// For every setting of `settings` that has a sample: write `machine` with config show, set the
// key at `path` to the sample, load that, and expect config show to give the sample back (and the
// sample to differ from what was there, so that the test sees a change).
template <class Spec>
void expectEverySampleComesBack(const std::string& machine, const std::vector<std::string>& path,
                                const Settings<Spec>& settings, int minSamples) {
  const SystemSpec base = loadSystemSpec(machine);
  const std::string shown = writeSystemSpecYaml(base);
  int tried = 0;
  for (const Setting<Spec>& s : settings) {
    if (s.sample.empty()) continue;
    ++tried;
    YAML::Node doc = YAML::Load(shown);
    YAML::Node section = at(doc, path);
    ASSERT_TRUE(section.IsMap()) << machine << ": no map at the section of " << s.key;
    if (section[s.key]) {
      EXPECT_NE(section[s.key].template as<std::string>(), s.sample) << s.key;
    }
    section[s.key] = s.sample;
    YAML::Emitter out;
    out << doc;
    SystemSpec changed;
    try {
      changed = loadSystemSpecFromText(out.c_str(), "changed.yaml");
    } catch (const ConfigError& e) {
      ADD_FAILURE() << s.key << " = " << s.sample << " was refused: " << e.what();
      continue;
    }
    const YAML::Node again = at(YAML::Load(writeSystemSpecYaml(changed)), path);
    ASSERT_TRUE(again[s.key]) << s.key << " is not written back";
    EXPECT_EQ(again[s.key].template as<std::string>(), s.sample) << s.key;
  }
  // Settings without a sample are those whose valid values depend on the rest of the machine.
  EXPECT_GE(tried, minSamples);
}

TEST(MachineSettings, ThreadSocketsAndThreadPlacementComeBack) {
  // A list, so no scalar sample: two sockets, threads on [1, 0], buffers by first touch.
  const SystemSpec sys = loadSystemSpecFromText(
      "extends: default\nhost:\n  memory_socket: thread\n  thread_sockets: [1, 0]\n"
      "pcie:\n  root_complex: { ports: 2, sockets: [0, 1] }\n",
      "threads.yaml");
  ASSERT_EQ(sys.host.threadSockets, (std::vector<uint32_t>{1, 0}));
  EXPECT_EQ(sys.host.socketOfThread(2), 1u);  // past the list's end: from its start again
  const SystemSpec again = loadSystemSpecFromText(writeSystemSpecYaml(sys), "shown.yaml");
  EXPECT_EQ(again.host.threadSockets, sys.host.threadSockets);
  EXPECT_EQ(again.host.memoryPlacement, HostPlacement::Thread);
  const YAML::Node host = YAML::Load(writeSystemSpecYaml(sys))["host"];
  EXPECT_EQ(host["memory_socket"].as<std::string>(), "thread");
  EXPECT_EQ(host["thread_sockets"].size(), 2u);
}

TEST(MachineSettings, SeveralUplinksComeBack) {
  // `upstream` as a list, so no scalar sample: a switch on root ports 0 and 1.
  const SystemSpec sys = loadSystemSpecFromText(
      "extends: default\npcie:\n  root_complex: { ports: 2, sockets: [0, 1] }\n  switches:\n"
      "    - { name: sw0, upstream: [rc.0, rc.1], ports: 2 }\ndevices: !replace\n  - port: sw0.0\n"
      "    memory: { preset: hbm2e }\n",
      "uplinks.yaml");
  ASSERT_EQ(sys.switches.size(), 1u);
  EXPECT_EQ(sys.switches[0].upstream, "rc.0");
  EXPECT_EQ(sys.switches[0].moreUpstreams, (std::vector<std::string>{"rc.1"}));
  const SystemSpec again = loadSystemSpecFromText(writeSystemSpecYaml(sys), "shown.yaml");
  EXPECT_EQ(again.switches[0].upstream, "rc.0");
  EXPECT_EQ(again.switches[0].moreUpstreams, sys.switches[0].moreUpstreams);
}

TEST(MachineSettings, EverySettingIsReadAndWrittenByItsOneDeclaration) {
  // Trace formats register in the engine (runtime/trace), which these tests do not link: the
  // format is checked by cli.config_fields.docs_generated and the trace tests instead.
  Settings<TraceSpec> trace = traceSettings();
  for (Setting<TraceSpec>& s : trace) {
    if (s.key == "format" || s.key == "report_format") s.sample.clear();
  }
  expectEverySampleComesBack("default", {"trace"}, trace, 5);
  expectEverySampleComesBack("default", {"host"}, hostSettings(), 3);
  expectEverySampleComesBack("default", {"host", "socket_link"}, socketLinkSettings(), 2);
  expectEverySampleComesBack("default", {"host", "api_overhead"}, apiOverheadSettings(), 16);
  expectEverySampleComesBack("default", {"pcie", "root_complex"}, rootComplexSettings(), 6);
  expectEverySampleComesBack("atlas-800t-a2", {"pcie", "switches", "0"}, switchSettings(), 2);
  expectEverySampleComesBack("default", {"devices", "0"}, deviceSettings(), 2);
  expectEverySampleComesBack("default", {"devices", "0", "dma"}, dmaSettings(), 7);
  expectEverySampleComesBack("default", {"devices", "0", "scheduler"}, schedulerSettings(), 4);
  expectEverySampleComesBack("default", {"devices", "0", "aicore"}, aiCoreSettings(), 9);
  expectEverySampleComesBack("default", {"devices", "0", "link"}, pcieLinkSettings(), 9);
  expectEverySampleComesBack("atlas-800t-a2", {"pcie", "switches", "0", "link"}, pcieLinkSettings(),
                             9);
  expectEverySampleComesBack("atlas-800t-a2", {"device_links", "0"}, deviceLinkSettings(), 6);
}

TEST(MachineSettings, ClusterSettingsComeBackToo) {
  const std::string dir = ASCENDSIM_SOURCE_DIR;
  expectEverySampleComesBack(dir + "/examples/hccl_whatif/two-a2-roce.yaml", {"cluster", "nic"},
                             nicSettings(), 4);
  expectEverySampleComesBack(dir + "/examples/hccl_whatif/two-a2-roce.yaml", {"cluster", "switch"},
                             networkSwitchSettings(), 2);
}

// What the docs tables show: one row per key, and each key once in its section.
TEST(MachineSettings, EverySectionHasUniqueKeysAndADocumentedMeaning) {
  for (const SettingsTable& t : settingsTables()) {
    std::set<std::string> keys;
    EXPECT_FALSE(t.rows.empty()) << t.section;
    for (const SettingRow& row : t.rows) {
      EXPECT_TRUE(keys.insert(row.key).second) << t.section << "." << row.key << " twice";
      EXPECT_FALSE(row.meaning.empty()) << t.section << "." << row.key;
      // (trace.format and report_format list registered formats: none in these tests, see above)
      if (t.section != "trace" || (row.key != "format" && row.key != "report_format")) {
        EXPECT_FALSE(row.allowed.empty()) << t.section << "." << row.key;
      }
    }
  }
}

// The docs' defaults come from the spec structs' own initial values: the DMA engine count is 4
// and its setup latency 1 us (DmaSpec), the link generation 4 (PcieLinkSpec).
TEST(MachineSettings, DefaultsAreTheStructsOwn) {
  const std::vector<SettingsTable> tables = settingsTables();
  auto row = [&](const std::string& section, const std::string& key) {
    const SettingsTable* t = findSettingsTable(tables, section);
    EXPECT_NE(t, nullptr) << section;
    for (const SettingRow& r : t->rows) {
      if (r.key == key) return r;
    }
    ADD_FAILURE() << section << "." << key;
    return SettingRow{};
  };
  EXPECT_EQ(row("devices[].dma", "engines").defaultText, "4");
  EXPECT_EQ(row("devices[].dma", "setup_latency").defaultText, "`1us`");
  EXPECT_EQ(row("devices[].dma", "setup_latency").allowed, "0 .. 1s");
  EXPECT_EQ(row("link", "generation").defaultText, "4");
  EXPECT_EQ(row("host", "cpu_copy_bandwidth").allowed, "1MB/s .. 10TB/s");
}

// A key no declaration knows is refused where it is written, as before.
TEST(MachineSettings, UnknownKeysAreStillRefused) {
  const std::string yaml =
      "host:\n  memory: { preset: ddr4-3200 }\ndevices:\n  - port: rc.0\n"
      "    memory: { preset: hbm2e }\n    dma: { engins: 2 }\n";
  try {
    loadSystemSpecFromText(yaml, "typo.yaml");
    FAIL() << "a misspelt key was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("engins"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("engines"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ascendsim::spec
