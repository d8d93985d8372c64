// Whole-machine PCIe behaviour through the SystemC device schedulers: shared switch uplinks,
// peer-to-peer under a switch, and both directions of one link at once.
#include <gtest/gtest.h>

#include <memory>

#include "models/pcie/pcie_protocol.h"
#include "scheduled_machine.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

MemoryPlace host() { return {MemoryPlace::Kind::HostPinned, -1, 0}; }
MemoryPlace dev(int d) { return {MemoryPlace::Kind::Device, d, 0}; }

// D2H payload rate of a Gen4 x16 link at MPS 256: TLP rate x 256 / (256 + 24).
double gen4WriteRate(const spec::PcieLinkSpec& l) { return pcie::tlpBandwidth(l, 256) * 256.0 / 280.0; }

void devicesShareTheUplink(int devices) {
  // atlas-800t-a2: npu0..npu3 under sw0, whose Gen4 x16 uplink equals each NPU's own link, so
  // N NPUs writing to the host at once share it: together they get one link's D2H rate, and the
  // last finishes N times later than one NPU alone would.
  Machine m("atlas-800t-a2");
  const uint64_t bytes = 256ull << 20;
  for (int d = 0; d < devices; ++d) m.copy(d, dev(d), host(), bytes);
  m.run();
  Picoseconds last = 0;
  for (int d = 0; d < devices; ++d) last = std::max(last, m.end(static_cast<size_t>(d)));
  const double aggregate = static_cast<double>(bytes) * devices / (static_cast<double>(last) * 1e-12);
  EXPECT_NEAR(aggregate / gen4WriteRate(m.spec().devices[0].link), 1.0, 0.03) << aggregate / 1e9 << " GB/s";
  EXPECT_EQ(m.resource("sw0.uplink.up").bytes, pcie::writeWireBytes(64 * 1024, 256, false) * devices * (bytes / (64 * 1024)));
  // Each NPU progressed alongside the others (chunks interleave), so all end close together.
  for (int d = 0; d < devices; ++d) EXPECT_GT(m.end(static_cast<size_t>(d)), last * 9 / 10);
}

TEST(Fabric, TwoDevicesBehindOneSwitchShareItsUplink) { devicesShareTheUplink(2); }
TEST(Fabric, FourDevicesBehindOneSwitchShareItsUplink) { devicesShareTheUplink(4); }

TEST(Fabric, DevicesUnderDifferentSwitchesDoNotShare) {
  // npu0 (sw0) and npu4 (sw1) each get a full link's rate.
  Machine m("atlas-800t-a2");
  const uint64_t bytes = 256ull << 20;
  m.copy(0, dev(0), host(), bytes);
  m.copy(4, dev(4), host(), bytes);
  m.run();
  for (size_t i = 0; i < 2; ++i) {
    const double rate = static_cast<double>(bytes) / (static_cast<double>(m.end(i)) * 1e-12);
    EXPECT_NEAR(rate / gen4WriteRate(m.spec().devices[0].link), 1.0, 0.03);
  }
}

TEST(Fabric, PeerToPeerUnderOneSwitchLeavesTheUplinkIdle) {
  // atlas-300i-duo: the two chips of card0 talk through the card's switch, never its uplink.
  Machine m("atlas-300i-duo");
  m.copy(0, dev(0), dev(1), 64ull << 20);
  m.run();
  EXPECT_EQ(m.resource("card0.uplink.up").bytes, 0u);
  EXPECT_EQ(m.resource("card0.uplink.down").bytes, 0u);
  EXPECT_EQ(m.resource("host.memory").bytes, 0u);
  EXPECT_GT(m.resource("npu0.link.up").bytes, 64ull << 20);
  EXPECT_GT(m.resource("npu1.link.down").bytes, 64ull << 20);
  // And it runs at the write rate of the links it crosses.
  const double rate = static_cast<double>(64ull << 20) / (static_cast<double>(m.end(0)) * 1e-12);
  EXPECT_NEAR(rate / gen4WriteRate(m.spec().devices[0].link), 1.0, 0.03);
}

TEST(Fabric, HccsPeerCopiesLeavePcieIdleAndRunAtTheLinkRate) {
  // atlas-800t-a2: npu0 copies 64 MiB to each of its seven HCCS peers at once. Each link carries
  // 8 lanes x 56 Gb/s = 56 GB/s of packets with 256 B of data and 16 B of overhead: 52.71 GB/s of
  // payload, and the seven links do not share: 7 x 52.71 = 368.9 GB/s out of npu0.
  Machine m("atlas-800t-a2");
  const uint64_t bytes = 64ull << 20;
  for (int d = 1; d < 8; ++d) m.copy(0, dev(0), dev(d), bytes);
  m.run();
  const double perLink = 56e9 * 256 / 272;
  for (size_t i = 0; i < 7; ++i) {
    const double rate = static_cast<double>(bytes) / (static_cast<double>(m.end(i) - m.start(i)) * 1e-12);
    EXPECT_NEAR(rate / perLink, 1.0, 0.05) << "npu0 -> npu" << i + 1 << ": " << rate / 1e9 << " GB/s";
  }
  EXPECT_EQ(m.resource("npu0.link.up").bytes, 0u);
  EXPECT_EQ(m.resource("sw0.uplink.up").bytes, 0u);
  EXPECT_EQ(m.resource("hccs.npu0>npu1").bytes, bytes + bytes / 256 * 16);
  EXPECT_EQ(m.resource("hccs.npu1>npu0").bytes, 0u);
}

// Eight host threads each copy 256 MiB of pageable memory to their own NPU of the 800T A2.
double pageableAggregate(uint32_t engines) {
  spec::SystemSpec sys = spec::loadSystemSpec("atlas-800t-a2");
  sys.host.cpuCopyEngines = engines;
  Machine m(sys);
  const uint64_t bytes = 256ull << 20;
  for (int d = 0; d < 8; ++d) m.copy(d, {MemoryPlace::Kind::HostPageable, -1, 0}, dev(d), bytes, d);
  m.run();
  Picoseconds last = 0;
  for (size_t i = 0; i < 8; ++i) last = std::max(last, m.end(i));
  return static_cast<double>(bytes) * 8 / (static_cast<double>(last) * 1e-12);
}

TEST(Fabric, PageableCopiesFromEightThreadsScale) {
  // Each thread stages its own copy on its own core (10 GB/s each), so eight run at once until the
  // two switch uplinks (2 x 26.3 GB/s of H2D) bind: well over four cores' worth.
  const double rate = pageableAggregate(0);
  EXPECT_GT(rate, 40e9) << rate / 1e9 << " GB/s";
  EXPECT_LT(rate, 2 * 26.4e9) << rate / 1e9 << " GB/s";
}

TEST(Fabric, PageableCopiesShareOneConfiguredCopyEngine) {
  // host.cpu_copy_engines: 1: the eight copies take turns on one 10 GB/s core.
  const double rate = pageableAggregate(1);
  EXPECT_NEAR(rate / 10e9, 1.0, 0.05) << rate / 1e9 << " GB/s";
}

TEST(Fabric, BothDirectionsOfOneLinkAtOnce) {
  // The default machine: H2D and D2H at once on npu0's Gen4 x16 link. Completions have the down
  // direction to themselves: 256 / 276 of the TLP rate. The up direction carries the D2H writes
  // and the H2D read requests (24 B per 512 B read), so D2H gets the rest:
  // (TLP - H2D x 24 / 512) x 256 / 280.
  Machine m("default");
  const uint64_t bytes = 256ull << 20;
  m.copy(0, host(), dev(0), bytes);
  m.copy(0, dev(0), host(), bytes);
  m.run();
  const spec::PcieLinkSpec& l = m.spec().devices[0].link;
  const double tlp = pcie::tlpBandwidth(l, 256);
  const double h2d = static_cast<double>(bytes) / (static_cast<double>(m.end(0)) * 1e-12);
  const double d2h = static_cast<double>(bytes) / (static_cast<double>(m.end(1)) * 1e-12);
  const double expectedH2d = tlp * 256 / 276;
  const double expectedD2h = (tlp - expectedH2d * 24 / 512) * 256 / 280;
  EXPECT_NEAR(h2d / expectedH2d, 1.0, 0.03) << h2d / 1e9;
  EXPECT_NEAR(d2h / expectedD2h, 1.0, 0.03) << d2h / 1e9;
}


TEST(Fabric, EachDeviceIsTimedByItsOwnCopyModel) {
  // Two NPUs on root ports of their own, one with `dma.model: fixed-rate`, one with `pcie`; each
  // copies 64 MiB H2D at the same time. The fixed-rate device takes the task launch (1 us, the
  // default), its DMA setup (1 us) and the bytes at the Gen4 x16 line rate, 16 GT/s x 16 x 128/130
  // / 8 = 31.508 GB/s: 2131.9 us. The
  // pcie device pays TLP headers and read round trips and must come out slower than the line rate
  // (pcie-bench's Gen4 x16 MPS 256 read-limited figure is about 26 GB/s).
  spec::SystemSpec sys = spec::loadSystemSpecFromText(R"(
extends: default
devices:
  - model: Ascend 910B4
    port: rc.0
    link: { generation: 4, lanes: 16, mps: 256, mrrs: 512 }
    memory: { preset: hbm2e, stacks: 2, capacity: 32GiB }
    dma: { model: fixed-rate, setup_latency: 1us }
  - model: Ascend 910B4
    port: rc.1
    link: { generation: 4, lanes: 16, mps: 256, mrrs: 512 }
    memory: { preset: hbm2e, stacks: 2, capacity: 32GiB }
    dma: { model: pcie, setup_latency: 1us }
)",
                                                      "two-models.yaml");
  Machine m(sys);
  const uint64_t bytes = 64ull << 20;
  m.copy(0, {MemoryPlace::Kind::HostPinned, -1, 0}, dev(0), bytes);
  m.copy(1, {MemoryPlace::Kind::HostPinned, -1, 0}, dev(1), bytes);
  m.run();
  const double fixedUs = static_cast<double>(m.end(0) - m.start(0)) * 1e-6;
  EXPECT_NEAR(fixedUs, 2.0 + 67108864.0 / (16e9 * 16 * 128 / 130 / 8) * 1e6, 0.5);
  const double pcieRate = static_cast<double>(bytes) / (static_cast<double>(m.end(1) - m.start(1)) * 1e-12);
  EXPECT_LT(pcieRate, 0.9 * 16e9 * 16 * 128 / 130 / 8);
  EXPECT_GT(pcieRate, 0.7 * 16e9 * 16 * 128 / 130 / 8);
}

}  // namespace
}  // namespace ascendsim::models
