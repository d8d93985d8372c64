// Device links and the socket link, one at a time: the wire bytes each kind charges for a shape of
// traffic, the time they take at its rate, and what the link reports about itself. Every figure is
// the protocol arithmetic written out here, from the settings given.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>

#include "models/link/link.h"
#include "models/link/socket_link.h"

namespace ascendsim::models {
namespace {

spec::DeviceLinkSpec hccs() {
  spec::DeviceLinkSpec s;
  s.model = "hccs";
  s.a = "npu0";
  s.b = "npu1";
  s.lanes = 8;
  s.rate = 56e9;  // 8 x 56 Gb/s = 56 GB/s per direction
  s.packetPayload = 256;
  s.packetOverhead = 16;
  s.latency = 300000;
  s.transferRate = 19.3e9;
  return s;
}

TEST(HccsLink, ChargesOnePacketHeaderPerPayloadAndRow) {
  ResourceTable table;
  const std::unique_ptr<Link> link = makeDeviceLink(hccs(), 3, 4, table);
  // Three rows of 1000 B: each is 4 packets (1000 / 256 rounded up), 16 B of overhead each, so
  // 1064 B per row and 3192 B in all, at 56 GB/s: 3192 / 56e9 s = 57 ns.
  const Stage write = link->carry(0, Traffic::Write, Shape{1000, 3}, Framing{});
  EXPECT_EQ(write.bytes, 3192u);
  EXPECT_NEAR(write.occupancy, 57000, 1);  // (whole picoseconds, rounded up)
  EXPECT_EQ(write.latency, 300000);
  EXPECT_FALSE(write.interleaved);
  EXPECT_EQ(write.resource->name, "hccs.npu0>npu1");
  // Completions carry data as writes do; a read request is headers only (4 x 16 B per row), and
  // slips in between the other direction's data.
  EXPECT_EQ(link->carry(1, Traffic::Completion, Shape{1000, 3}, Framing{}).bytes, 3192u);
  const Stage request = link->carry(1, Traffic::ReadRequest, Shape{1000, 3}, Framing{});
  EXPECT_EQ(request.bytes, 192u);
  EXPECT_TRUE(request.interleaved);
  EXPECT_EQ(request.resource->name, "hccs.npu1>npu0");
}

TEST(HccsLink, ReportsItsRatesEndsAndTopology) {
  ResourceTable table;
  const std::unique_ptr<Link> link = makeDeviceLink(hccs(), 3, 4, table);
  // Payload rate of a long stream of 256 B packets: 56 GB/s x 256 / 272 = 52.706 GB/s.
  EXPECT_DOUBLE_EQ(link->payloadRate(Traffic::Write, 256, Framing{}), 56e9 * 256 / 272);
  // A 100 B piece is one packet of 116 B on the wire.
  EXPECT_DOUBLE_EQ(link->payloadRate(Traffic::Write, 100, Framing{}), 56e9 * 100 / 116);
  EXPECT_DOUBLE_EQ(link->bandwidth(), 56e9);
  EXPECT_DOUBLE_EQ(link->transferRate(), 19.3e9);
  EXPECT_EQ(link->topologyBit(), 0x01u);  // ACL_RT_DEVS_TOPOLOGY_HCCS
  EXPECT_EQ(link->directionFrom(3), 0);
  EXPECT_EQ(link->directionFrom(4), 1);
  EXPECT_STREQ(link->kind(), "hccs");
  EXPECT_EQ(link->describe(), "HCCS x8, 56.0 GB/s per direction");
  EXPECT_EQ(table.size(), 2u);  // one resource per direction
}

TEST(HccsLink, AnUnknownKindIsRefusedByName) {
  ResourceTable table;
  spec::DeviceLinkSpec s = hccs();
  s.model = "nvlink";
  EXPECT_THROW(makeDeviceLink(s, 0, 1, table), std::invalid_argument);
}

TEST(SocketLink, CarriesPayloadOnlyAtItsBandwidth) {
  ResourceTable table;
  spec::SocketLinkSpec s;
  s.bandwidth = 30e9;
  s.latency = 110000;
  SocketLink link(0, 1, 10, 11, s, table);
  // 64 KiB at 30 GB/s: 65536 / 30e9 s = 2184.533 ns, rounded up to whole picoseconds.
  const Stage st = link.carry(0, Traffic::Completion, Shape{65536, 1}, Framing{});
  EXPECT_EQ(st.bytes, 65536u);
  EXPECT_EQ(st.occupancy, 2184534);
  EXPECT_EQ(st.latency, 110000);
  EXPECT_EQ(st.resource->name, "host.cpu0>cpu1");
  EXPECT_EQ(link.carry(1, Traffic::ReadRequest, Shape{65536, 1}, Framing{}).bytes, 0u);
  EXPECT_EQ(link.carry(1, Traffic::Write, Shape{4096, 1}, Framing{}).resource->name,
            "host.cpu1>cpu0");
  EXPECT_DOUBLE_EQ(link.transferRate(), 0.0);  // no limit of its own per transfer
  EXPECT_EQ(link.topologyBit(), 0u);
  EXPECT_EQ(link.describe(), "socket link, 30.0 GB/s per direction");
}

}  // namespace
}  // namespace ascendsim::models
