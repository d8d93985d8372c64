// Host buffers on a chosen NUMA node (models/machine/machine_graph.cpp hostSocketFor,
// models/machine/router.cpp, models/dma/path_timing.cpp): a copy's host side on another socket
// than the device's root port crosses the socket link (`host.socket_link`) and contends there;
// with `host.memory_socket: thread` a buffer whose node is not known lives on the socket of the
// thread that copies it (`host.thread_sockets`).
//
// Rate arithmetic of stated limits on a small machine: one Gen4 x16 device on a root port of
// socket 0, a second socket with its own memory, and a socket link set well below the PCIe link
// (10 GB/s per direction) so that a far copy is bound by it.
#include <gtest/gtest.h>

#include <string>

#include "scheduled_machine.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

MemoryPlace hostOn(int socket) {
  MemoryPlace m{MemoryPlace::Kind::HostPinned, -1, 0};
  m.socket = socket;
  return m;
}
MemoryPlace dev(int d) {
  return {MemoryPlace::Kind::Device, d, 0};
}
double seconds(Picoseconds t) {
  return static_cast<double>(t) * 1e-12;
}

// Gen4 x16, MPS 256 (as tests/models/host_contention_test.cpp): TLP rate 31.5077 GB/s x (1 -
// 8/168 - 8/168 - 4/1538) = 28.4250 GB/s; posted writes carry 256 B per 280 B (25.9886 GB/s).
constexpr double kGen4Tlp = 16e9 * 16 * 128.0 / 130.0 / 8 * (1.0 - 16.0 / 168 - 4.0 / 1538);
constexpr double kGen4WriteRate = kGen4Tlp * 256 / 280;
// Task launch 1 us + DMA setup 1 us of the default preset.
constexpr double kFixedSeconds = 2e-6;
constexpr double kSocketLink = 10e9;  // bytes/s per direction, set below
constexpr uint64_t kBytes = 256ull << 20;
// 0.3 %: the arithmetic leaves out the read round trip (0.54 us local, 0.76 us across the socket
// link: 0.003 % of 26.8 ms) and the last piece's way after the limiting stage. A far copy that
// did not cross the link would end at the PCIe rate, 2.6 times sooner.
constexpr double kTolerance = 0.003;

// Devices 0 and 1 on root ports of socket 0, a third root port on socket 1.
spec::SystemSpec twoSockets(const std::string& hostExtra = "") {
  return spec::loadSystemSpecFromText(
      "extends: default\nhost:\n  memory: { preset: ddr4-3200, channels: 8 }\n"
      "  socket_link: { bandwidth: 10GB/s }\n" +
          hostExtra +
          "pcie:\n  root_complex: { ports: 3, sockets: [0, 0, 1] }\n"
          "devices:\n  - count: 2\n    model: Ascend 910B4\n    ports: [rc.0, rc.1]\n"
          "    link: { generation: 4, lanes: 16, mps: 256, mrrs: 512 }\n"
          "    memory: { preset: hbm2e, stacks: 2, capacity: 32GiB }\n",
      "numa.yaml");
}

uint64_t bytesOf(Machine& m, const std::string& name) {
  return m.resource(name).bytes;
}

TEST(NumaPlacement, FarSocketHostToDeviceIsBoundByTheSocketLink) {
  // The buffer on socket 1, the device under socket 0: the read completions cross the socket link
  // from cpu1 to cpu0 at 10 GB/s: 2 us + 256 MiB / 10 GB/s = 26.846 ms.
  Machine m(twoSockets());
  m.copy(0, hostOn(1), dev(0), kBytes);
  m.run();
  EXPECT_NEAR(seconds(m.end(0)) / (kFixedSeconds + kBytes / kSocketLink), 1.0, kTolerance);
  EXPECT_EQ(bytesOf(m, "host.memory1"), kBytes);
  EXPECT_EQ(bytesOf(m, "host.memory0"), 0u);
  EXPECT_EQ(bytesOf(m, "host.cpu1>cpu0"), kBytes);
}

TEST(NumaPlacement, FarSocketDeviceToHostIsBoundByTheSocketLink) {
  // Posted writes from the device up to cpu0 and across to socket 1's memory: 2 us + 256 MiB /
  // 10 GB/s.
  Machine m(twoSockets());
  m.copy(0, dev(0), hostOn(1), kBytes);
  m.run();
  EXPECT_NEAR(seconds(m.end(0)) / (kFixedSeconds + kBytes / kSocketLink), 1.0, kTolerance);
  EXPECT_EQ(bytesOf(m, "host.memory1"), kBytes);
  EXPECT_EQ(bytesOf(m, "host.cpu0>cpu1"), kBytes);
}

TEST(NumaPlacement, NearSocketCopyRunsAtThePcieRate) {
  // The same machine, the buffer on socket 0: nothing crosses the socket link and the copy runs
  // at the Gen4 x16 write rate, 2 us + 256 MiB / 25.9886 GB/s.
  Machine m(twoSockets());
  m.copy(0, dev(0), hostOn(0), kBytes);
  m.run();
  EXPECT_NEAR(seconds(m.end(0)) / (kFixedSeconds + kBytes / kGen4WriteRate), 1.0, kTolerance);
  EXPECT_EQ(bytesOf(m, "host.memory0"), kBytes);
  EXPECT_EQ(bytesOf(m, "host.cpu0>cpu1"), 0u);
}

TEST(NumaPlacement, TwoFarCopiesShareTheSocketLink) {
  // Both devices read buffers on socket 1 at once: the link's 10 GB/s from cpu1 to cpu0 is shared,
  // so the two 256 MiB copies end together after 2 us + 512 MiB / 10 GB/s (each alone: half that).
  Machine m(twoSockets());
  m.copy(0, hostOn(1), dev(0), kBytes);
  m.copy(1, hostOn(1), dev(1), kBytes);
  m.run();
  const double expected = kFixedSeconds + 2.0 * kBytes / kSocketLink;
  EXPECT_NEAR(seconds(std::max(m.end(0), m.end(1))) / expected, 1.0, kTolerance);
  EXPECT_EQ(bytesOf(m, "host.cpu1>cpu0"), 2 * kBytes);
}

TEST(NumaPlacement, ThreadPlacementPutsABufferOnTheCopyingThreadsSocket) {
  // `memory_socket: thread` with threads 0 and 1 on sockets 0 and 1: a buffer whose node is not
  // known (pageable or registered memory: socket -1) lives on the copying thread's socket. Thread
  // 1's D2H crosses the link (10 GB/s), thread 0's does not (Gen4 write rate); they run on
  // different devices, so neither slows the other.
  Machine m(twoSockets("  memory_socket: thread\n  thread_sockets: [0, 1]\n"));
  m.copy(0, dev(0), hostOn(-1), kBytes, 0);
  m.copy(1, dev(1), hostOn(-1), kBytes, 1);
  m.run();
  EXPECT_NEAR(seconds(m.end(0)) / (kFixedSeconds + kBytes / kGen4WriteRate), 1.0, kTolerance);
  EXPECT_NEAR(seconds(m.end(1)) / (kFixedSeconds + kBytes / kSocketLink), 1.0, kTolerance);
  EXPECT_EQ(bytesOf(m, "host.memory0"), kBytes);
  EXPECT_EQ(bytesOf(m, "host.memory1"), kBytes);
  EXPECT_EQ(bytesOf(m, "host.cpu0>cpu1"), kBytes);
}

TEST(NumaPlacement, AFixedSocketOverridesTheThread) {
  // `memory_socket: 1`: every buffer of unknown node on socket 1 (numactl --membind=1), whatever
  // thread copies it: thread 0's copy crosses the link.
  Machine m(twoSockets("  memory_socket: 1\n  thread_sockets: [0]\n"));
  m.copy(0, dev(0), hostOn(-1), kBytes, 0);
  m.run();
  EXPECT_NEAR(seconds(m.end(0)) / (kFixedSeconds + kBytes / kSocketLink), 1.0, kTolerance);
  EXPECT_EQ(bytesOf(m, "host.memory1"), kBytes);
}

}  // namespace
}  // namespace ascendsim::models
