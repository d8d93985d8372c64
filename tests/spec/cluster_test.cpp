// A cluster config: servers that extend a machine, joined into one machine with a NIC per NPU on
// one switch; written back as YAML that loads into the same machine; and its mistakes refused
// with the place and what was wrong.
#include <gtest/gtest.h>

#include "spec/spec_writer.h"
#include "spec/system_loader.h"

namespace ascendsim::spec {
namespace {

const char* kTwoServers = R"(name: two
cluster:
  servers:
    - { name: s0, extends: atlas-800t-a2 }
    - name: s1
      extends: atlas-800t-a2
      devices: [ { count: 8, dma: { setup_latency: 2us } } ]
  nic: { model: roce, rate: 200Gb/s, latency: 1us }
  switch: { model: ethernet, port_rate: 400Gb/s, latency: 600ns }
)";

TEST(Cluster, JoinsItsServersIntoOneMachine) {
  const SystemSpec sys = loadSystemSpecFromText(kTwoServers, "two.yaml");
  const SystemSpec a2 = loadSystemSpec("atlas-800t-a2");
  ASSERT_EQ(sys.cluster.servers.size(), 2u);
  EXPECT_EQ(sys.cluster.servers[1].name, "s1");
  EXPECT_EQ(sys.cluster.servers[1].firstDevice, 8u);
  EXPECT_EQ(sys.cluster.servers[1].devices, 8u);
  ASSERT_EQ(sys.devices.size(), 16u);
  EXPECT_EQ(sys.devices[0].name, "s0-npu0");
  EXPECT_EQ(sys.devices[13].name, "s1-npu5");
  EXPECT_EQ(sys.devices[13].server, 1u);
  EXPECT_EQ(sys.devices[13].localId, 5u);
  // The second server's override is its own; its switches and root ports follow the first's.
  EXPECT_EQ(sys.devices[3].dma.setupLatency, 1000000);
  EXPECT_EQ(sys.devices[11].dma.setupLatency, 2000000);
  EXPECT_EQ(sys.rootComplex.ports, 2 * a2.rootComplex.ports);
  ASSERT_EQ(sys.switches.size(), 2 * a2.switches.size());
  EXPECT_EQ(sys.switches[2].name, "s1-sw0");
  EXPECT_EQ(sys.switches[2].upstream, "rc." + std::to_string(a2.rootComplex.ports));
  EXPECT_EQ(sys.devices[13].port, "s1-sw1.1");
  EXPECT_EQ(sys.deviceLinks.size(), 2 * a2.deviceLinks.size());
  EXPECT_EQ(sys.deviceLinks.back().a.substr(0, 3), "s1-");
  EXPECT_DOUBLE_EQ(sys.cluster.nic.rate, 25e9);  // 200 Gb/s
  EXPECT_EQ(sys.cluster.nic.mtu, 4096u);         // defaults
  EXPECT_EQ(sys.cluster.nic.frameOverhead, 82u);
  EXPECT_DOUBLE_EQ(sys.cluster.networkSwitch.portRate, 50e9);
  EXPECT_EQ(sys.cluster.networkSwitch.latency, 600000);
}

TEST(Cluster, WritesBackWhatLoadsIntoTheSameMachine) {
  const SystemSpec sys = loadSystemSpecFromText(kTwoServers, "two.yaml");
  const std::string yaml = writeSystemSpecYaml(sys);
  const SystemSpec again = loadSystemSpecFromText(yaml, "again.yaml");
  EXPECT_EQ(writeSystemSpecYaml(again), yaml);
  EXPECT_EQ(again.devices.size(), 16u);
  EXPECT_EQ(again.devices[11].dma.setupLatency, 2000000);
}

std::string errorOf(const std::string& yaml) {
  try {
    loadSystemSpecFromText(yaml, "bad.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(loaded)";
}

TEST(Cluster, RefusesWhatItCannotHonour) {
  const std::string head = "cluster:\n  servers:\n    - { name: s0, extends: atlas-800t-a2 }\n";
  EXPECT_NE(errorOf(head).find("cluster.servers: expected a list of two or more servers"),
            std::string::npos)
      << errorOf(head);
  const std::string same = head + "    - { name: s0, extends: atlas-800t-a2 }\n";
  EXPECT_NE(errorOf(same).find("server 's0' is named twice"), std::string::npos) << errorOf(same);
  const std::string host =
      head + "    - { name: s1, extends: atlas-800t-a2, host: { cpu_copy_bandwidth: 5GB/s } }\n";
  EXPECT_NE(errorOf(host).find("share one simulated host"), std::string::npos) << errorOf(host);
  const std::string trace =
      head + "    - { name: s1, extends: atlas-800t-a2, trace: { path: t.json } }\n";
  EXPECT_NE(errorOf(trace).find("a cluster has one trace"), std::string::npos) << errorOf(trace);
  const std::string two = head + "    - { name: s1, extends: atlas-800t-a2 }\n";
  const std::string fast = two + "  nic: { rate: 1600Gb/s }\n";
  EXPECT_NE(errorOf(fast).find("cluster.nic.rate: a roce NIC runs at most 800 Gb/s"),
            std::string::npos)
      << errorOf(fast);
  const std::string kind = two + "  switch: { model: ethernett }\n";
  EXPECT_NE(errorOf(kind).find("did you mean 'ethernet'"), std::string::npos) << errorOf(kind);
  const std::string typo = two + "  nic: { mut: 4096 }\n";
  EXPECT_NE(errorOf(typo).find("did you mean 'mtu'"), std::string::npos) << errorOf(typo);
  const std::string missing =
      "cluster:\n  servers:\n    - { name: s0, extends: no-such }\n"
      "    - { name: s1, extends: atlas-800t-a2 }\n";
  EXPECT_NE(errorOf(missing).find("cannot find 'no-such'"), std::string::npos) << errorOf(missing);
  const std::string wrong = two + "  nics: {}\n";
  EXPECT_NE(errorOf(wrong).find("cluster.nics"), std::string::npos) << errorOf(wrong);
}

}  // namespace
}  // namespace ascendsim::spec
