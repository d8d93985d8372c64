// One device's task scheduler: streams run in order, DMA channels bound how many copies run at
// once, and a freed channel goes to the waiting stream of best priority (0 first), then to the
// oldest stream. The machine is the built-in default with its DMA cut to one engine of one or two
// channels, so each expectation follows from counting channels.
#include <gtest/gtest.h>

#include <algorithm>

#include "scheduled_machine.h"
#include "spec/system_loader.h"

namespace ascendsim::models {
namespace {

constexpr uint64_t kBytes = 16ull << 20;
const MemoryPlace kFrom{MemoryPlace::Kind::Device, 0, 0};
const MemoryPlace kTo{MemoryPlace::Kind::Device, 0, 1ull << 30};

spec::SystemSpec withChannels(uint32_t channels) {
  spec::SystemSpec sys = spec::loadSystemSpec("default");
  sys.devices[0].dma.engines = 1;
  sys.devices[0].dma.channelsPerEngine = channels;
  return sys;
}

TEST(DeviceScheduler, AStreamRunsItsTasksOneAfterAnother) {
  Machine m(withChannels(2));
  StreamQueue& s = m.newStream(0);
  m.copyOn(0, s, kFrom, kTo, kBytes);
  m.copyOn(0, s, kFrom, kTo, kBytes);
  m.run();
  // A free channel is there, but the second copy waits for the first: same stream.
  EXPECT_EQ(m.start(1), m.end(0));
  EXPECT_GT(m.end(0), m.start(0));
}

TEST(DeviceScheduler, ChannelsBoundTheCopiesRunningAtOnce) {
  Machine m(withChannels(2));
  for (int i = 0; i < 3; ++i) m.copyOn(0, m.newStream(0), kFrom, kTo, kBytes);
  m.run();
  // Two channels: the first two copies start at once, the third when one of them ends.
  EXPECT_EQ(m.start(0), 0);
  EXPECT_EQ(m.start(1), 0);
  EXPECT_EQ(m.start(2), std::min(m.end(0), m.end(1)));
}

TEST(DeviceScheduler, AFreedChannelGoesToTheBestPriorityThenTheOldestStream) {
  Machine m(withChannels(1));
  StreamQueue& busy = m.newStream(0);
  StreamQueue& low = m.newStream(0);   // created first, priority 5
  StreamQueue& high = m.newStream(0);  // created later, priority 0
  StreamQueue& late = m.newStream(0);  // priority 0, created last
  m.system().device(0).setPriority(low, 5);
  m.copyOn(0, busy, kFrom, kTo, kBytes);  // takes the only channel
  m.copyOn(0, low, kFrom, kTo, kBytes);
  m.copyOn(0, high, kFrom, kTo, kBytes);
  m.copyOn(0, late, kFrom, kTo, kBytes);
  m.run();
  // Order of the channel: busy, then high (priority 0, older than late), then late, then low.
  EXPECT_EQ(m.start(2), m.end(0));
  EXPECT_EQ(m.start(3), m.end(2));
  EXPECT_EQ(m.start(1), m.end(3));
}

}  // namespace
}  // namespace ascendsim::models
