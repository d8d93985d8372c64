// A cluster's network, from the RoCE NIC's frame arithmetic to a copy between NPUs of two
// servers: the wire bytes a NIC charges, the rate it runs at (the slower of its own and the
// switch port's), the way the router takes between servers, and the time a large RDMA write
// takes. Every figure is written out here from the settings given.
#include <gtest/gtest.h>

#include <memory>

#include "models/link/network_switch.h"
#include "models/link/roce_link.h"
#include "models/machine/router.h"
#include "scheduled_machine.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

spec::NicSpec nic200() {
  spec::NicSpec s;
  s.rate = 25e9;  // 200 Gb/s
  s.latency = 1000000;
  s.mtu = 4096;
  s.frameOverhead = 82;  // 8 + 14 + 20 + 8 + 12 + 4 + 4 + 12 (RoCE v2 over IPv4, with the gap)
  return s;
}

TEST(RoceLink, ChargesOneFrameOverheadPerMtuOfPayload) {
  ResourceTable table;
  const std::unique_ptr<Link> link = makeNic(nic200(), "s0-npu0", 50e9, 3, 4, table);
  // A row of 10000 B is 3 frames (10000 / 4096 rounded up): 10000 + 3 x 82 = 10246 B on the
  // wire, at 25 GB/s (the NIC is slower than the 50 GB/s port): 409.84 ns.
  const Stage write = link->carry(0, Traffic::Write, Shape{10000, 1}, Framing{});
  EXPECT_EQ(write.bytes, 10246u);
  EXPECT_NEAR(write.occupancy, 409840, 1);
  EXPECT_EQ(write.latency, 1000000);
  EXPECT_EQ(write.resource->name, "s0-npu0.nic.out");
  EXPECT_EQ(link->wire(1).name, "s0-npu0.nic.in");
  // A read request is its frames' overhead only.
  EXPECT_EQ(link->carry(0, Traffic::ReadRequest, Shape{10000, 1}, Framing{}).bytes, 3u * 82);
  // Long writes in 64 KiB pieces: 16 frames each, 65536 / (65536 + 16 x 82) of 25 GB/s.
  EXPECT_NEAR(link->payloadRate(Traffic::Write, 65536, Framing{}), 25e9 * 65536 / 66848, 1e3);
  EXPECT_STREQ(link->kind(), "roce");
  EXPECT_EQ(link->topologyBit(), 0u);
  EXPECT_EQ(link->describe(), "RoCE 200 Gb/s, MTU 4096");
}

TEST(RoceLink, RunsAtTheSwitchPortsRateWhenThatIsSlower) {
  ResourceTable table;
  const std::unique_ptr<Link> link = makeNic(nic200(), "npu0", 12.5e9, 0, 1, table);
  EXPECT_DOUBLE_EQ(link->bandwidth(), 12.5e9);
  // 4096 B in one frame of 4178 B at 12.5 GB/s: 334.24 ns.
  EXPECT_NEAR(link->carry(0, Traffic::Write, Shape{4096, 1}, Framing{}).occupancy, 334240, 1);
}

TEST(EthernetSwitch, IsBuiltByName) {
  spec::NetworkSwitchSpec s;
  s.portRate = 50e9;
  s.latency = 600000;
  const std::unique_ptr<NetworkSwitch> sw = makeNetworkSwitch(s);
  EXPECT_EQ(sw->latency(), 600000);
  EXPECT_DOUBLE_EQ(sw->portRate(), 50e9);
  EXPECT_EQ(sw->describe(), "Ethernet switch, 50.0 GB/s per port, 600 ns");
  s.model = "infiniband";
  EXPECT_THROW(makeNetworkSwitch(s), std::invalid_argument);
}

const char* kTwoServers = R"(
name: two
cluster:
  servers:
    - { name: s0, extends: atlas-800t-a2 }
    - { name: s1, extends: atlas-800t-a2 }
  nic: { model: roce, rate: 200Gb/s, latency: 1us, mtu: 4096, frame_overhead: 82 }
  switch: { model: ethernet, port_rate: 400Gb/s, latency: 600ns }
)";

TEST(Cluster, RoutesBetweenServersThroughBothNicsAndTheSwitch) {
  const spec::SystemSpec sys = spec::loadSystemSpecFromText(kTwoServers, "two.yaml");
  MachineGraph graph(sys);
  Router router(graph);
  const int a = sys.findDevice("s0-npu2"), b = sys.findDevice("s1-npu5"),
            c = sys.findDevice("s0-npu6");
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  const Route& r = router.route(Endpoint::of(a), Endpoint::of(b), a);
  ASSERT_EQ(r.crossings.size(), 2u);
  EXPECT_EQ(r.crossings[0].link->wire(r.crossings[0].direction).name, "s0-npu2.nic.out");
  EXPECT_EQ(r.crossings[1].link->wire(r.crossings[1].direction).name, "s1-npu5.nic.in");
  // The sender's NIC and the switch, then the receiver's NIC: 1 us + 600 ns + 1 us.
  EXPECT_EQ(r.crossings[0].latency + r.crossings[1].latency, 2600000);
  EXPECT_TRUE(router.overNetwork(a, b));
  EXPECT_FALSE(router.overNetwork(a, c));
  EXPECT_EQ(router.topology(a, b), Topology::Sys);
  EXPECT_EQ(router.topology(a, c), Topology::Hccs);  // inside a server: its HCCS mesh
  std::string why;
  EXPECT_FALSE(router.peersAllowed(a, b, &why));
  EXPECT_NE(why.find("different servers"), std::string::npos) << why;
  EXPECT_TRUE(router.peersAllowed(a, c));
}

TEST(Cluster, AnRdmaWriteBetweenServersRunsAtTheNicsPayloadRate) {
  // 256 MiB from s0-npu0 to s1-npu0 on s0-npu0's DMA: the NICs' 25 GB/s carries 65536 of every
  // 66848 bytes (64 KiB chunks, 16 frames of 82 B overhead each): 24.5093 GB/s; HBM on both
  // sides is far faster.
  Machine m(spec::loadSystemSpecFromText(kTwoServers, "two.yaml"));
  const int a = m.spec().findDevice("s0-npu0"), b = m.spec().findDevice("s1-npu0");
  const uint64_t bytes = 256ull << 20;
  m.copy(a, {MemoryPlace::Kind::Device, a, 0}, {MemoryPlace::Kind::Device, b, 0}, bytes);
  m.run();
  const double rate = static_cast<double>(bytes) / (static_cast<double>(m.end(0)) * 1e-12);
  // 0.5 %: the task's launch and DMA setup (2 us) and the first chunk's way (2.6 us of latency)
  // are 0.04 % of the 10.95 ms.
  EXPECT_NEAR(rate / (25e9 * 65536 / 66848), 1.0, 0.005) << rate / 1e9 << " GB/s";
}

}  // namespace
}  // namespace ascendsim::models
