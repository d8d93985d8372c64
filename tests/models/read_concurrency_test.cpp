// Read concurrency through the real DMA engine: a channel keeps at most `dma.outstanding_reads`
// MRRS-sized read requests in flight, derived by default from Little's law over the configured
// round trip. With the defaults, one H2D copy must reach pcie-bench's protocol-limited rate for
// every generation and payload size, on a root port or behind a switch, whatever the DMA chunk
// size; D2H (posted writes) likewise. Fixed per-task costs are set to 0 so the copy's own data
// path is what is measured (those costs have their own tests).
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "models/pcie/pcie_protocol.h"
#include "scheduled_machine.h"

namespace ascendsim::models {
namespace {

// Gen g x16 at payload size `mps`, MRRS 512, one NPU on a root port or behind one switch, with
// the generation's default tags (768 from Gen4 on, 256 before) and default outstanding reads.
spec::SystemSpec machine(uint32_t gen, uint64_t mps, bool behindSwitch, const std::string& chunk) {
  const std::string link = "{ generation: " + std::to_string(gen) + ", lanes: 16, mps: " + std::to_string(mps) +
                           ", mrrs: 512, latency: 20ns }";
  std::string yaml =
      "host: { memory: { preset: ddr4-3200, channels: 8, capacity: 64GiB } }\n"
      "pcie:\n  root_complex: { ports: 2, latency: 250ns }\n";
  if (behindSwitch) yaml += "  switches: [ { name: sw0, upstream: rc.0, ports: 2, latency: 105ns, link: " + link + " } ]\n";
  yaml += "devices: [ { port: " + std::string(behindSwitch ? "sw0.0" : "rc.0") + ", link: " + link +
          ", memory: { preset: hbm2e, stacks: 4, capacity: 64GiB },\n"
          "              dma: { chunk_size: " + chunk + ", setup_latency: 0ns }, scheduler: { task_launch: 0ns } } ]\n";
  return spec::loadSystemSpecFromText(yaml, "read-concurrency.yaml");
}

// pcie-bench: reads are bound by completions (20 B per MPS of payload), writes by posted writes
// (24 B per MPS).
double pcieBench(const spec::PcieLinkSpec& link, bool read) {
  const double payload = static_cast<double>(link.mps);
  return pcie::tlpBandwidth(link, link.mps) * payload / (payload + (read ? 20.0 : 24.0));
}

using Params = std::tuple<uint32_t, uint64_t, bool, std::string>;
class OneCopy : public ::testing::TestWithParam<Params> {};

TEST_P(OneCopy, ReachesThePcieBenchRate) {
  const auto [gen, mps, behindSwitch, chunk] = GetParam();
  Machine m(machine(gen, mps, behindSwitch, chunk));
  const MemoryPlace host{MemoryPlace::Kind::HostPinned, -1, 0}, dev{MemoryPlace::Kind::Device, 0, 0};
  // 64 MiB one way, then the other: long enough that the round trip at each end (about 1 us)
  // weighs under 0.1 %.
  const uint64_t bytes = 64ull << 20;
  m.copy(0, host, dev, bytes);
  m.run();
  m.copy(0, dev, host, bytes);
  m.run();
  const spec::PcieLinkSpec& link = m.spec().devices[0].link;
  const double h2d = static_cast<double>(bytes) / (static_cast<double>(m.end(0) - m.start(0)) * 1e-12);
  const double d2h = static_cast<double>(bytes) / (static_cast<double>(m.end(1) - m.start(1)) * 1e-12);
  EXPECT_NEAR(h2d / pcieBench(link, true), 1.0, 0.03) << "H2D " << h2d / 1e9 << " GB/s";
  EXPECT_NEAR(d2h / pcieBench(link, false), 1.0, 0.03) << "D2H " << d2h / 1e9 << " GB/s";
}

INSTANTIATE_TEST_SUITE_P(
    GenMpsPlacementChunk, OneCopy,
    ::testing::Combine(::testing::Values(3u, 4u, 5u), ::testing::Values(128u, 256u, 512u), ::testing::Bool(),
                       ::testing::Values(std::string("4KiB"), std::string("64KiB"), std::string("64MiB"))),
    [](const auto& p) {
      return "Gen" + std::to_string(std::get<0>(p.param)) + "_MPS" + std::to_string(std::get<1>(p.param)) +
             (std::get<2>(p.param) ? "_switch_" : "_rootport_") + std::get<3>(p.param);
    });

TEST(ReadConcurrency, FewOutstandingReadsBindByLittlesLaw) {
  // 8 requests of 512 B per channel, round trip = host DDR4 (tRCD + CL + burst = 30 ns) + 2 x
  // (20 ns link + 250 ns root complex) = 570 ns: 8 x 512 B / 570 ns = 7.19 GB/s, far under Gen4's
  // 24.6 GB/s, and the same for any chunk size.
  {
    spec::SystemSpec sys = machine(4, 256, false, "64KiB");
    sys.devices[0].dma.outstandingReads = 8;
    Machine m(sys);
    const uint64_t bytes = 16ull << 20;
    m.copy(0, {MemoryPlace::Kind::HostPinned, -1, 0}, {MemoryPlace::Kind::Device, 0, 0}, bytes);
    m.run();
    const double rate = static_cast<double>(bytes) / (static_cast<double>(m.end(0) - m.start(0)) * 1e-12);
    EXPECT_NEAR(rate / (8 * 512 / 570e-9), 1.0, 0.05) << rate / 1e9 << " GB/s";
  }
}

}  // namespace
}  // namespace ascendsim::models
