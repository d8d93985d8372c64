// A PCIe switch wired to several root ports (`pcie.switches[].upstream: [rc.0, rc.1]`,
// models/machine/router.cpp upward): host traffic leaves by an uplink into the socket its buffer
// lives on when the switch has one, else by any; among those each device takes the one its
// downstream port picks (port index modulo their number), so devices spread over the uplinks.
//
// Rate arithmetic on a small machine: one switch with two Gen4 x16 uplinks and two Gen4 x16
// devices under it.
#include <gtest/gtest.h>

#include <algorithm>
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

// Gen4 x16, MPS 256 (as tests/models/host_contention_test.cpp): posted writes carry 256 B per
// 280 B of 28.4250 GB/s of TLPs: 25.9886 GB/s.
constexpr double kGen4Tlp = 16e9 * 16 * 128.0 / 130.0 / 8 * (1.0 - 16.0 / 168 - 4.0 / 1538);
constexpr double kGen4WriteRate = kGen4Tlp * 256 / 280;
constexpr double kFixedSeconds = 2e-6;  // task launch 1 us + DMA setup 1 us
constexpr uint64_t kBytes = 256ull << 20;
// What the links carry: 256 B of data in each 280 B posted write TLP, 276 B completion TLP.
constexpr uint64_t kWriteWire = kBytes / 256 * 280;
constexpr uint64_t kCompletionWire = kBytes / 256 * 276;
// 0.3 %: the arithmetic leaves out the last pieces' way after the limiting stage (and the
// switch's cut-through); one uplink for both devices would take twice as long.
constexpr double kTolerance = 0.003;

spec::SystemSpec dualUplink(const std::string& sockets, const std::string& upstream) {
  const std::string link = "{ generation: 4, lanes: 16, mps: 256, mrrs: 512 }";
  return spec::loadSystemSpecFromText(
      "extends: default\nhost:\n  memory: { preset: ddr4-3200, channels: 8 }\n"
      "  socket_link: { bandwidth: 10GB/s }\n"
      "pcie:\n  root_complex: { ports: 2, sockets: " +
          sockets + " }\n  switches:\n    - { name: sw0, upstream: " + upstream +
          ", ports: 4, link: " + link +
          " }\ndevices:\n  - count: 2\n    model: Ascend 910B4\n    ports: [sw0.0, sw0.1]\n"
          "    link: " +
          link + "\n    memory: { preset: hbm2e, stacks: 2, capacity: 32GiB }\n",
      "uplinks.yaml");
}

TEST(SwitchUplinks, DevicesSpreadOverTwoUplinksIntoOneSocket) {
  // Both uplinks into socket 0: device 0 (port 0) takes the first, device 1 (port 1) the second,
  // so their D2H copies run side by side at the Gen4 write rate: 2 us + 256 MiB / 25.9886 GB/s.
  Machine m(dualUplink("[0, 0]", "[rc.0, rc.1]"));
  m.copy(0, dev(0), hostOn(0), kBytes);
  m.copy(1, dev(1), hostOn(0), kBytes);
  m.run();
  const double expected = kFixedSeconds + kBytes / kGen4WriteRate;
  EXPECT_NEAR(seconds(std::max(m.end(0), m.end(1))) / expected, 1.0, kTolerance);
  EXPECT_EQ(m.resource("sw0.uplink.up").bytes, kWriteWire);
  EXPECT_EQ(m.resource("sw0.uplink1.up").bytes, kWriteWire);
}

TEST(SwitchUplinks, OneUplinkIsSharedByBothDevices) {
  // The same devices behind one uplink: it carries both copies, 2 us + 512 MiB / 25.9886 GB/s.
  Machine m(dualUplink("[0, 0]", "rc.0"));
  m.copy(0, dev(0), hostOn(0), kBytes);
  m.copy(1, dev(1), hostOn(0), kBytes);
  m.run();
  const double expected = kFixedSeconds + 2.0 * kBytes / kGen4WriteRate;
  EXPECT_NEAR(seconds(std::max(m.end(0), m.end(1))) / expected, 1.0, kTolerance);
  EXPECT_EQ(m.resource("sw0.uplink.up").bytes, 2 * kWriteWire);
}

TEST(SwitchUplinks, HostTrafficTakesTheUplinkIntoItsBuffersSocket) {
  // Uplinks into sockets 0 and 1: device 0 writes a buffer on socket 1 through the uplink into
  // socket 1 (not its port's pick, the first), so nothing crosses the 10 GB/s socket link and the
  // copy runs at the Gen4 write rate; one into socket 0's memory takes the first uplink.
  Machine m(dualUplink("[0, 1]", "[rc.0, rc.1]"));
  m.copy(0, dev(0), hostOn(1), kBytes);
  m.copy(1, dev(1), hostOn(0), kBytes);
  m.run();
  const double expected = kFixedSeconds + kBytes / kGen4WriteRate;
  EXPECT_NEAR(seconds(m.end(0)) / expected, 1.0, kTolerance);
  EXPECT_NEAR(seconds(m.end(1)) / expected, 1.0, kTolerance);
  EXPECT_EQ(m.resource("sw0.uplink1.up").bytes, kWriteWire);
  EXPECT_EQ(m.resource("sw0.uplink.up").bytes, kWriteWire);
  EXPECT_EQ(m.resource("host.cpu0>cpu1").bytes, 0u);
  EXPECT_EQ(m.resource("host.memory1").bytes, kBytes);
}

TEST(SwitchUplinks, ReadsComeBackTheWayTheirRequestsWent) {
  // H2D from socket 1's memory: requests up and completions down both use the uplink into
  // socket 1; 256 MiB at the Gen4 completion rate (256 B per 276 B: 26.3652 GB/s) plus the first
  // round trip.
  Machine m(dualUplink("[0, 1]", "[rc.0, rc.1]"));
  m.copy(0, hostOn(1), dev(0), kBytes);
  m.run();
  EXPECT_NEAR(seconds(m.end(0)) / (kFixedSeconds + kBytes / (kGen4Tlp * 256 / 276)), 1.0,
              kTolerance);
  EXPECT_EQ(m.resource("sw0.uplink1.down").bytes, kCompletionWire);
  EXPECT_EQ(m.resource("sw0.uplink.down").bytes, 0u);
  EXPECT_EQ(m.resource("host.cpu1>cpu0").bytes, 0u);
}

}  // namespace
}  // namespace ascendsim::models
