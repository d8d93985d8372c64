// The host side of copies that compete (models/dma/path_timing.cpp,
// models/machine/machine_graph.cpp): each socket's host bridge per direction
// (`pcie.root_complex.bridge_inbound_bandwidth`, `bridge_outbound_bandwidth`), each root port's
// limit on both directions together
// (`port_bandwidth`) with its arbitration (`port_read_share`), and host buffers on each device's
// own NUMA node (`host.memory_socket: local`).
//
// Under reads and writes at once, a socket's host memory sustains its mixed-traffic rate in the
// root ports' read share (`host.memoryN.reads` / `.writes`, models/dma/path_timing.cpp).
//
// Two kinds of test: rate arithmetic of stated (not published) limits on a small machine, and the
// published 8 x H800 HGX run (examples/validation/hgx-h800-gen5.yaml) and 2 x 7900 XTX Gen4 run
// (examples/validation/epyc7542-7900xtx-gen4.yaml) reproduced by their machine files, where each
// figure is said to be fitted (a limit was set from it: reproducing it shows only
// that the model honours the limit the way the measurement used it, weak evidence) or predicted
// (nothing was set from it: it comes out of the protocol model and the other limits).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "scheduled_machine.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

MemoryPlace host() {
  return {MemoryPlace::Kind::HostPinned, -1, 0};
}
MemoryPlace dev(int d) {
  return {MemoryPlace::Kind::Device, d, 0};
}
double gbps(uint64_t bytes, Picoseconds t) {
  return static_cast<double>(bytes) / (static_cast<double>(t) * 1e-12) / 1e9;
}

// ------------------------------------------------------------------ rate arithmetic

// Gen4 x16, MPS 256 (PCIe Base Specification arithmetic, as tests/models/fabric_test.cpp): TLP
// rate 31.5077 GB/s x (1 - 8/168 - 8/168 - 4/1538) = 28.4250 GB/s; posted writes carry 256 B per
// 280 B (25.9886 GB/s), completions 256 B per 276 B (26.3652 GB/s).
constexpr double kGen4Tlp = 16e9 * 16 * 128.0 / 130.0 / 8 * (1.0 - 16.0 / 168 - 4.0 / 1538);
constexpr double kGen4WriteRate = kGen4Tlp * 256 / 280;
// Task launch 1 us + DMA setup 1 us of the default preset; a read's first round trip 0.54 us.
constexpr double kFixedSeconds = 2e-6;
constexpr double kReadRoundTripSeconds = 0.54e-6;
// 0.2 %: the arithmetic leaves out the last chunk's way after the limiting stage and the few
// pieces in flight when the other direction stops; a share of 0.6 instead of 0.7 moves the
// figures by 10 % or more.
constexpr double kTolerance = 0.002;

spec::SystemSpec smallMachine(const std::string& rootComplex, int devices = 1,
                              const std::string& host = "") {
  std::string ports;
  for (int d = 0; d < devices; ++d) ports += (d ? ", rc." : "rc.") + std::to_string(d);
  return spec::loadSystemSpecFromText("extends: default\n" + host +
                                          "pcie:\n  root_complex: " + rootComplex +
                                          "\ndevices:\n  - count: " + std::to_string(devices) +
                                          "\n    model: Ascend 910B4\n    ports: [" + ports +
                                          "]\n    link: { generation: 4, lanes: 16, mps: 256, "
                                          "mrrs: 512 }\n    memory: { preset: hbm2e, stacks: 2, "
                                          "capacity: 32GiB }\n",
                                      "host-contention.yaml");
}

TEST(RootPort, OneDirectionAloneUsesAllOfThePortLimit) {
  // port_bandwidth 20 GB/s, below the Gen4 x16 link: 256 MiB D2H alone takes 2 us + 256 MiB / 20
  // GB/s, the read share does not apply with no writes beside it.
  const uint64_t bytes = 256ull << 20;
  Machine m(smallMachine("{ ports: 2, port_bandwidth: 20GB/s, port_read_share: 0.7 }"));
  m.copy(0, dev(0), host(), bytes);
  m.run();
  const double expected = kFixedSeconds + bytes / 20e9;
  EXPECT_NEAR(static_cast<double>(m.end(0)) * 1e-12 / expected, 1.0, kTolerance);
  EXPECT_EQ(m.resource("rc0.port.in").bytes, bytes);
  EXPECT_EQ(m.resource("rc0.port.out").bytes, 0u);
}

TEST(RootPort, BothDirectionsShareThePortAtTheStatedReadShare) {
  // port_bandwidth 30 GB/s, port_read_share 0.7: while both directions flow the reads (H2D) get
  // 21 GB/s and the writes (D2H) 9 GB/s. Two 64 MiB copies start together: H2D ends after 2 us +
  // 0.54 us + 64 MiB / 21 GB/s (3.1980 ms); D2H has moved 9/21 of its bytes by then and moves the
  // rest alone, at min(30 GB/s, the link's 25.9886 GB/s of writes).
  const uint64_t bytes = 64ull << 20;
  Machine m(smallMachine("{ ports: 2, port_bandwidth: 30GB/s, port_read_share: 0.7 }"));
  m.copy(0, host(), dev(0), bytes);
  m.copy(0, dev(0), host(), bytes);
  m.run();
  const double h2dEnd = kFixedSeconds + kReadRoundTripSeconds + bytes / 21e9;
  const double d2hEnd = h2dEnd + bytes * (1.0 - 9.0 / 21.0) / kGen4WriteRate;
  EXPECT_NEAR(static_cast<double>(m.end(0)) * 1e-12 / h2dEnd, 1.0, kTolerance);
  // 0.5 % (measured 0.32 %): D2H pieces already booked at the shared rate when the reads end
  // keep it, about two 64 KiB chunks at 9 GB/s.
  EXPECT_NEAR(static_cast<double>(m.end(1)) * 1e-12 / d2hEnd, 1.0, 0.005);
}

// Four devices on root ports of their own (26 GB/s each way, 104 GB/s together) under host
// bridge limits per direction: the slower of the set limits binds each direction. (One machine
// per test: SystemC elaborates once per process.)
double lastOfFour(const std::string& rootComplex, bool toDevice) {
  Machine m(smallMachine(rootComplex, 4));
  return static_cast<double>(m.copyOnEach(4, toDevice, 256ull << 20)) * 1e-12;
}
const char* const kTwoBridgeLimits =
    "{ ports: 4, bridge_inbound_bandwidth: 60GB/s, bridge_outbound_bandwidth: 40GB/s }";
constexpr double kFourCopies = 4.0 * (256ull << 20);

TEST(HostBridge, InboundHasItsOwnLimit) {
  // Inbound 60 GB/s, outbound 40 GB/s: four 256 MiB D2H copies end after 2 us + 1 GiB / 60 GB/s.
  EXPECT_NEAR(lastOfFour(kTwoBridgeLimits, false) / (kFixedSeconds + kFourCopies / 60e9), 1.0,
              kTolerance);
}

TEST(HostBridge, OutboundHasItsOwnLimit) {
  // The same machine: four H2D copies end after 2 us + 0.54 us + 1 GiB / 40 GB/s.
  EXPECT_NEAR(lastOfFour(kTwoBridgeLimits, true) /
                  (kFixedSeconds + kReadRoundTripSeconds + kFourCopies / 40e9),
              1.0, kTolerance);
}

TEST(HostBridge, TheSmallerOfBothLimitsBinds) {
  // bridge_bandwidth 50 GB/s with bridge_inbound_bandwidth 60 GB/s: inbound passes 50 GB/s.
  EXPECT_NEAR(lastOfFour("{ ports: 4, bridge_bandwidth: 50GB/s, bridge_inbound_bandwidth: 60GB/s }",
                         false) /
                  (kFixedSeconds + kFourCopies / 50e9),
              1.0, kTolerance);
}

TEST(HostMemory, LocalPlacementKeepsEachDevicesBuffersOnItsOwnSocket) {
  // Two sockets, a device on each; with `memory_socket: local` each device's D2H lands in its own
  // socket's memory and nothing crosses the socket link (30 GB/s by default), so both run at the
  // link's write rate: 2 us + 256 MiB / 25.9886 GB/s.
  const uint64_t bytes = 256ull << 20;
  spec::SystemSpec sys = smallMachine("{ ports: 2, sockets: [0, 1] }", 2,
                                      "host:\n  memory: { preset: ddr4-3200, channels: 8 }\n"
                                      "  memory_socket: local\n");
  Machine m(sys);
  m.copy(0, dev(0), host(), bytes);
  m.copy(1, dev(1), host(), bytes);
  m.run();
  EXPECT_EQ(m.resource("host.memory0").bytes, bytes);
  EXPECT_EQ(m.resource("host.memory1").bytes, bytes);
  for (const Resource& r : m.system().graph().resources()) {
    if (r.name.rfind("socket", 0) == 0) {
      EXPECT_EQ(r.bytes, 0u) << r.name;
    }
  }
  const double expected = kFixedSeconds + bytes / kGen4WriteRate;
  EXPECT_NEAR(static_cast<double>(m.end(1)) * 1e-12 / expected, 1.0, 0.003);
}

// ------------------------------------------------------------------ the published H800 HGX run

// 8 x H800 HGX, PCIe Gen5 x16 per GPU, nvbandwidth v0.2 (git 42e94d2), 64 MiB copies, published
// in full in github.com/liguodongiot/llm-action, ai-infra/网络/nvbandwidth.md (commit b676a90).
// Per device, GB/s (the eight devices' range).
struct Range {
  double low, high;
};
constexpr Range kH2d{55.28, 55.34};        // host_to_device_memcpy_ce       (predicted)
constexpr Range kD2h{55.09, 55.15};        // device_to_host_memcpy_ce       (predicted)
constexpr Range kBidirH2d{52.33, 52.96};   // host_to_device_bidirectional   (fitted)
constexpr Range kBidirD2h{34.29, 34.72};   // device_to_host_bidirectional   (fitted; GPU1's
                                           // 50.50 is an outlier the fit leaves out)
constexpr Range kAllToHost{44.41, 45.12};  // all_to_host_memcpy_ce          (fitted via SUM)
constexpr double kAllToHostSum = 358.66;   //                                (fitted)
constexpr Range kHostToAll{55.11, 55.26};  // host_to_all_memcpy_ce          (predicted)
constexpr double kHostToAllSum = 441.30;   //                                (predicted)
constexpr uint64_t kCopy = 64ull << 20;
// 5 % either way of the published range, as issue #30 asks of the validation table. The fitted
// figures reproduce within 0.5 % (the limits were set from their middles); the predicted ones
// within 1 %.
constexpr double kPublishedTolerance = 0.05;

void expectWithin(double model, Range published, const char* what) {
  EXPECT_GE(model, published.low * (1 - kPublishedTolerance)) << what;
  EXPECT_LE(model, published.high * (1 + kPublishedTolerance)) << what;
}

spec::SystemSpec h800() {
  return spec::loadSystemSpec(std::string(ASCENDSIM_SOURCE_DIR) +
                              "/examples/validation/hgx-h800-gen5.yaml");
}

// Predicted: Gen5 x16 at MPS 512 (the file says why 512): 55.16 GB/s of completions and 54.75
// GB/s of writes, less 2 us of launch and setup in 1.2 ms.
double oneDeviceAlone(bool toDevice) {
  Machine m(h800());
  m.copy(0, toDevice ? host() : dev(0), toDevice ? dev(0) : host(), kCopy);
  m.run();
  const double rate = gbps(kCopy, m.end(0));
  std::printf("%s alone: %.2f GB/s\n", toDevice ? "H2D" : "D2H", rate);
  return rate;
}

TEST(HgxH800, OneDeviceAloneH2dComesFromTheProtocolModel) {
  expectWithin(oneDeviceAlone(true), kH2d, "H2D");
}

TEST(HgxH800, OneDeviceAloneD2hComesFromTheProtocolModel) {
  expectWithin(oneDeviceAlone(false), kD2h, "D2H");
}

// Fitted (port_bandwidth = 52.645 + 34.505 GB/s, port_read_share = 52.645 / 87.15): the measured
// copy of 64 MiB beside a 128 MiB copy the other way, which outlasts it, as nvbandwidth's
// *_bidirectional_memcpy_ce do.
double bothDirections(bool toDevice) {
  Machine m(h800());
  m.copy(0, toDevice ? host() : dev(0), toDevice ? dev(0) : host(), kCopy);
  m.copy(0, toDevice ? dev(0) : host(), toDevice ? host() : dev(0), 2 * kCopy);
  m.run();
  EXPECT_GT(m.end(1), m.end(0));  // the other direction was busy throughout
  const double rate = gbps(kCopy, m.end(0));
  std::printf("bidirectional %s: %.2f GB/s\n", toDevice ? "H2D" : "D2H", rate);
  return rate;
}

TEST(HgxH800, BidirectionalH2dIsTheFittedReadShare) {
  expectWithin(bothDirections(true), kBidirH2d, "bidirectional H2D");
}

TEST(HgxH800, BidirectionalD2hIsTheFittedWriteShare) {
  expectWithin(bothDirections(false), kBidirD2h, "bidirectional D2H");
}

// All eight devices copy 64 MiB at once, each host buffer on its device's socket. nvbandwidth
// times one device while the others copy 128 MiB; here all copy the same and all are timed, which
// gives the same per-device rates as long as every device copies for the whole time (checked: the
// first ends within 1 % of the last). SUM adds the per-device rates, as nvbandwidth's does.
double allAtOnce(bool toDevice, Range published) {
  Machine m(h800());
  for (int d = 0; d < 8; ++d)
    m.copy(d, toDevice ? host() : dev(d), toDevice ? dev(d) : host(), kCopy);
  m.run();
  double sum = 0;
  Picoseconds first = m.end(0), last = m.end(0);
  for (size_t d = 0; d < 8; ++d) {
    const double r = gbps(kCopy, m.end(d));
    expectWithin(r, published, toDevice ? "host_to_all per device" : "all_to_host per device");
    sum += r;
    first = std::min(first, m.end(d));
    last = std::max(last, m.end(d));
  }
  EXPECT_GT(static_cast<double>(first), 0.99 * static_cast<double>(last));
  std::printf("%s: %.2f GB/s summed\n", toDevice ? "host_to_all" : "all_to_host", sum);
  return sum;
}

TEST(HgxH800, EightDevicesToTheHostShareTheFittedBridge) {
  // Fitted: bridge_inbound_bandwidth = 358.66 / 2 sockets; per device a quarter of a socket's,
  // 44.83 GB/s.
  EXPECT_NEAR(allAtOnce(false, kAllToHost) / kAllToHostSum, 1.0, kPublishedTolerance);
}

TEST(HgxH800, HostToEightDevicesLosesNothing) {
  // Predicted: no outbound limit is set; each socket's DDR5 (eight channels, 307 GB/s) serves its
  // four devices' reads, so each keeps its single-device rate.
  EXPECT_NEAR(allAtOnce(true, kHostToAll) / kHostToAllSum, 1.0, kPublishedTolerance);
}

// All eight devices copy both ways at once, as nvbandwidth's all_to_host_bidirectional_memcpy_ce
// (D2H measured) and host_to_all_bidirectional_memcpy_ce (H2D measured) run them
// (testcase.cpp, allHostBidirHelper): each device copies 64 MiB in the measured direction and 128
// MiB the other way (which outlasts it), every host buffer on the device's own socket. Returns the
// per-device rates of the measured direction.
std::vector<double> allBothWays(bool measureToDevice) {
  Machine m(h800());
  for (int d = 0; d < 8; ++d) {
    m.copy(d, measureToDevice ? host() : dev(d), measureToDevice ? dev(d) : host(), kCopy);
    m.copy(d, measureToDevice ? dev(d) : host(), measureToDevice ? host() : dev(d), 2 * kCopy);
  }
  m.run();
  std::vector<double> rates;
  double sum = 0;
  for (size_t d = 0; d < 8; ++d) {
    EXPECT_GT(m.end(2 * d + 1), m.end(2 * d));  // the other direction was busy throughout
    rates.push_back(gbps(kCopy, m.end(2 * d)));
    sum += rates.back();
  }
  std::printf("%s both ways: %.2f-%.2f GB/s per device, %.2f summed\n",
              measureToDevice ? "host_to_all" : "all_to_host",
              *std::min_element(rates.begin(), rates.end()),
              *std::max_element(rates.begin(), rates.end()), sum);
  return rates;
}

// Predicted (nothing was set from these runs): four devices per socket, each passing its root port
// 87.15 GB/s split 0.604 / 0.396, offer the socket's host memory 210.6 GB/s of reads and 138.0
// GB/s of writes, more than it sustains under mixed traffic. It then serves its mixed-traffic rate
// (eight channels of DDR5-4800 at random 256 B requests, 60.4 % reads: the DRAM model with the
// JESD79-5 timings gives 80 % of the 307.2 GB/s peak) in the ports' split, so each device gets
// 0.396 / 4 of it written and 0.604 / 4 of it read. Published per device (the middles, GPU1's
// outliers left out): D2H 22.53, H2D 33.96 GB/s; the model gives 24.4 (+8 %) and 34.3 (+1 %).
// 10 %: the tolerance for figures the model predicts; the write side is the further off.
constexpr double kMixedTolerance = 0.10;
constexpr Range kAllToHostBidir{22.22, 22.84};  // all_to_host_bidirectional_memcpy_ce (D2H)
constexpr Range kHostToAllBidir{33.49, 34.42};  // host_to_all_bidirectional_memcpy_ce (H2D)

TEST(HgxH800, AllDevicesBothWaysWriteTheHostMemorysWriteShare) {
  for (double r : allBothWays(false)) {
    EXPECT_GE(r, kAllToHostBidir.low * (1 - kMixedTolerance));
    EXPECT_LE(r, kAllToHostBidir.high * (1 + kMixedTolerance));
  }
}

TEST(HgxH800, AllDevicesBothWaysReadTheHostMemorysReadShare) {
  for (double r : allBothWays(true)) {
    EXPECT_GE(r, kHostToAllBidir.low * (1 - kMixedTolerance));
    EXPECT_LE(r, kHostToAllBidir.high * (1 + kMixedTolerance));
  }
}

// ------------------------------------------------------------------ the published Gen4 run

// 2 x Radeon RX 7900 XTX on one EPYC 7542, PCIe Gen4 x16 each, rocm-bandwidth-test 2.6.0, published
// in full in github.com/ROCm/legacy-rocm-build issue 2253
// (examples/validation/epyc7542-7900xtx-gen4.yaml says what is assumed and how the fit was done).
constexpr Range kGen4H2d{28.410, 28.411};    // CPU -> GPU            (predicted)
constexpr Range kGen4D2h{29.013, 29.016};    // GPU -> CPU            (predicted)
constexpr Range kGen4Bidir{48.102, 48.226};  // bidirectional, SUM   (fitted)
constexpr uint64_t kGen4Copy = 256ull << 20;

spec::SystemSpec gen4() {
  return spec::loadSystemSpec(std::string(ASCENDSIM_SOURCE_DIR) +
                              "/examples/validation/epyc7542-7900xtx-gen4.yaml");
}

double gen4Alone(bool toDevice) {
  Machine m(gen4());
  m.copy(0, toDevice ? host() : dev(0), toDevice ? dev(0) : host(), kGen4Copy);
  m.run();
  const double rate = gbps(kGen4Copy, m.end(0));
  std::printf("Gen4 %s alone: %.2f GB/s\n", toDevice ? "H2D" : "D2H", rate);
  return rate;
}

// Predicted: Gen4 x16 at MPS 512. The protocol model gives 27.55 (H2D) and 27.35 GB/s (D2H) at
// 256 MiB, 3.0 % and 5.7 % below the measurement: 6 % either way, a little wider than the H800's
// 5 %, says how far the protocol model's DLLP overhead sits below this host's (the measurement
// is above what pcie-bench's arithmetic allows at MPS 256).
constexpr double kGen4Tolerance = 0.06;

TEST(Gen4Epyc7900Xtx, OneDeviceAloneH2dComesFromTheProtocolModel) {
  const double r = gen4Alone(true);
  EXPECT_GE(r, kGen4H2d.low * (1 - kGen4Tolerance));
  EXPECT_LE(r, kGen4H2d.high * (1 + kGen4Tolerance));
}

TEST(Gen4Epyc7900Xtx, OneDeviceAloneD2hComesFromTheProtocolModel) {
  const double r = gen4Alone(false);
  EXPECT_GE(r, kGen4D2h.low * (1 - kGen4Tolerance));
  EXPECT_LE(r, kGen4D2h.high * (1 + kGen4Tolerance));
}

// Fitted (port_bandwidth, port_read_share from the sum): both 256 MiB copies start together and
// the sum is both sizes over the time until the later ends, as rocm-bandwidth-test counts it.
// The reads lose: they go at 23.61 GB/s beside the writes and end last. The writes end first,
// near their rate alone: 27.35 GB/s less the room the reads' requests take in the up direction
// (a 24 B request per 512 B read: 23.61 x 24 / 512 = 1.11 GB/s of the about 28.7 GB/s of TLPs
// it carries, 3.9 %), 26.3 GB/s.
TEST(Gen4Epyc7900Xtx, BothDirectionsSumIsTheFittedPortLimitAndTheReadsLose) {
  Machine m(gen4());
  m.copy(0, host(), dev(0), kGen4Copy);
  m.copy(0, dev(0), host(), kGen4Copy);
  m.run();
  const Picoseconds last = std::max(m.end(0), m.end(1));
  const double sum = gbps(2 * kGen4Copy, last);
  std::printf("Gen4 bidirectional sum: %.2f GB/s (H2D ends %.3f ms, D2H %.3f ms)\n", sum,
              static_cast<double>(m.end(0)) * 1e-9, static_cast<double>(m.end(1)) * 1e-9);
  EXPECT_GE(sum, kGen4Bidir.low * (1 - 0.005));
  EXPECT_LE(sum, kGen4Bidir.high * (1 + 0.005));
  EXPECT_GT(m.end(0), m.end(1));                             // the reads (H2D) end last
  EXPECT_NEAR(gbps(kGen4Copy, m.end(1)) / 26.3, 1.0, 0.01);  // the writes kept their rate
}

}  // namespace
}  // namespace ascendsim::models
